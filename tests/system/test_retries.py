"""Task retries: a task that fails once gives exactly the report of a clean run (counts included);
a failure that persists exits 1 with its cause in one line and publishes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ndcg_spark.checks.observe as validation
from ndcg_spark.errors import EXIT_FAILURE, EXIT_OK
from tests.conftest import HANG_SECONDS, JUDGMENTS, RESULTS, error_lines, job_env, parquet_rows, run_job, snapshot, write
from tests.fault_injection import INJECTED, failing

HARNESS = Path(__file__).resolve().parents[1] / "fault_injection.py"
FLAGS = ("--eval-date", "2026-12-01", "--k", "1,2")


def _retried(judgments: str, results: str, output: Path) -> subprocess.CompletedProcess:
    """The job in its own JVM on local[2,4], where a failed task is tried again (this process's
    session, like any local[N] one, gives up on the first failure)."""
    return subprocess.run(
        [
            sys.executable,
            str(HARNESS),
            "once",
            "--judgments",
            judgments,
            "--results",
            results,
            "--output",
            str(output),
            *FLAGS,
            "--no-html-report",
            "--engine",
            "spark",  # Spark's task retries are under test
        ],
        env=job_env(),
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )


def _report(output: Path) -> list:
    """per_query's and summary's rows, and the manifest's input rows and counts."""
    tables = [parquet_rows(output / name / "eval_date=2026-12-01") for name in ("per_query", "summary")]
    manifest = json.loads((output / "_manifests" / "2026-12-01.json").read_text())
    return [*tables, (manifest["inputs"]["results"]["rows"], manifest["counts"])]


@pytest.mark.slow
def test_retried_task_gives_the_clean_report_and_a_failing_one_publishes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    results = write(tmp_path / "r" / "part-0.parquet", RESULTS)
    assert run_job(judgments, results, tmp_path / "clean", *FLAGS) == EXIT_OK  # in this process: the embedded engine
    done = _retried(judgments, results, tmp_path / "once")
    assert done.returncode == EXIT_OK, done.stderr[-3000:]
    assert INJECTED in done.stderr  # it did fail, once
    assert _report(tmp_path / "once") == _report(tmp_path / "clean")  # exactly, counts from the observations included

    before = snapshot(tmp_path / "clean")
    monkeypatch.setattr(validation, "copartition", failing("always", validation.copartition))
    capsys.readouterr()
    assert run_job(judgments, results, tmp_path / "clean", *FLAGS, "--engine", "spark") == EXIT_FAILURE
    printed = capsys.readouterr()
    lines = [line for line in error_lines(printed.out + printed.err) if line.startswith("ndcg-spark:")]
    assert len(lines) == 1 and lines[0].startswith("ndcg-spark: failed: ") and INJECTED in lines[0], lines
    assert snapshot(tmp_path / "clean") == before
