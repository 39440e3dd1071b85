"""Per-slice summaries from query metadata or from the results, and the refusals."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK, EXIT_USAGE
from ndcg_spark.job.cli import main
from ndcg_spark.scoring.slices import SLICE, SLICE_VALUE
from tests.conftest import JUDGMENTS, RESULTS, write

LOCALE_OF = {"q1": "en", "q2": "de", "q9": "en"}


def run_job(tmp_path: Path, results: dict, *extra: str) -> tuple[int, Path]:
    output = tmp_path / "out"
    code = main(
        [
            "--judgments",
            write(tmp_path / "j.parquet", JUDGMENTS),
            "--results",
            write(tmp_path / "r.parquet", results),
            "--output",
            str(output),
            "--k",
            "1,2",
            "--no-html-report",
            *extra,
        ]
    )
    return code, output


def mean(per_query: list[dict], run: str, k: int, queries: set[str]) -> float:
    values = [row[c.NDCG] for row in per_query if row[c.RUN_ID] == run and row[c.K] == k and row[c.QUERY_ID] in queries]
    return sum(values) / len(values)


def test_slices_from_query_metadata(spark: SparkSession, tmp_path: Path, capsys) -> None:
    metadata = write(
        tmp_path / "queries.parquet",
        {
            "query_id": ["q1", "q2", "q3"],
            "locale": ["en", "de", "en"],
            "device": ["mobile", None, "desktop"],
        },
    )
    code, output = run_job(tmp_path, RESULTS, "--slices", "locale,device", "--query-metadata", metadata)
    assert code == EXIT_OK
    slices = pq.read_table(output / "slices").to_pylist()
    per_query = pq.read_table(output / "per_query").to_pylist()
    by_key = {(row[SLICE], row[SLICE_VALUE], row[c.RUN_ID], row[c.K]): row for row in slices}
    assert by_key[("locale", "en", "r1", 1)][c.NUM_QUERIES] == 1
    assert by_key[("locale", "de", "r2", 2)][c.NDCG] == pytest.approx(mean(per_query, "r2", 2, {"q2"}))
    assert by_key[("device", None, "r1", 2)][c.NUM_QUERIES] == 1  # q2 has no device
    # Every slice column partitions the evaluated queries: its counts add up to the overall.
    summary = {(row[c.RUN_ID], row[c.K]): row[c.NUM_QUERIES] for row in pq.read_table(output / "summary").to_pylist()}
    for name in ("locale", "device"):
        for (run, k), total in summary.items():
            assert sum(row[c.NUM_QUERIES] for key, row in by_key.items() if key[0] == name and key[2:] == (run, k)) == total
    # Every slice row's values are its queries' per-query rows' means: NDCG, and judged_at_k
    # over the queries whose top k holds anything (a mean of the non-null values).
    of = {"locale": {"q1": "en", "q2": "de", "q3": "en"}, "device": {"q1": "mobile", "q3": "desktop"}}
    for (name, value, run, k), row in by_key.items():
        rows = [r for r in per_query if r[c.RUN_ID] == run and r[c.K] == k and of[name].get(r[c.QUERY_ID]) == value]
        judged = [r[c.JUDGED_AT_K] for r in rows if r[c.JUDGED_AT_K] is not None]
        assert row[c.NUM_QUERIES] == len(rows) > 0, (name, value, run, k)
        assert row[c.NDCG] == pytest.approx(sum(r[c.NDCG] for r in rows) / len(rows), abs=1e-12)
        assert row[c.JUDGED_AT_K] == (pytest.approx(sum(judged) / len(judged), abs=1e-12) if judged else None)
    assert "slice" in capsys.readouterr().out


def test_slices_from_the_results(spark: SparkSession, tmp_path: Path) -> None:
    results = {**RESULTS, "locale": [LOCALE_OF[q] for q in RESULTS["query_id"]]}
    code, output = run_job(tmp_path, results, "--slices", "locale")
    assert code == EXIT_OK
    values = {(row[SLICE_VALUE], row[c.RUN_ID]) for row in pq.read_table(output / "slices").to_pylist()}
    assert values == {("en", "r1"), ("de", "r1"), ("en", "r2"), ("de", "r2")}


def test_query_with_two_values_is_refused(spark: SparkSession, tmp_path: Path, capsys) -> None:
    locales = [LOCALE_OF[q] for q in RESULTS["query_id"]]
    locales[1] = "fr"  # q1 is now both en and fr
    code, output = run_job(tmp_path, {**RESULTS, "locale": locales}, "--slices", "locale")
    assert code == EXIT_INPUT_REJECTED
    assert "column 'locale': 1 queries have more than one value" in capsys.readouterr().err
    assert not output.exists()


def test_missing_slice_column_and_repeated_metadata(spark: SparkSession, tmp_path: Path, capsys) -> None:
    code, _ = run_job(tmp_path, RESULTS, "--slices", "locale")
    assert code == EXIT_INPUT_REJECTED
    assert "missing slice column(s) 'locale'" in capsys.readouterr().err
    metadata = write(tmp_path / "m.parquet", {"query_id": ["q1", "q1"], "locale": ["en", "en"]})
    code, _ = run_job(tmp_path, RESULTS, "--slices", "locale", "--query-metadata", metadata)
    assert code == EXIT_INPUT_REJECTED
    assert "1 queries appear on more than one row" in capsys.readouterr().err
    code, _ = run_job(tmp_path, RESULTS, "--query-metadata", metadata)
    assert code == EXIT_USAGE
