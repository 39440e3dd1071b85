"""Helpers of the publication tests: inputs whose every run is named after its input file, so that
each dataset of a date tells which run wrote it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from ndcg_spark.publish.layout import COMMIT_FILE
from tests.conftest import RESULTS, ROOT, job_env, write

DATE = "2026-12-01"
# A run's staging token, and the UUID in the name of a part file Spark writes.
_TOKEN = re.compile(r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
AT_POINT = str(ROOT / "tests" / "at_point.py")
DATASETS = ("per_query", "summary", "comparison")


def named_results(folder: Path, name: str) -> str:
    """RESULTS with every run renamed `name-run`."""
    runs = [f"{name}-{run}" for run in RESULTS["run_id"]]
    return write(folder / name / "part-0.parquet", {**RESULTS, "run_id": runs})


def job_arguments(judgments: str, results: str, output: Path, *extra: str) -> list[str]:
    return [
        "--judgments",
        judgments,
        "--results",
        results,
        "--output",
        str(output),
        "--eval-date",
        DATE,
        "--k",
        "1,2",
        "--no-html-report",
        *extra,
    ]


def start_at_point(marks: Path, actions: list[str], arguments: list[str]) -> subprocess.Popen:
    """The job as a process of its own (its own process group, for a kill), acted on at points of
    its publication (tests/at_point.py); its stderr is kept for the failure message."""
    return subprocess.Popen(
        [sys.executable, AT_POINT, str(marks), *actions, "--", *arguments],
        env=job_env(pythonpath=True),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def writers(output: Path) -> dict[str, str]:
    """Which input wrote each dataset of DATE, its markdown table and its manifest."""
    found = {}
    for name in DATASETS:
        folder = output / name / f"eval_date={DATE}"
        if folder.exists():
            names = {run.split("-")[0] for run in pq.read_table(folder).column("run_id").to_pylist()}
            assert len(names) == 1, f"{name} of {DATE} mixes {sorted(names)} within one dataset"
            found[name] = names.pop()
    table = set(re.findall(r"\b(\w+)-r[12]\b", (output / "report" / f"{DATE}.md").read_text()))
    assert len(table) == 1, f"the table of {DATE} names runs of {sorted(table)}"
    found["table"] = table.pop()
    manifest = json.loads((output / "_manifests" / f"{DATE}.json").read_text())
    found["manifest"] = manifest["config"]["results"].rsplit("/", 2)[-2]
    return found


def whole_report_of(output: Path) -> str:
    """The one input whose runs fill every dataset, the table and the manifest of DATE, with no
    publication left half done."""
    found = set(writers(output).values())
    assert len(found) == 1, writers(output)
    assert not (output / COMMIT_FILE).exists()
    return found.pop()


def listing(output: Path) -> list[str]:
    """Every file's path under output, with run tokens and checksum files left out."""
    return sorted(
        _TOKEN.sub("T", str(path.relative_to(output)))
        for path in output.rglob("*")
        if path.is_file() and not path.name.endswith(".crc")
    )
