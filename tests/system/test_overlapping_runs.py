"""Overlapping runs and interrupted publications: a date always ends up holding one run's whole
report (every dataset, and that run's manifest)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.io.layout import COMMIT_FILE
from tests.conftest import JUDGMENTS, RESULTS, ROOT, job_env, write

DATE = "2026-12-01"
JOB = str(ROOT / "jobs" / "evaluate_ndcg.py")


def _results(tmp_path: Path, name: str) -> str:
    """RESULTS with every run renamed after the input, so each dataset tells which run wrote it."""
    runs = [f"{name}-{run}" for run in RESULTS["run_id"]]
    return write(tmp_path / name / "part-0.parquet", {**RESULTS, "run_id": runs})


def _command(script: str, judgments: str, results: str, output: Path, *extra: str) -> list[str]:
    return [sys.executable, script, "--judgments", judgments, "--results", results, "--output", str(output),
            "--eval-date", DATE, "--k", "1,2", "--no-html-report", *extra]


def _env() -> dict[str, str]:
    return job_env(pythonpath=True)


def _whole_report_of(output: Path) -> str:
    """The one input whose runs fill every dataset of the date, and whose manifest is there."""
    writers = set()
    for name in ("per_query", "summary", "comparison"):
        folder = output / name / f"eval_date={DATE}"
        if folder.exists():
            writers |= {run.split("-")[0] for run in pq.read_table(folder).column("run_id").to_pylist()}
    assert len(writers) == 1, f"datasets of {DATE} come from {sorted(writers)}"
    (writer,) = writers
    manifest = json.loads((output / "_manifests" / f"{DATE}.json").read_text())
    assert manifest["config"]["results"].endswith(f"/{writer}/part-0.parquet"), manifest["config"]["results"]
    assert [run["run_id"].split("-")[0] for run in manifest["counts"]["runs"]] == [writer, writer]
    assert not (output / COMMIT_FILE).exists()
    return writer


@pytest.mark.slow
def test_two_runs_of_one_date_started_together(tmp_path: Path) -> None:
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    inputs = {name: _results(tmp_path, name) for name in ("first", "second")}
    output = tmp_path / "out"
    # Started together: either may publish last, and the date must hold that one's whole report.
    jobs = [
        subprocess.Popen(_command(JOB, judgments, results, output, "--baseline", f"{name}-r1"), env=_env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for name, results in inputs.items()
    ]
    for job in jobs:
        _, err = job.communicate(timeout=300)
        assert job.returncode == EXIT_OK, err[-2000:]
    assert _whole_report_of(output) in {"first", "second"}
