"""NDCG values: the worked example, the plain-Python oracle, and independence from partitioning."""

from __future__ import annotations

import random

import pytest
from chispa import assert_approx_df_equality
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from ndcg_spark import columns as c
from ndcg_spark import evaluate
from ndcg_spark.scoring.summary import summarize
from ndcg_spark.spark_conf import session_settings
from tests import oracle
from tests.conftest import rows_frame, scored_per_query
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL


def _ranked_list(spark: SparkSession, labels: list[int]) -> tuple[DataFrame, DataFrame]:
    """One query whose results carry these labels in rank order (scores strictly decreasing)."""
    docs = [f"d{i}" for i in range(len(labels))]
    results = rows_frame(spark, [("run", "q", doc, float(len(labels) - i), None) for i, doc in enumerate(docs)], RESULTS_DDL)
    judgments = rows_frame(spark, [("q", doc, label) for doc, label in zip(docs, labels, strict=True)], JUDGMENTS_DDL)
    return results, judgments


@pytest.mark.parametrize(
    ("labels", "dcg", "idcg", "ndcg"),
    [([3, 2, 3, 0, 1], 6.149, 6.323, 0.9725), ([0, 1, 2, 3, 3], 4.084, 6.323, 0.6459)],
)
def test_worked_example(spark: SparkSession, labels: list[int], dcg: float, idcg: float, ndcg: float) -> None:
    results, judgments = _ranked_list(spark, labels)
    got = scored_per_query(results, judgments, ks=[5], uncut=False).select(c.K, c.DCG, c.IDCG, c.NDCG)
    want = rows_frame(spark, [(5, dcg, idcg, ndcg)], "k int, dcg double, idcg double, ndcg double")
    assert_approx_df_equality(got, want, precision=5e-4, ignore_nullable=True)


def test_exponential_gain(spark: SparkSession) -> None:
    results, judgments = _ranked_list(spark, [3, 2, 3, 0, 1])
    row = scored_per_query(results, judgments, ks=[5], gain="exponential", uncut=False).first()
    assert row[c.DCG] == pytest.approx(7 + 3 / 1.584962500721156 + 7 / 2 + 0 + 1 / 2.584962500721156)


def test_short_list_is_scored_on_what_is_there_and_ideal_cut_at_k(spark: SparkSession) -> None:
    results = rows_frame(spark, [("run", "q", "a", 1.0, None)], RESULTS_DDL)
    judgments = rows_frame(spark, [("q", "a", 1), ("q", "b", 1), ("q", "c", 1)], JUDGMENTS_DDL)
    row = scored_per_query(results, judgments, ks=[2], uncut=False).first()
    assert (row[c.DCG], row[c.IDCG]) == pytest.approx((1.0, 1.0 + 1 / 1.584962500721156))
    assert (row[c.NUM_RETRIEVED], row[c.NUM_RELEVANT], row[c.JUDGED_AT_K]) == (1, 3, 1.0)


def test_ties_broken_by_doc_id_descending_in_byte_order(spark: SparkSession) -> None:
    # Equal scores: 'b' > 'B' > 'A' in byte order, so 'b' ranks first, whatever the input order.
    results = rows_frame(spark, [("run", "q", doc, 1.0, None) for doc in ["A", "b", "B"]], RESULTS_DDL)
    judgments = rows_frame(spark, [("q", "b", 1)], JUDGMENTS_DDL)
    assert scored_per_query(results, judgments, ks=[1], uncut=False).first()[c.NDCG] == 1.0
    judgments = rows_frame(spark, [("q", "A", 1)], JUDGMENTS_DDL)
    assert scored_per_query(results, judgments, ks=[1, 3], uncut=False).first()[c.NDCG] == 0.0


_LONG_EDGES = [0, 1, -1, 9, 10, -9, -10, 99, 100, 101, 2**31 - 1, -(2**31), 10**17, 10**18 - 1, 10**18, 10**18 + 1]
_LONG_EDGES += [2**63 - 1, -(2**63), -(2**63) + 1, 9 * 10**17, 922337203685477580, 1000000000000000009, -(10**18)]


def test_integer_and_string_doc_ids_score_alike(spark: SparkSession) -> None:
    """Tied scores over integer ids rank as over the same ids written as strings (trec_eval's byte
    order: "10" before "9", '-' before every digit), the longest longs included."""
    rng = random.Random(11)
    docs = [*_LONG_EDGES, *rng.sample(sorted(set(range(-30, 130)) - set(_LONG_EDGES)), 40)]
    results = [("r", f"q{q}", doc, float(rng.choice([1.0, 2.0]))) for q in range(4) for doc in docs]
    judgments = [(f"q{q}", doc, rng.choice([0, 1, 2])) for q in range(4) for doc in rng.sample(docs, 30)]
    reports = []
    for id_type, as_id in (("bigint", int), ("string", str)):
        judged = [(q, as_id(d), r) for q, d, r in judgments]
        retrieved = [(u, q, as_id(d), s) for u, q, d, s in results]
        reports.append(
            evaluate(
                spark.createDataFrame(judged, f"query_id string, doc_id {id_type}, relevance int"),
                spark.createDataFrame(retrieved, f"run_id string, query_id string, doc_id {id_type}, score double"),
                ks=[1, 3, 10],
            ).per_query
        )
    assertDataFrameEqual(reports[0], reports[1], checkRowOrder=False, rtol=0.0, atol=0.0)


def _generated(seed: int) -> tuple[list[tuple], list[tuple]]:
    """Score ties, negative labels, all-zero queries, queries on one side only, short lists."""
    rng = random.Random(seed)
    doc_names = ["a", "B", "b", "10", "9", "ä", "Z-1", "z", "doc-ü", "00", "0"]
    results, judgments = [], []
    for q in range(60):
        query = f"q{q}"
        docs = rng.sample(doc_names, rng.randint(1, len(doc_names)))
        kind = q % 6
        if kind != 0:  # kind 0: retrieved but never judged
            for doc in rng.sample(doc_names, rng.randint(1, len(doc_names))):
                label = 0 if kind == 1 else rng.choice([-1, 0, 0, 1, 2, 3, 4])  # kind 1: all zero
                judgments.append((query, doc, label))
        for run in ["r1", "r2"]:
            if kind == 2 and run == "r2":  # judged, absent from r2
                continue
            for doc in docs:
                results.append((run, query, doc, float(rng.choice([0.1, 0.5, 0.5, 2.0, -1.0]))))
    return results, judgments


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("gain_kind", ["linear", "exponential"])
def test_equals_plain_python_oracle(spark: SparkSession, complete: bool, gain_kind: str) -> None:
    results, judgments = _generated(seed=11)
    ks = [1, 3, 5, 50]  # 50 is beyond every list
    per_query = scored_per_query(
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        ks=ks,
        gain=gain_kind,
        complete=complete,
    )
    got = {(row[c.RUN_ID], row[c.QUERY_ID], row[c.K]): row[c.NDCG] for row in per_query.collect()}
    want = oracle.ndcg(results, judgments, ks, gain_kind, complete)
    assert set(got) == set(want)
    assert max(abs(got[key] - want[key]) for key in want) < 1e-9
    assert any(value == 0.0 for value in want.values()) and any(0 < v < 1 for v in want.values())


def _report(spark: SparkSession, partitions: int, input_splits: int) -> tuple[list, list]:
    results, judgments = _generated(seed=5)
    with session_settings(spark, {"spark.sql.shuffle.partitions": str(partitions)}):
        per_query = scored_per_query(
            rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL).repartition(input_splits),
            rows_frame(spark, judgments, JUDGMENTS_DDL).repartition(input_splits),
            ks=[1, 3, 10],
            complete=True,
        )
        rows = sorted(per_query.collect(), key=lambda r: (r[c.RUN_ID], r[c.QUERY_ID], r[c.K] or 0))
        summary = sorted(summarize(per_query).collect(), key=lambda r: (r[c.RUN_ID], r[c.K] or 0))
    return rows, summary


def test_same_numbers_with_one_and_many_partitions(spark: SparkSession) -> None:
    one = _report(spark, partitions=1, input_splits=1)
    many = _report(spark, partitions=37, input_splits=9)
    # Exactly equal, not within a tolerance: per-query rows and the means.
    assert one == many


def test_summary_is_plain_mean_of_per_query(spark: SparkSession) -> None:
    results, judgments = _generated(seed=3)
    per_query = scored_per_query(
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        ks=[5],
        uncut=False,
    )
    summary = summarize(per_query).filter(F.col(c.RUN_ID) == "r1").first()
    values = [r[c.NDCG] for r in per_query.filter(F.col(c.RUN_ID) == "r1").collect()]
    assert summary[c.NUM_QUERIES] == len(values)
    assert summary[c.NDCG] == pytest.approx(sum(values) / len(values), abs=1e-12)


def test_summary_and_counts_in_one_aggregation(spark: SparkSession) -> None:
    """The report's summary, from one aggregation over one row per (run, query), is summarize's
    over the long per-query rows to the bit, for NDCG and the other measures, with --complete;
    its count rows give per run the queries retrieved and the judged ones among them."""
    results, judgments = _generated(seed=3)
    report = evaluate(
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        ks=(1, 5),
        measures=["P.5,10", "map", "bpref"],
        complete=True,
    )
    long = {tuple(row) for row in summarize(report.per_query).collect()}
    assert {tuple(row) for row in report.evaluation.summary} == long
    assert len(long) == 2 * 7
    retrieved = {(run, query) for run, query, _, _ in results}
    judged = {query for query, _, _ in judgments}
    for counts in report.evaluation.runs:
        queries = {query for run, query in retrieved if run == counts.run_id}
        assert counts.skipped == len(queries - judged)
        assert counts.missing == len(judged - queries)
