"""read_report: a published date read back through its manifest, exactly as published, and never
from files that have changed since the manifest recorded them."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from ndcg_spark import gate, published_dates, read_report
from ndcg_spark.errors import EXIT_OK, EXIT_USAGE, ConfigError
from ndcg_spark.publish.read_back import ReportNotReadable, confirm_unchanged
from tests.conftest import JUDGMENTS, RESULTS, parquet_rows, run_job, write


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("read_back")
    judgments = write(root / "j" / "part-0.parquet", JUDGMENTS)
    results = write(root / "r" / "part-0.parquet", RESULTS)
    output = root / "out"
    for date in ("2026-12-01", "2026-12-03"):
        assert run_job(judgments, results, output, "--eval-date", date, "--k", "1,2", "--baseline", "r1") == EXIT_OK
    return output


def test_the_latest_date_as_published(spark: SparkSession, published: Path) -> None:
    assert [str(date) for date in published_dates(str(published), spark=spark)] == ["2026-12-01", "2026-12-03"]
    report = read_report(str(published))
    assert report.manifest is not None and report.manifest["eval_date"] == "2026-12-03"
    for name, frame in (("per_query", report.per_query), ("summary", report.summary), ("comparison", report.comparison)):
        assert frame is not None
        folder = published / name / "eval_date=2026-12-03"
        assert sorted((tuple(row) for row in frame.collect()), key=repr) == parquet_rows(folder), name
    assert report.slices is None and report.gate is None
    # What the job printed, from the manifest's counts and the rows read back.
    assert "read 6 judgment rows (3 judged queries)" in str(report) and "run " in report.table()
    assert [run.run_id for run in report.evaluation.runs] == ["r1", "r2"]


def test_a_date_or_an_output_that_holds_none(spark: SparkSession, published: Path, tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"no report is published in .* for 2026-12-02 \(latest dates: 2026-12-01, 2026-12-03\)"
    ):
        read_report(str(published), "2026-12-02", spark=spark)
    with pytest.raises(ConfigError, match=r"no report is published in .*nothing \(no manifest in _manifests/\)"):
        read_report(str(tmp_path / "nothing"), spark=spark)


def test_files_replaced_after_the_manifest_are_refused(spark: SparkSession, published: Path, tmp_path: Path) -> None:
    output = tmp_path / "copy"
    shutil.copytree(published, output)  # mtimes kept: the copy reads as the original
    report = read_report(str(output), "2026-12-01", spark=spark)
    assert report.per_query.count() == report.evaluation.per_query_rows
    part = next((output / "per_query" / "eval_date=2026-12-01").glob("part-*.parquet"))
    os.utime(part, ns=(part.stat().st_atime_ns, part.stat().st_mtime_ns + 5_000_000))  # as a rerun's file would be
    with pytest.raises(ReportNotReadable, match=f"per_query's {part.name} is not the file its manifest records"):
        confirm_unchanged(report, str(output), spark=spark)  # what was read may not be what was checked
    with pytest.raises(ReportNotReadable, match=f"per_query's {part.name} is not the file its manifest records"):
        read_report(str(output), "2026-12-01", spark=spark)


def test_a_manifest_without_file_records_is_refused(spark: SparkSession, published: Path, tmp_path: Path) -> None:
    output = tmp_path / "old"
    shutil.copytree(published, output)
    path = output / "_manifests" / "2026-12-03.json"
    manifest = json.loads(path.read_text())
    for entry in manifest["outputs"].values():
        entry.pop("files")
    path.write_text(json.dumps(manifest))
    with pytest.raises(ReportNotReadable, match="by a version that did not record its files: publish that date again"):
        read_report(str(output), spark=spark)


def test_a_gate_across_other_judgments_is_flagged(spark: SparkSession, tmp_path: Path) -> None:
    results = write(tmp_path / "r" / "part-0.parquet", RESULTS)
    output = tmp_path / "out"
    for date, judgments in (("2026-12-01", JUDGMENTS), ("2026-12-02", {name: values[:-1] for name, values in JUDGMENTS.items()})):
        path = write(tmp_path / date / "part-0.parquet", judgments)
        assert run_job(path, results, output, "--eval-date", date, "--k", "1") == EXIT_OK
    verdict = gate(read_report(str(output), spark=spark), read_report(str(output), "2026-12-01", spark=spark), fail_on_drop=0.01)
    assert {row.judgments_changed for row in verdict.rows} == {True}
    assert "note: the judgments differ from 2026-12-01's" in str(verdict)


def test_the_first_gated_night_after_an_upgrade_passes_and_says_why(published: Path, tmp_path: Path, capsys) -> None:
    output = tmp_path / "upgraded"
    shutil.copytree(published, output)
    path = output / "_manifests" / "2026-12-03.json"
    manifest = json.loads(path.read_text())
    for entry in manifest["outputs"].values():
        entry.pop("files")  # as a version before file records wrote it
    path.write_text(json.dumps(manifest))
    results = write(tmp_path / "r" / "part-0.parquet", RESULTS)
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    capsys.readouterr()
    gated = ["--eval-date", "2026-12-04", "--k", "1,2", "--against-previous", "--fail-on-drop", "0.01"]
    assert run_job(judgments, results, output, *gated) == EXIT_OK
    assert capsys.readouterr().out.startswith(
        "gate: passed: nothing to gate against: 2026-12-03 was published by a version that did not record its files"
    )
    gated[gated.index("--against-previous")] = "--against-date=2026-12-03"
    assert run_job(judgments, results, output, *gated) == EXIT_USAGE
    assert "publish it again, or gate against a later date" in capsys.readouterr().err
