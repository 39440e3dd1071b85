"""The evaluator's own path (labelled.py, scoring/lists.py): a labelled frame's NDCG as arrays, a
list per query. The same columns and values as the windows of the main pass, and the same
refusals as evaluate on the frame taken as judgments and results."""

from __future__ import annotations

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from ndcg_spark import NdcgEvaluator, evaluate
from ndcg_spark import columns as c
from ndcg_spark.checks.inputs import labelled_inputs
from ndcg_spark.checks.observe import observe_together
from ndcg_spark.errors import InputError
from ndcg_spark.frames import copartition
from ndcg_spark.options import Options
from ndcg_spark.scoring.dcg import ideal_columns, query_pairs
from ndcg_spark.scoring.lists import COPIES, labelled_lists
from ndcg_spark.scoring.plan import ScoringPlan
from tests.conftest import rows_frame

SCHEMA = "qid string, doc string, label double, prediction double"
# Ties broken by doc id in byte order ("10" before "9"), a negative grade, an all-zero query,
# a list shorter than a cutoff, and a query of one row.
ROWS = [
    ("q1", "a", 3.0, 0.9),
    ("q1", "b", 2.0, 0.8),
    ("q1", "c", 3.0, 0.7),
    ("q1", "d", 0.0, 0.6),
    ("q1", "e", 1.0, 0.5),
    ("q1", "f", -1.0, 0.95),
    ("q2", "9", 1.0, 0.5),
    ("q2", "10", 2.0, 0.5),
    ("q2", "x", 0.0, 0.5),
    ("q3", "m", 0.0, 0.1),
    ("q4", "n", 2.0, 0.3),
]
COLUMNS = {"query_id": "qid", "doc_id": "doc", "relevance": "label", "score": "prediction"}


def _frame(spark: SparkSession, rows: list[tuple] = ROWS) -> DataFrame:
    return rows_frame(spark, rows, SCHEMA)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_the_lists_give_the_windows_columns(spark: SparkSession, gain: str) -> None:
    options = Options.of({"ks": (1, 3, 10), "gain": gain, "columns": COLUMNS})
    plan = ScoringPlan.of(options)
    judged, retrieved, rows = labelled_inputs(_frame(spark), options)
    lists = labelled_lists(observe_together(judged, retrieved, rows).rows, plan)
    pairs = query_pairs(copartition(retrieved.frame), copartition(judged.frame), plan)
    shared = [name for name in pairs.columns if name in lists.columns]
    assert set(ideal_columns(plan)) <= set(shared) and len(shared) == 5 + 4 * 4, shared
    assertDataFrameEqual(lists.select(shared), pairs.select(shared), checkRowOrder=False, rtol=0.0, atol=0.0)
    assert lists.filter(F.col(COPIES) != 0).count() == 0


@pytest.mark.parametrize("metric", ["ndcgAtK", "ndcg", "ndcg_cut.2"])
def test_the_mean_is_evaluates_to_the_bit(spark: SparkSession, metric: str) -> None:
    frame = _frame(spark)
    evaluator = NdcgEvaluator(metricName=metric, k=3, queryCol="qid", docCol="doc", gain="exponential")
    report = evaluate(
        frame.select("qid", "doc", "label"),
        frame.select("qid", "doc", "prediction"),
        ks=[3, 2],
        gain="exponential",
        columns=COLUMNS,
    )
    measure, k = {"ndcgAtK": ("ndcg_cut", 3), "ndcg": ("ndcg", None), "ndcg_cut.2": ("ndcg_cut", 2)}[metric]
    (value,) = [row[c.VALUE] for row in report.evaluation.summary if (row[c.MEASURE], row[c.K]) == (measure, k)]
    assert evaluator.evaluate(frame) == value


def _refusal(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as refused:
        call()
    return str(refused.value)


@pytest.mark.parametrize(
    ("case", "rows", "schema"),
    [
        ("a document twice", [*ROWS, ("q1", "a", 3.0, 0.1)], SCHEMA),
        ("a null label", [*ROWS[:3], ("q1", "z", None, 0.2)], SCHEMA),
        ("a fractional label", [*ROWS[:3], ("q1", "z", 2.5, 0.2)], SCHEMA),
        ("an infinite prediction", [*ROWS[:3], ("q1", "z", 1.0, float("inf"))], SCHEMA),
        ("a null query", [*ROWS[:3], (None, "z", 1.0, 0.2)], SCHEMA),
        ("no rows", [], SCHEMA),
    ],
)
def test_the_evaluator_refuses_what_evaluate_refuses(spark: SparkSession, case: str, rows: list[tuple], schema: str) -> None:
    frame = rows_frame(spark, rows, schema)
    evaluator = NdcgEvaluator(k=3, queryCol="qid", docCol="doc")
    expected = _refusal(
        lambda: evaluate(frame.select("qid", "doc", "label"), frame.select("qid", "doc", "prediction"), ks=[3], columns=COLUMNS)
    )
    refused = _refusal(lambda: evaluator.evaluate(frame))
    if case in ("a null label", "a fractional label", "an infinite prediction", "a null query"):
        # Restated in the evaluator's words: the parameter that names the column.
        assert refused.startswith("NdcgEvaluator: ") and expected.split(": ")[-1] in refused, (refused, expected)
    else:
        assert refused == expected, case
