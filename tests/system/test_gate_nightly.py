"""Two nights of one output, the second with a planted drop: the gate fails it with exit 4 (a
process of its own, as a scheduler sees it) when the drop is large and on many queries, passes it
when the same drop is on too few queries to be significant, and the report is published both
times, verdict first."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_OK, EXIT_QUALITY_DROPPED, EXIT_USAGE
from ndcg_spark.job.cli import main
from tests.conftest import HANG_SECONDS, job_env, write

pytestmark = pytest.mark.slow

QUERIES = [f"q{i:02d}" for i in range(40)]
PLANTED = QUERIES[1::2]  # 20 of 40 queries ranked reversed on the second night
FEW = ["q05", "q30"]  # the same fall on two queries: too few to be significant
FIRST, SECOND = "2026-12-01", "2026-12-02"


def _results(folder: Path, reversed_queries: list[str]) -> str:
    rows = [
        (run, q, f"d{i}", float(i if run == "new" and q in reversed_queries else 3 - i))
        for run in ("base", "new")
        for q in QUERIES
        for i in range(3)
    ]
    columns = dict(zip(("run_id", "query_id", "doc_id", "score"), map(list, zip(*rows, strict=True)), strict=True))
    return write(folder / "part-0.parquet", columns)


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("nights")
    judgments = write(
        root / "judgments" / "part-0.parquet",
        {
            "query_id": [q for q in QUERIES for _ in range(3)],
            "doc_id": ["d0", "d1", "d2"] * len(QUERIES),
            "relevance": [2, 1, 0] * len(QUERIES),
        },
    )
    output = root / "out"

    def arguments(results: str, date: str, out: Path = output) -> list[str]:
        return [
            "--judgments",
            judgments,
            "--results",
            results,
            "--output",
            str(out),
            "--eval-date",
            date,
            "--k",
            "3",
            "--no-uncut",
            "--fail-on-drop",
            "0.01",
            "--against-previous",
            "--log-format",
            "json",
        ]

    first = main([*arguments(_results(root / "r1", []), FIRST), "--no-html-report"])
    assert first == EXIT_OK  # the first night: nothing to gate against, passes
    copy = root / "copy"
    shutil.copytree(output, copy)
    dropped = subprocess.run(
        [sys.executable, "-m", "ndcg_spark", *arguments(_results(root / "r2", PLANTED), SECOND)],
        env=job_env(pythonpath=True),
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    return {"root": root, "output": output, "copy": copy, "arguments": arguments, "dropped": dropped, "judgments": judgments}


def test_the_first_night_has_nothing_to_gate_against(nights) -> None:
    manifest = json.loads((nights["output"] / "_manifests" / f"{FIRST}.json").read_text())
    assert manifest["gate"]["passed"] is True
    assert manifest["gate"]["note"].startswith(f"nothing to gate against: no eval date before {FIRST} is published")
    assert pq.read_table(nights["output"] / "gate" / f"eval_date={FIRST}").num_rows == 0


def test_a_large_significant_drop_fails_with_exit_4_and_is_published(nights) -> None:
    done: subprocess.CompletedProcess = nights["dropped"]
    assert done.returncode == EXIT_QUALITY_DROPPED, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"gate: FAILED against the report of {FIRST}: 1 of 2 gated failed"), done.stdout[:2000]
    assert lines[1].split()[:3] == ["FAILED", "new", "ndcg@3"] and "95% CI [" in lines[1]
    named = [line.split(":")[0].strip() for line in lines[3:13]]  # after the header of the list
    assert len(named) == 10 and set(named) <= set(PLANTED), lines[:14]  # the queries that fell are planted ones
    assert done.stdout.index("gate: FAILED") < done.stdout.index("run ")  # the verdict before the tables
    assert "ndcg-spark: quality dropped (the report is published): new ndcg@3 against the report of 2026-12-01" in done.stderr
    output = nights["output"]
    gate = pq.read_table(output / "gate" / f"eval_date={SECOND}").to_pylist()
    assert [(row["run_id"], row["passed"], row["reference"]) for row in gate] == [("base", True, FIRST), ("new", False, FIRST)]
    assert {entry["query_id"] for entry in gate[1]["fell_most"]} <= set(PLANTED)
    assert gate[1]["p_value_randomization_holm"] < 0.05 and gate[1]["judgments_changed"] is False
    manifest = json.loads((output / "_manifests" / f"{SECOND}.json").read_text())
    assert manifest["gate"]["passed"] is False and manifest["outputs"]["gate"]["rows"] == 2
    assert [(item["run_id"], item["k"]) for item in manifest["gate"]["failed"]] == [("new", 3)]
    assert pq.read_table(output / "per_query" / f"eval_date={SECOND}").num_rows == 80  # the report, in full
    page = (output / "report" / f"{SECOND}.html").read_text()
    assert page.index('<section class="gate failed">') < page.index("<h2>NDCG@k")


def test_the_same_drop_on_too_few_queries_passes(nights, capsys) -> None:
    arguments = nights["arguments"]
    capsys.readouterr()
    assert main([*arguments(_results(nights["root"] / "r3", FEW), SECOND, nights["copy"]), "--no-html-report"]) == EXIT_OK
    printed = capsys.readouterr().out
    assert printed.startswith(f"gate: passed against the report of {FIRST}: none of 2 gated shows a fall")
    line = next(line for line in printed.splitlines() if " new ndcg@3 " in line)
    assert line.strip().startswith("passed (fell, not significant)")
    assert sorted(line.split(":")[0].strip() for line in printed.splitlines() if line.startswith("      q")) == FEW
    gate = pq.read_table(nights["copy"] / "gate" / f"eval_date={SECOND}").to_pylist()
    assert [(row["run_id"], row["dropped"], row["significant"], row["passed"]) for row in gate] == [
        ("base", False, False, True),
        ("new", True, False, True),
    ]


def test_a_date_that_is_not_published_is_a_usage_error(nights, capsys) -> None:
    arguments = nights["arguments"](_results(nights["root"] / "r1", []), "2026-12-05")
    arguments[arguments.index("--against-previous")] = "--against-date=2026-11-30"
    assert main(arguments) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--against-date 2026-11-30: no report is published in" in err and "(latest: 2026-12-01, 2026-12-02)" in err
    assert not (nights["output"] / "summary" / "eval_date=2026-12-05").exists()
