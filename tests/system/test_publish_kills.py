"""Kills during publication (the job in its own process group, Python and JVM): a reader sees the
previous report or the new one, complete, never a mix of datasets within one file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ndcg_spark.errors import EXIT_OK
from tests.conftest import ROOT, job_env, parquet_rows, run_job


@pytest.mark.slow
def test_killed_runs_never_show_half_a_report(inputs, tmp_path: Path) -> None:
    """SIGKILL the job (its whole process group: Python and the JVM) at several points of a rerun:
    after each kill, the date's report is the previous one or the new one, complete, as pyarrow
    reads it."""
    output = tmp_path / "out"
    date = ["--eval-date", "2026-12-01"]
    assert run_job(*inputs, output, *date, "--k", "1") == EXIT_OK
    old = {name: parquet_rows(output / name / "eval_date=2026-12-01") for name in ("per_query", "summary")}
    command = [sys.executable, str(ROOT / "jobs" / "evaluate_ndcg.py"), "--judgments", inputs[0],
               "--results", inputs[1], "--output", str(output), *date, "--k", "2"]
    env = job_env(pythonpath=True)
    seen = set()
    for delay in (3.0, 8.0, 13.0, 18.0):  # before Spark starts, while it evaluates, around publishing
        job = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
        try:
            job.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
        for name, previous in old.items():
            now = parquet_rows(output / name / "eval_date=2026-12-01")
            ks = {row[3] for row in now} if name == "per_query" else {row[2] for row in now}
            assert ks in ({1, None}, {2, None}), (name, delay, ks)
            assert now == previous or ks == {2, None}
            seen.add((name, tuple(sorted(k for k in ks if k is not None))))
    # The first kills land before the job (about 10 s to start Spark) publishes.
    assert ("per_query", (1,)) in seen, seen
