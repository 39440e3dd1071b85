"""Every ir_measures name --measure accepts gives ir_measures' own value, per query, to 1e-9, on
generated data with ties, negative grades and unjudged documents. RR@k comes from ir_measures'
msmarco provider, which orders tied scores its own way (not trec_eval's doc_id descending), so it
is compared on the same data with the ties taken out."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.api import evaluate
from tests.conftest import rows_frame
from tests.references import IR_MEASURES_NAMES, OWN_PROVIDER, Judgments, Results, by_name, generated, ir_measures_values, untied
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL


def _ours(spark: SparkSession, results: Results, judgments: Judgments, names: list[str]) -> dict[tuple[str, str, str], float]:
    report = evaluate(
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        ks=(5,),
        measures=names,
    )
    rows = {(row[c.RUN_ID], row[c.QUERY_ID], row[c.MEASURE], row[c.K]): row[c.VALUE] for row in report.per_query.collect()}
    report.unpersist()
    return by_name(rows, names)


@pytest.mark.parametrize(
    ("names", "ties"), [(IR_MEASURES_NAMES, True), (OWN_PROVIDER, False)], ids=["pytrec_eval-names", "own-provider"]
)
def test_ir_measures_names_give_ir_measures_values(spark: SparkSession, names: list[str], ties: bool) -> None:
    results, judgments = generated(seed=31)
    if not ties:
        results = untied(results)
    ours, theirs = _ours(spark, results, judgments, names), ir_measures_values(results, judgments, names)
    assert set(theirs) <= set(ours) and len(theirs) > 10 * len(names)
    differ = {key: (ours[key], value) for key, value in theirs.items() if abs(ours[key] - value) > 1e-9}
    assert not differ


def test_rr_at_k_is_zero_below_k(spark: SparkSession) -> None:
    """The first relevant document at rank 3: RR 1/3, RR@2 0 (it was 1/3 under an RR@k label)."""
    judgments = [("q", "a", 0), ("q", "b", 0), ("q", "c", 1)]
    results = [("r", "q", "a", 0.9), ("r", "q", "b", 0.8), ("r", "q", "c", 0.7)]
    ours = _ours(spark, results, judgments, ["RR", "RR@2", "RR@3"])
    assert ours == {("r", "q", "RR"): pytest.approx(1 / 3), ("r", "q", "RR@2"): 0.0, ("r", "q", "RR@3"): pytest.approx(1 / 3)}
