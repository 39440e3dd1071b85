"""A measure is one declaration: one declared here, in the test, is found by the parser (both
syntaxes), scored into per_query and the summary, printed in the trec_eval text and computed by
the evaluator, with nothing else touched."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.api import evaluate
from ndcg_spark.measures import Measure, catalogue, parse_measures
from ndcg_spark.measures.declaration import CUTOFFS, Declaration
from ndcg_spark.report.trec_eval import report_lines, sorted_lines
from ndcg_spark.tuning import NdcgEvaluator
from tests.conftest import rows_frame
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL

TWICE_P = Declaration(
    "twice_P",
    "twice the precision at k (a measure declared by a test)",
    "2 * rel(k) / k",
    "tests/transforms/test_catalogue.py",
    lambda i, m: f"2.0D * CAST({i.relevant_retrieved(m.k)} AS DOUBLE) / {float(m.k or 1)!r}D",
    report=99,
    params=CUTOFFS,
    defaults=(2.0,),
    ir_measures_cut=("TwiceP",),
)


@pytest.fixture()
def declared(monkeypatch: pytest.MonkeyPatch) -> Declaration:
    monkeypatch.setattr(catalogue, "CATALOGUE", (*catalogue.CATALOGUE, TWICE_P))
    monkeypatch.setattr(catalogue, "BY_NAME", {**catalogue.BY_NAME, TWICE_P.name: TWICE_P})
    return TWICE_P


def test_a_measure_declared_once_is_found_everywhere(spark: SparkSession, declared: Declaration) -> None:
    assert parse_measures("twice_P") == (Measure("twice_P", 2),)
    assert parse_measures("TwiceP@2") == (Measure("twice_P", 2),)
    judgments = rows_frame(spark, [("q1", "a", 1), ("q1", "b", 0), ("q2", "c", 1)], JUDGMENTS_DDL)
    results = rows_frame(
        spark,
        [("r", "q1", "a", 0.9, None), ("r", "q1", "b", 0.8, None), ("r", "q2", "x", 0.9, None), ("r", "q2", "c", 0.1, None)],
        RESULTS_DDL,
    )
    report = evaluate(judgments, results, ks=(2,), measures=["twice_P"])
    per_query = {(row[c.QUERY_ID], row[c.MEASURE], row[c.K]): row[c.VALUE] for row in report.per_query.collect()}
    assert per_query[("q1", "twice_P", 2)] == 1.0 and per_query[("q2", "twice_P", 2)] == 1.0
    summary = {(row[c.MEASURE], row[c.K]): row[c.VALUE] for row in report.evaluation.summary}
    assert summary[("twice_P", 2)] == 1.0
    lines = [row[0] for row in sorted_lines(report_lines(report.per_query, report.summary), "r").collect()]
    assert "twice_P_2             \tall\t1.0000" in lines
    report.unpersist()
    dataset = rows_frame(
        spark,
        [("q1", "a", 1, 0.9), ("q1", "b", 0, 0.8), ("q2", "c", 0, 0.9), ("q2", "d", 1, 0.1)],
        "query_id string, doc_id string, label bigint, prediction double",
    )
    assert NdcgEvaluator(metricName="TwiceP@2").evaluate(dataset) == 1.0
