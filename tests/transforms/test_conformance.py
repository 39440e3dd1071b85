"""trec_eval's own test suite: our ndcg_cut_K and ndcg equal its printed values, per query and 'all'."""

from __future__ import annotations

import os

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.scoring.summary import summarize
from tests import trec_text
from tests.conftest import scored_per_query

CASES = [
    # expected output, qrels, results, complete (trec_eval -c)
    ("out.test.aq", "qrels.test", "results.test", False),
    ("out.test.aqc", "qrels.test", "results.trunc", True),
    ("out.test.aql", "qrels.rel_level", "results.test", False),
]
# trec_eval -l of each expected output
LEVELS = {"out.test.aq": 1, "out.test.aqc": 1, "out.test.aql": 2}


def _measure(measure: str, k: int | None) -> str:
    return "ndcg" if measure == c.MEASURE_UNCUT else f"ndcg_cut_{k}"


@pytest.mark.parametrize(("expected_file", "qrels_file", "results_file", "complete"), CASES)
def test_matches_trec_eval(
    spark: SparkSession,
    conformance_dir: str,
    expected_file: str,
    qrels_file: str,
    results_file: str,
    complete: bool,
) -> None:
    expected_path = os.path.join(conformance_dir, expected_file)
    measures = trec_text.ndcg_measures(expected_path)
    expected = trec_text.expected(expected_path, set(measures))
    ks = sorted(k for k in measures.values() if k is not None)
    assert ks and "ndcg" in measures, "the expected file lost its ndcg lines"

    per_query = scored_per_query(
        trec_text.run(spark, os.path.join(conformance_dir, results_file)),
        trec_text.qrels(spark, os.path.join(conformance_dir, qrels_file)),
        ks=ks,
        complete=complete,
    )
    got = {(_measure(row[c.MEASURE], row[c.K]), row[c.QUERY_ID]): row[c.NDCG] for row in per_query.collect()}
    got.update({(_measure(row[c.MEASURE], row[c.K]), "all"): row[c.NDCG] for row in summarize(per_query).collect()})
    assert set(got) == set(expected)
    mismatches = {key: (got[key], value) for key, value in expected.items() if round(got[key], 4) != value}
    assert not mismatches


def test_complete_scores_missing_query_zero(spark: SparkSession, conformance_dir: str) -> None:
    per_query = scored_per_query(
        trec_text.run(spark, os.path.join(conformance_dir, "results.trunc")),
        trec_text.qrels(spark, os.path.join(conformance_dir, "qrels.test")),
        ks=[10],
        complete=True,
    )
    missing = per_query.filter(F.col(c.QUERY_ID) == "302").collect()
    assert [(row[c.NDCG], row[c.NUM_RETRIEVED]) for row in missing] == [(0.0, 0), (0.0, 0)]


@pytest.mark.parametrize(("expected_file", "qrels_file", "results_file", "complete"), CASES)
def test_binary_measures_match_trec_eval(
    spark: SparkSession,
    conformance_dir: str,
    expected_file: str,
    qrels_file: str,
    results_file: str,
    complete: bool,
) -> None:
    """P, recall, map, map_cut, recip_rank, Rprec, success and bpref, every cutoff trec_eval
    printed, per query and 'all', at the file's relevance level."""
    expected_path = os.path.join(conformance_dir, expected_file)
    measures = trec_text.binary_measures(expected_path)
    assert len(measures) == 4 + 3 * 9 + 3, "the expected file lost some binary measures"
    expected = trec_text.expected(expected_path, set(measures))
    asked = [name if k is None else f"{name}.{k}" for name, k in measures.values()]
    per_query = scored_per_query(
        trec_text.run(spark, os.path.join(conformance_dir, results_file)),
        trec_text.qrels(spark, os.path.join(conformance_dir, qrels_file)),
        ks=[10],
        complete=complete,
        measures=asked,
        relevance_level=LEVELS[expected_file],
    ).filter(~F.col(c.MEASURE).isin(c.MEASURE_CUT, c.MEASURE_UNCUT))
    names = {value: name for name, value in measures.items()}
    got = {(names[(row[c.MEASURE], row[c.K])], row[c.QUERY_ID]): row[c.VALUE] for row in per_query.collect()}
    for row in summarize(per_query).collect():
        got[(names[(row[c.MEASURE], row[c.K])], "all")] = row[c.VALUE]
    assert set(got) == set(expected)
    mismatches = {key: (got[key], value) for key, value in expected.items() if round(got[key], 4) != value}
    assert not mismatches
