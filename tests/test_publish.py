"""Publication: one file per dataset and date swapped in one step, a manifest written last, reruns
that replace exactly their date, failures and kills that leave the previous report untouched."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from ndcg_spark.job.cli import main
from ndcg_spark import columns as c
from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK
from ndcg_spark.publish.atomic import PART_FILE
from ndcg_spark.io.storage import STAGING_DIR
from tests.test_job import JUDGMENTS, RESULTS, write

ROOT = Path(__file__).resolve().parents[1]


def _run(judgments: str, results: str, output: Path, *extra: str) -> int:
    return main(["--judgments", judgments, "--results", results, "--output", str(output), *extra])


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under folder with the hash of its bytes."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture()
def inputs(tmp_path: Path) -> tuple[str, str]:
    return (
        write(tmp_path / "judgments" / "part-0.parquet", JUDGMENTS),
        write(tmp_path / "results" / "part-0.parquet", RESULTS),
    )


def test_layout_is_one_file_per_dataset_and_date_and_a_manifest(inputs, tmp_path: Path) -> None:
    output = tmp_path / "out"
    assert _run(*inputs, output, "--eval-date", "2026-12-01") == EXIT_OK
    for name in ("per_query", "summary"):
        assert sorted(os.listdir(output / name / "eval_date=2026-12-01")) == [PART_FILE]
    assert not (output / STAGING_DIR).exists()
    record = json.loads((output / "_manifests" / "2026-12-01.json").read_text())
    assert record["outcome"] == "published" and record["eval_date"] == "2026-12-01"
    assert record["inputs"]["results"]["rows"] == 9 and record["inputs"]["judgments"]["files"] == 1
    assert record["outputs"]["per_query"]["rows"] == 2 * 2 * 4  # runs x queries x (5, 10, 20, uncut)
    assert record["config"]["ks"] == [5, 10, 20] and record["versions"]["spark"]
    assert [run["run_id"] for run in record["counts"]["runs"]] == ["r1", "r2"]


def test_rerun_with_empty_result_replaces_exactly_that_date(
    spark: SparkSession, inputs, tmp_path: Path
) -> None:
    output = tmp_path / "out"
    assert _run(*inputs, output, "--eval-date", "2026-12-01") == EXIT_OK
    assert _run(*inputs, output, "--eval-date", "2026-12-02") == EXIT_OK
    kept = _snapshot(output / "per_query" / "eval_date=2026-12-01")
    # Only unjudged queries retrieved: nothing to score for this date any more.
    unjudged = write(tmp_path / "unjudged" / "part-0.parquet",
                     {"query_id": ["q8", "q9"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    assert _run(inputs[0], unjudged, output, "--eval-date", "2026-12-02") == EXIT_OK
    per_query = spark.read.parquet(str(output / "per_query"))
    counts = {str(row[0]): row[1] for row in per_query.groupBy(c.EVAL_DATE).count().collect()}
    assert counts == {"2026-12-01": 16}
    assert spark.read.parquet(str(output / "summary")).filter(F.col(c.EVAL_DATE) == "2026-12-02").count() == 0
    assert _snapshot(output / "per_query" / "eval_date=2026-12-01") == kept


def test_rejected_rerun_leaves_the_previous_report_byte_identical(inputs, tmp_path: Path) -> None:
    output = tmp_path / "out"
    assert _run(*inputs, output, "--eval-date", "2026-12-01") == EXIT_OK
    before = _snapshot(output)
    broken = write(tmp_path / "broken" / "part-0.parquet", {**RESULTS, "score": [float("nan")] * 9})
    assert _run(inputs[0], broken, output, "--eval-date", "2026-12-01") == EXIT_INPUT_REJECTED
    assert _snapshot(output) == before


def test_stale_staging_is_removed_by_the_next_run(inputs, tmp_path: Path) -> None:
    output = tmp_path / "out"
    stale = output / STAGING_DIR / "left-by-a-killed-run"
    stale.mkdir(parents=True)
    (stale / "part-0.parquet").write_text("half written")
    day_ago = time.time() - 24 * 3600
    os.utime(stale, (day_ago, day_ago))
    assert _run(*inputs, output) == EXIT_OK
    assert not (output / STAGING_DIR).exists()


def _report(folder: Path) -> list[tuple]:
    return sorted(tuple(row.values()) for row in pq.read_table(folder).to_pylist())


@pytest.mark.slow
def test_killed_runs_never_show_half_a_report(inputs, tmp_path: Path) -> None:
    """SIGKILL the job (its whole process group: Python and the JVM) at several points of a rerun:
    after each kill, the date's report is the previous one or the new one, complete, as pyarrow
    reads it."""
    output = tmp_path / "out"
    date = ["--eval-date", "2026-12-01"]
    assert _run(*inputs, output, *date, "--k", "1") == EXIT_OK
    old = {name: _report(output / name / "eval_date=2026-12-01") for name in ("per_query", "summary")}
    command = [sys.executable, str(ROOT / "jobs" / "evaluate_ndcg.py"), "--judgments", inputs[0],
               "--results", inputs[1], "--output", str(output), *date, "--k", "2"]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYTHONPATH": str(ROOT)}
    seen = set()
    for delay in (3.0, 6.0, 9.0, 12.0, 15.0, 18.0):
        job = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
        try:
            job.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
        for name, previous in old.items():
            now = _report(output / name / "eval_date=2026-12-01")
            ks = {row[3] for row in now} if name == "per_query" else {row[2] for row in now}
            assert ks in ({1, None}, {2, None}), (name, delay, ks)
            assert now == previous or ks == {2, None}
            seen.add((name, tuple(sorted(k for k in ks if k is not None))))
    # The first kills land before the job (about 10 s to start Spark) publishes.
    assert ("per_query", (1,)) in seen, seen
