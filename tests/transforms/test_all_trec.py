"""trec_eval -m all_trec on its own test files: every numeric line it prints, per query and 'all',
equals ours to 4 decimals (the lines of the measures the catalogue does not support yet aside).
And out.test.meas_params, each measure's parameters written as trec_eval's test writes them."""

from __future__ import annotations

import os

import pytest
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.api import evaluate
from ndcg_spark.measures import BY_NAME, family_of
from tests import trec_text

CASES = [
    # expected output, qrels, results, complete (trec_eval -c), relevance level (-l)
    ("out.test.aq", "qrels.test", "results.test", False, 1),
    ("out.test.aqc", "qrels.test", "results.trunc", True, 1),
    ("out.test.aql", "qrels.rel_level", "results.test", False, 2),
]


def _lines(path: str) -> dict[tuple[str, str], float]:
    """(printed measure, query or 'all') -> value, for the numeric lines of supported measures."""
    found = {}
    with open(path) as handle:
        for line in handle:
            measure, query, value = line.split()
            family, _ = family_of(measure)
            declaration = BY_NAME.get(family if family in BY_NAME else measure.rsplit("_", 1)[0])
            if declaration is None or not declaration.supported:
                continue
            found[(measure, query)] = float(value)
    return found


def _printed(row: dict) -> str:
    return row[c.MEASURE] if row[c.K] is None else f"{row[c.MEASURE]}_{row[c.K]}"


def _ours(spark: SparkSession, conformance_dir: str, qrels: str, results: str, **options: object) -> dict[tuple[str, str], float]:
    report = evaluate(
        trec_text.qrels(spark, os.path.join(conformance_dir, qrels)),
        trec_text.run(spark, os.path.join(conformance_dir, results)),
        **options,
    )
    got = {(_printed(row.asDict()), row[c.QUERY_ID]): row[c.VALUE] for row in report.per_query.collect()}
    got.update({(_printed(row.asDict()), "all"): row[c.VALUE] for row in report.evaluation.summary})
    report.unpersist()
    return got


def _mismatches(expected: dict[tuple[str, str], float], got: dict[tuple[str, str], float]) -> dict:
    return {key: (got.get(key), value) for key, value in expected.items() if key not in got or round(got[key], 4) != value}


@pytest.mark.parametrize(("expected_file", "qrels_file", "results_file", "complete", "level"), CASES)
def test_all_trec_matches_every_line(
    spark: SparkSession, conformance_dir: str, expected_file: str, qrels_file: str, results_file: str, complete: bool, level: int
) -> None:
    expected = _lines(os.path.join(conformance_dir, expected_file))
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
    assert not _mismatches(expected, got)


def test_measure_parameters_as_trec_evals_test_writes_them(spark: SparkSession, conformance_dir: str) -> None:
    """out.test.meas_params: the gains per grade go to ndcg alone there (ndcg_cut keeps its own),
    so ndcg is scored with --gains apart; 23.4 is read as 23 by trec_eval."""
    expected = _lines(os.path.join(conformance_dir, "out.test.meas_params"))
    asked = [
        "iprec_at_recall..10,.20,.25,.75,.50",
        "P.5,7,3",
        "recall.20,2000",
        "Rprec_mult.5.0,0.2,0.35",
        "utility.2,-1,0,0",
        "11pt_avg..25,.5,.75",
        "success.2,5,20",
        "ndcg_cut.10,20,23",
    ]
    got = _ours(spark, conformance_dir, "qrels.test", "results.test", ks=(10,), uncut=False, measures=asked)
    gained = _ours(spark, conformance_dir, "qrels.test", "results.test", ks=(10,), gains={1: 3, 2: 9, 4: 4.5})
    got.update({("ndcg_1=3,2=9,4=4.5", query): value for (measure, query), value in gained.items() if measure == "ndcg"})
    assert len(expected) == 88
    assert not _mismatches(expected, got)
