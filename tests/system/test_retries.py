"""Task retries: a task that fails once gives exactly the report of a clean run (counts included);
a failure that persists exits 1 with its cause in one line and publishes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_FAILURE, EXIT_OK
from tests.conftest import JUDGMENTS, RESULTS, job_env, snapshot, write

HARNESS = Path(__file__).resolve().parents[1] / "fault_injection.py"


def _job(mode: str, judgments: str, results: str, output: Path) -> subprocess.CompletedProcess:
    env = job_env()
    return subprocess.run(
        [sys.executable, str(HARNESS), mode, "--judgments", judgments, "--results", results,
         "--output", str(output), "--eval-date", "2026-12-01", "--k", "1,2", "--no-html-report"],
        env=env, capture_output=True, text=True, timeout=600,
    )


def _rows(folder: Path) -> list[tuple]:
    return sorted((tuple(row.values()) for row in pq.read_table(folder).to_pylist()), key=repr)


@pytest.mark.slow
def test_retried_task_gives_the_clean_report_and_a_failing_one_publishes_nothing(tmp_path: Path) -> None:
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    results = write(tmp_path / "r" / "part-0.parquet", RESULTS)
    reports = {}
    for mode in ("none", "once"):
        done = _job(mode, judgments, results, tmp_path / mode)
        assert done.returncode == EXIT_OK, done.stderr[-3000:]
        reports[mode] = [_rows(tmp_path / mode / name / "eval_date=2026-12-01") for name in ("per_query", "summary")]
        manifest = json.loads((tmp_path / mode / "_manifests" / "2026-12-01.json").read_text())
        reports[mode].append((manifest["inputs"]["results"]["rows"], manifest["counts"]))
        assert ("injected task failure" in done.stderr) == (mode == "once")  # it did fail, once
    assert reports["once"] == reports["none"]  # exactly, counts from the observations included

    before = snapshot(tmp_path / "none")
    done = _job("always", judgments, results, tmp_path / "none")
    assert done.returncode == EXIT_FAILURE
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("ndcg-spark:")]
    assert len(lines) == 1 and lines[0].startswith("ndcg-spark: failed: ") and "injected task failure" in lines[0], lines
    assert snapshot(tmp_path / "none") == before
