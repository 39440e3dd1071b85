"""trec_eval -m all_trec on its own test files: every numeric line it prints, per query and 'all',
equals ours to 4 decimals (the lines of the measures the catalogue does not support yet aside).
And out.test.meas_params, each measure's parameters written as trec_eval's test writes them."""

from __future__ import annotations

import os

import pytest
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.api import evaluate
from tests import trec_text
from tests.trec_text import ALL_TREC_CASES, MEASURE_PARAMETERS, mismatches, printed, supported_lines


def _ours(spark: SparkSession, conformance_dir: str, qrels: str, results: str, **options: object) -> dict[tuple[str, str], float]:
    report = evaluate(
        trec_text.qrels(spark, os.path.join(conformance_dir, qrels)),
        trec_text.run(spark, os.path.join(conformance_dir, results)),
        **options,
    )
    got = {(printed(row.asDict()), row[c.QUERY_ID]): row[c.VALUE] for row in report.per_query.collect()}
    got.update({(printed(row.asDict()), "all"): row[c.VALUE] for row in report.evaluation.summary})
    report.unpersist()
    return got


@pytest.mark.parametrize(("expected_file", "qrels_file", "results_file", "complete", "level"), ALL_TREC_CASES)
def test_all_trec_matches_every_line(
    spark: SparkSession, conformance_dir: str, expected_file: str, qrels_file: str, results_file: str, complete: bool, level: int
) -> None:
    expected = supported_lines(os.path.join(conformance_dir, expected_file))
    assert len(expected) > 300, "the expected file lost its lines"
    got = _ours(
        spark,
        conformance_dir,
        qrels_file,
        results_file,
        ks=(10,),
        measures=["all_trec"],
        complete=complete,
        relevance_level=level,
    )
    assert not mismatches(expected, got)


def test_measure_parameters_as_trec_evals_test_writes_them(spark: SparkSession, conformance_dir: str) -> None:
    """out.test.meas_params: the gains per grade go to ndcg alone there (ndcg_cut keeps its own),
    so ndcg is scored with --gains apart; 23.4 is read as 23 by trec_eval."""
    expected = supported_lines(os.path.join(conformance_dir, "out.test.meas_params"))
    asked = MEASURE_PARAMETERS
    got = _ours(spark, conformance_dir, "qrels.test", "results.test", ks=(10,), uncut=False, measures=asked)
    gained = _ours(spark, conformance_dir, "qrels.test", "results.test", ks=(10,), gains={1: 3, 2: 9, 4: 4.5})
    got.update({("ndcg_1=3,2=9,4=4.5", query): value for (measure, query), value in gained.items() if measure == "ndcg"})
    assert len(expected) == 88
    assert not mismatches(expected, got)
