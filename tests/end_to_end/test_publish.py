"""Publication: a folder per dataset and date swapped in, a manifest written last, reruns
that replace exactly their date, failures and kills that leave the previous report untouched."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pyarrow.parquet as pq
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK
from ndcg_spark.publish import atomic
from ndcg_spark.publish.staging import STAGING_DIR
from ndcg_spark.report.html import PLOTLY_FILE
from tests.conftest import RESULTS, job_engine, run_job, snapshot, write


def test_layout_is_a_folder_per_dataset_and_date_and_a_manifest(inputs, tmp_path: Path) -> None:
    output = tmp_path / "out"
    assert run_job(*inputs, output, "--eval-date", "2026-12-01", html=True) == EXIT_OK
    for name in ("per_query", "summary"):
        data = [file for file in os.listdir(output / name / "eval_date=2026-12-01") if not file.startswith((".", "_"))]
        assert len(data) == 1 and data[0].startswith("part-00000-") and data[0].endswith(".parquet")  # a small one: one file
    assert sorted(os.listdir(output / "report")) == sorted(["2026-12-01.html", "2026-12-01.md", PLOTLY_FILE])
    assert not (output / STAGING_DIR).exists()
    record = json.loads((output / "_manifests" / "2026-12-01.json").read_text())
    assert record["eval_date"] == "2026-12-01" and record["outputs"]["report"]["path"].endswith("2026-12-01.html")
    assert record["outputs"]["report_script"]["path"].endswith(f"/report/{PLOTLY_FILE}")  # once per output
    assert record["inputs"]["results"]["rows"] == 9 and record["inputs"]["judgments"]["files"] == 1
    assert record["outputs"]["per_query"]["rows"] == 2 * 2 * 4  # runs x queries x (5, 10, 20, uncut)
    # Spark's version is recorded where Spark computed it (auto on tiny local inputs: in this process).
    engine = job_engine()
    assert (
        record["config"]["ks"] == [5, 10, 20]
        and record["engine"] == engine
        and ("spark" in record["versions"]) == (engine == "spark")
    )
    assert [run["run_id"] for run in record["counts"]["runs"]] == ["r1", "r2"]


def test_a_file_holds_at_most_its_share_of_rows_whatever_the_partitions(inputs, tmp_path: Path, monkeypatch) -> None:
    """per_query's 16 rows come from one partition here; with 5 rows a file they make 4 files."""
    monkeypatch.setattr(atomic, "PART_ROWS", 5)
    output = tmp_path / "out"
    assert run_job(*inputs, output, "--k", "5,10,20") == EXIT_OK
    files = sorted(file for file in os.listdir(output / "per_query") if file.endswith(".parquet"))
    assert [pq.ParquetFile(output / "per_query" / file).metadata.num_rows for file in files] == [5, 5, 5, 1]
    record = json.loads((output / "_manifests" / "latest.json").read_text())
    assert record["outputs"]["per_query"]["rows"] == 16 and len(record["outputs"]["per_query"]["files"]) == 4


def test_rerun_with_empty_result_replaces_exactly_that_date(spark: SparkSession, inputs, tmp_path: Path) -> None:
    output = tmp_path / "out"
    assert run_job(*inputs, output, "--eval-date", "2026-12-01") == EXIT_OK
    assert run_job(*inputs, output, "--eval-date", "2026-12-02") == EXIT_OK
    kept = snapshot(output / "per_query" / "eval_date=2026-12-01")
    # Only unjudged queries retrieved: nothing to score for this date any more.
    unjudged = write(
        tmp_path / "unjudged" / "part-0.parquet", {"query_id": ["q8", "q9"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}
    )
    assert run_job(inputs[0], unjudged, output, "--eval-date", "2026-12-02") == EXIT_OK
    per_query = spark.read.parquet(str(output / "per_query"))
    counts = {str(row[0]): row[1] for row in per_query.groupBy(c.EVAL_DATE).count().collect()}
    assert counts == {"2026-12-01": 16}
    assert spark.read.parquet(str(output / "summary")).filter(F.col(c.EVAL_DATE) == "2026-12-02").count() == 0
    assert snapshot(output / "per_query" / "eval_date=2026-12-01") == kept


def test_rejected_rerun_leaves_the_previous_report_byte_identical(inputs, tmp_path: Path) -> None:
    output = tmp_path / "out"
    assert run_job(*inputs, output, "--eval-date", "2026-12-01") == EXIT_OK
    before = snapshot(output)
    broken = write(tmp_path / "broken" / "part-0.parquet", {**RESULTS, "score": [float("nan")] * 9})
    assert run_job(inputs[0], broken, output, "--eval-date", "2026-12-01") == EXIT_INPUT_REJECTED
    assert snapshot(output) == before


def test_stale_staging_is_removed_by_the_next_run(inputs, tmp_path: Path) -> None:
    output = tmp_path / "out"
    stale = output / STAGING_DIR / "left-by-a-killed-run"
    stale.mkdir(parents=True)
    (stale / "part-0.parquet").write_text("half written")
    day_ago = time.time() - 24 * 3600
    os.utime(stale, (day_ago, day_ago))
    assert run_job(*inputs, output) == EXIT_OK
    assert not (output / STAGING_DIR).exists()


def test_an_undated_report_beside_dated_ones_keeps_them(inputs, tmp_path: Path) -> None:
    output = tmp_path / "out"
    assert run_job(*inputs, output, "--eval-date", "2026-12-01") == EXIT_OK
    dated = snapshot(output / "per_query" / "eval_date=2026-12-01")
    for _ in range(2):  # the second swaps the first undated folder out, the dated one inside it
        assert run_job(*inputs, output) == EXIT_OK
        assert snapshot(output / "per_query" / "eval_date=2026-12-01") == dated
        undated = [name for name in os.listdir(output / "per_query") if name.startswith("part-")]
        assert len(undated) == 1, os.listdir(output / "per_query")
    assert not (output / STAGING_DIR).exists()
