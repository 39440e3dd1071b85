"""The regression gate on evaluated reports: a large drop on many queries fails, the same drop on
too few queries to be significant passes, and the verdict names the queries that fell."""

from __future__ import annotations

import math

import pytest
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark import evaluate, gate
from ndcg_spark.comparison.rows import Cutoff
from ndcg_spark.errors import ConfigError
from ndcg_spark.gate.verdict import GATE_SCHEMA
from ndcg_spark.report.result import Report
from tests.conftest import rows_frame

QUERIES = [f"q{i:02d}" for i in range(30)]
GRADES = (2, 1, 0)  # d0, d1, d2; ranked in this order the query's NDCG is 1, reversed 0.62
# NDCG@3 of a reversed query: (0 + 1/log2(3) + 2/log2(4)) / (2/log2(2) + 1/log2(3) + 0)
REVERSED = (1 / math.log2(3) + 1) / (2 + 1 / math.log2(3))


def _report(spark: SparkSession, reversed_queries: dict[str, set[str]]) -> Report:
    """Runs that rank every query ideally, except the queries given per run, ranked reversed."""
    judgments = rows_frame(
        spark,
        [(q, f"d{i}", grade) for q in QUERIES for i, grade in enumerate(GRADES)],
        "query_id string, doc_id string, relevance int",
    )
    results = rows_frame(
        spark,
        [
            (run, q, f"d{i}", float(i if q in flipped else 3 - i))
            for run, flipped in reversed_queries.items()
            for q in QUERIES
            for i in range(3)
        ],
        "run_id string, query_id string, doc_id string, score double",
    )
    return evaluate(judgments, results, ks=(3,), uncut=False, measures=["P.1"])


@pytest.fixture(scope="module")
def earlier(spark: SparkSession) -> Report:
    return _report(spark, {"a": set(), "b": set()})


def test_a_large_drop_on_many_queries_fails_and_names_them(spark: SparkSession, earlier: Report) -> None:
    planted = set(QUERIES[::2])  # 15 of 30
    verdict = gate(_report(spark, {"a": planted, "b": set()}), earlier, fail_on_drop=0.01)
    assert not verdict.passed
    rows = {row.run_id: row for row in verdict.rows}
    assert [(row.run_id, row.measure, row.k) for row in verdict.rows] == [("a", "ndcg_cut", 3), ("b", "ndcg_cut", 3)]
    failed = rows["a"]
    assert (failed.passed, failed.dropped, failed.significant, failed.num_queries) == (False, True, True, 30)
    assert failed.reference_kind == "date" and failed.reference == "earlier report"  # evaluate() gives no date
    assert failed.mean_reference == pytest.approx(1.0, abs=1e-15)
    assert failed.mean_run == pytest.approx((15 * 1.0 + 15 * REVERSED) / 30, abs=1e-15)  # 0.80995
    assert failed.difference == pytest.approx((REVERSED - 1) / 2, abs=1e-15)
    assert failed.p_value_randomization_holm < 0.05 and failed.ci_high < 0
    assert {query for query, _, _ in failed.fell_most} <= planted and len(failed.fell_most) == 10
    assert all(before == pytest.approx(1.0) and after == pytest.approx(REVERSED) for _, before, after in failed.fell_most)
    assert rows["b"].passed and not rows["b"].dropped and rows["b"].fell_most == []
    assert failed.judgments_changed is None  # neither report was published: unknown


def test_the_same_drop_on_too_few_queries_passes(spark: SparkSession, earlier: Report) -> None:
    verdict = gate(_report(spark, {"a": {"q03", "q17"}, "b": set()}), earlier, fail_on_drop=0.01)
    row = next(row for row in verdict.rows if row.run_id == "a")
    assert row.dropped and not row.significant and row.passed and verdict.passed
    assert row.difference < -0.01 and row.p_value_randomization_holm >= 0.05
    assert sorted(query for query, _, _ in row.fell_most) == ["q03", "q17"]


def test_a_relative_threshold_and_other_measures(spark: SparkSession, earlier: Report) -> None:
    now = _report(spark, {"a": set(QUERIES[:20]), "b": set()})
    ndcg = next(row[c.VALUE] for row in now.evaluation.summary if row[c.RUN_ID] == "a" and row[c.MEASURE] == c.MEASURE_CUT)
    drop = 1 - ndcg  # a's NDCG@3 fell from 1 by this much
    assert not gate(now, earlier, fail_on_drop=f"{(drop - 0.01) * 100}%").passed
    assert gate(now, earlier, fail_on_drop=f"{(drop + 0.01) * 100}%").passed
    verdict = gate(now, earlier, fail_on_drop=0.5, measures=["P@1"])  # P@1: 1 -> 0 on 20 of 30
    assert [(row.run_id, row.measure, row.k, row.passed) for row in verdict.rows] == [("a", "P", 1, False), ("b", "P", 1, True)]
    assert not gate(now, earlier, fail_on_drop=0.7, measures=["P@1"]).rows[0].dropped  # 0.667 is not more than 0.7


def test_against_the_baseline_run_of_the_same_report(spark: SparkSession) -> None:
    report = _report(spark, {"base": set(), "worse": set(QUERIES[:20]), "same": set()})
    verdict = gate(report, "base", fail_on_drop=0.01)
    assert [(row.reference_kind, row.reference, row.run_id, row.passed) for row in verdict.rows] == [
        ("baseline", "base", "same", True),
        ("baseline", "base", "worse", False),
    ]
    assert verdict.rows[1].judgments_changed is False  # the same evaluation: the same judgments
    # Holm by hand over the two gated rows: "same" never differs (p = 1); every one of the 1000
    # draws of "worse" is less extreme than its 20 falls, so p = 2 (0 + 1) / (1000 + 1); the
    # smaller p is doubled, the larger kept at least that.
    same, worse = verdict.rows
    assert same.p_value_randomization == 1.0 and worse.p_value_randomization == 2 / 1001
    assert worse.p_value_randomization_holm == 2 * (2 / 1001) and same.p_value_randomization_holm == 1.0
    assert {query for query, _, _ in verdict.rows[1].fell_most} <= set(QUERIES[:20])
    frame = verdict.frame(spark)
    assert frame.schema == GATE_SCHEMA
    assert [(row["run_id"], row["passed"], len(row["fell_most"])) for row in frame.orderBy("run_id").collect()] == [
        ("same", True, 0),
        ("worse", False, 10),
    ]


def test_what_is_gated_must_be_in_the_report(spark: SparkSession, earlier: Report) -> None:
    held = r"measures entry 'P.5' is not in the report \(it holds ndcg_cut.3, P.1\)"
    with pytest.raises(ConfigError, match=held + r"; evaluate with it: pass measures=\[...\] or ks=\[...\] to evaluate\(\)$"):
        gate(earlier, earlier, fail_on_drop=0.01, measures=["P.5"])
    with pytest.raises(ConfigError, match="fail_on_drop must be a drop"):
        gate(earlier, earlier, fail_on_drop="lots")
    assert gate(earlier, earlier, fail_on_drop=0.0).rule.cutoffs == (Cutoff("ndcg_cut", 3),)
