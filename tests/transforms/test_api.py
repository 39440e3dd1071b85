"""The Python API on DataFrames: the job's numbers, checks and schemas, nothing written, the
caller's session left as it was."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from scipy import stats

import ndcg_spark
from ndcg_spark import ConfigError, InputError, compare, evaluate
from ndcg_spark import columns as c
from ndcg_spark.spark_conf import ADAPTIVE, PLAN_CONF, SHUFFLE_PARTITIONS
from tests import oracle
from tests.conftest import JUDGMENTS, RESULTS, rows_frame
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL


def _frames(spark: SparkSession):
    judgments = rows_frame(spark, list(zip(*JUDGMENTS.values(), strict=True)), "query_id string, doc_id string, relevance long")
    results = rows_frame(
        spark, list(zip(*RESULTS.values(), strict=True)), "run_id string, query_id string, doc_id string, score double"
    )
    return judgments, results


def _types(frame) -> list[tuple[str, str]]:
    return [(field.name, field.dataType.simpleString()) for field in frame.schema.fields]


def test_public_names() -> None:
    assert {"evaluate", "compare", "NdcgEvaluator", "Report", "InputError", "ConfigError"} <= set(ndcg_spark.__all__)
    assert ndcg_spark.NdcgEvaluator().isLargerBetter()


def test_writes_nothing_and_leaves_the_session_as_it_was(spark: SparkSession, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    key = next(iter(PLAN_CONF))
    spark.conf.set(key, "true")
    try:
        evaluate(*_frames(spark), ks=(3,)).summary.collect()
        assert spark.conf.get(key) == "true"
    finally:
        spark.conf.set(key, PLAN_CONF[key])
    assert list(tmp_path.iterdir()) == []


def test_post_pass_partitions_are_put_back(spark: SparkSession) -> None:
    """With AQE off, evaluate runs the queries after the main pass with fewer shuffle partitions
    (5 of 7 here; how many is tests/unit/test_spark_conf.py's), then puts the caller's count back."""
    before = {key: spark.conf.get(key) for key in (ADAPTIVE, SHUFFLE_PARTITIONS)}
    spark.conf.set(ADAPTIVE, "false")
    spark.conf.set(SHUFFLE_PARTITIONS, "7")
    try:
        report = evaluate(*_frames(spark), ks=(3,))
        assert spark.conf.get(SHUFFLE_PARTITIONS) == "7" and report.summary.count() == 2 * 2
    finally:
        for key, value in before.items():
            spark.conf.set(key, value)


def test_column_mapping_and_rank_order(spark: SparkSession) -> None:
    judgments = rows_frame(spark, [("q", "a", 1), ("q", "b", 2)], "qid string, item string, label int")
    results = rows_frame(spark, [("q", "a", 9.0, 2), ("q", "b", 1.0, 1)], "qid string, item string, sim double, pos int")
    report = evaluate(
        judgments,
        results,
        ks=(2,),
        order_by="rank",
        run_id="mine",
        columns={"query_id": "qid", "doc_id": "item", "relevance": "label", "score": "sim", "rank": "pos"},
    )
    (row,) = report.summary.filter(F.col(c.K) == 2).collect()
    assert row[c.RUN_ID] == "mine" and row[c.NDCG] == pytest.approx(1.0)  # b (2) ranked first by rank


def test_each_input_names_its_own_columns(spark: SparkSession) -> None:
    """Results that say item and prediction beside judgments that say doc_id: each input's own
    names, over the names both share; the numbers are the canonical frames'."""
    judgments, results = _frames(spark)
    renamed = results.withColumnsRenamed({c.DOC_ID: "item", c.SCORE: "prediction"})
    expected = evaluate(judgments, results, ks=(3,)).summary
    got = evaluate(judgments, renamed, ks=(3,), results_columns={"doc_id": "item", "score": "prediction"}).summary
    assert sorted(got.collect()) == sorted(expected.collect())
    graded = judgments.withColumnsRenamed({c.QUERY_ID: "qid", c.RELEVANCE: "grade"})
    both = results.withColumnRenamed(c.QUERY_ID, "qid")
    got = evaluate(graded, both, ks=(3,), columns={"query_id": "qid"}, judgments_columns="relevance=grade").summary
    assert sorted(got.collect()) == sorted(expected.collect())
    with pytest.raises(InputError) as refused:
        evaluate(judgments, renamed, ks=(3,))
    assert str(refused.value).startswith("results DataFrame: missing column(s) 'doc_id', 'score'")
    assert str(refused.value).endswith('if its columns have other names, pass results_columns={"doc_id": "item", ...}')
    with pytest.raises(
        ConfigError, match=r"^judgments_columns: unknown column key\(s\): score \(known: query_id, doc_id, relevance\)"
    ):
        evaluate(judgments, results, judgments_columns={"score": "x"})


def test_bad_rows_and_options_raise_the_jobs_messages(spark: SparkSession) -> None:
    judgments, results = _frames(spark)
    nulls = results.withColumn(c.SCORE, F.when(F.col(c.DOC_ID) == "a", None).otherwise(F.col(c.SCORE)))
    with pytest.raises(InputError, match=r"^results DataFrame: column 'score': 4 of 9 rows are null$"):
        evaluate(judgments, nulls)
    with pytest.raises(InputError, match="missing column\\(s\\) 'relevance'"):
        evaluate(judgments.drop(c.RELEVANCE), results)
    with pytest.raises(ConfigError, match="^ks must be positive integers"):
        evaluate(judgments, results, ks=(0,))
    with pytest.raises(ConfigError, match="gain must be one of linear, exponential"):
        evaluate(judgments, results, gain="cubic")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown column key"):
        evaluate(judgments, results, columns={"query": "q"})
    with pytest.raises(ConfigError, match="baseline run 'nope' is not in the results"):
        evaluate(judgments, results, baseline="nope")
    # a refusal a setting cures names evaluate's keyword, not the job's flag or config key
    with pytest.raises(InputError) as refused:
        evaluate(judgments.unionByName(judgments), results)
    assert str(refused.value).endswith('trec_eval refuses this; pass duplicate_judgments="keep_max" to keep the highest grade')


def test_compare_on_per_query_results(spark: SparkSession) -> None:
    report = evaluate(*_frames(spark), ks=(1, 2), baseline="r1", permutations=40, bootstrap=40, seed=5)
    again = compare(report.per_query, "r1", permutations=40, bootstrap=40, seed=5)
    assert again.collect() == report.comparison.collect()
    assert again.count() == 3  # r2 at k=1, 2 and uncut


def test_slices_from_a_metadata_frame(spark: SparkSession) -> None:
    metadata = rows_frame(spark, [("q1", "de"), ("q2", "fr")], "query_id string, locale string")
    report = evaluate(*_frames(spark), ks=(2,), slices=["locale"], query_metadata=metadata)
    values = {row["slice_value"] for row in report.slices.collect()}
    assert values == {"de", "fr"}


def test_trec_text_helpers(spark: SparkSession, conformance_dir: str) -> None:
    qrels = ndcg_spark.read_qrels(spark, f"{conformance_dir}/qrels.test")
    run = ndcg_spark.read_run(spark, f"{conformance_dir}/results.test")
    # trec_eval's test files: 1,500 result lines over 3 queries, all 3 judged.
    assert qrels.columns == [c.QUERY_ID, c.DOC_ID, c.RELEVANCE] and run.count() == 1500
    assert evaluate(qrels, run, ks=(10,)).evaluation.judged_queries == 3


def test_ddl_frames_of_the_suite_are_accepted(spark: SparkSession) -> None:
    judgments = rows_frame(spark, [("q", "a", 1)], JUDGMENTS_DDL)
    results = rows_frame(spark, [("r", "q", "a", 1.0, None)], RESULTS_DDL)
    (row,) = evaluate(judgments, results, ks=(1,), uncut=False).summary.collect()
    assert row[c.NDCG] == 1.0


def test_summary_rows_come_in_sparks_order(spark: SparkSession) -> None:
    """The summary is put in order on the driver: the same order an orderBy gives in Spark, for
    run names whose code point order is not their case order (Spark compares UTF-8 bytes)."""
    judgments, results = _frames(spark)
    renamed = {"r1": "b", "r2": "é"}
    results = results.replace(renamed, subset=[c.RUN_ID]).unionByName(
        results.filter(F.col(c.RUN_ID) == "r1").withColumn(c.RUN_ID, F.lit("B"))
    )
    summary = evaluate(judgments, results, ks=(2, 1)).summary
    got = [(row[c.RUN_ID], row[c.MEASURE], row[c.K]) for row in summary.collect()]
    spark_order = summary.orderBy(c.RUN_ID, c.MEASURE, F.col(c.K).asc_nulls_last()).collect()
    assert got == [(row[c.RUN_ID], row[c.MEASURE], row[c.K]) for row in spark_order]
    assert [run for run, _, _ in got[::3]] == ["B", "b", "é"]


def test_compare_equals_scipy_and_the_oracle(spark: SparkSession) -> None:
    """compare() on the per-query rows, checked against numbers computed without it: the oracle's
    per-query NDCG@2, scipy's paired t-test and its exact randomization test (2^2 sign patterns)."""
    report = evaluate(*_frames(spark), ks=(2,), uncut=False)
    (row,) = compare(report.per_query, "r1", permutations=40, bootstrap=40, seed=5).collect()
    results = list(zip(*RESULTS.values(), strict=True))
    judged = list(zip(*JUDGMENTS.values(), strict=True))
    truth = oracle.ndcg(results, judged, ks=[2])
    queries = sorted({q for run, q, k in truth if k == 2 and run == "r1"} & {q for run, q, k in truth if run == "r2"})
    base = np.array([truth[("r1", q, 2)] for q in queries])
    run = np.array([truth[("r2", q, 2)] for q in queries])
    assert (row[c.RUN_ID], row[c.K], row["num_queries"]) == ("r2", 2, len(queries))
    assert row["ndcg_run"] == pytest.approx(run.mean(), abs=1e-12)
    assert row["ndcg_baseline"] == pytest.approx(base.mean(), abs=1e-12)
    assert row["mean_difference"] == pytest.approx((run - base).mean(), abs=1e-12)
    t = stats.ttest_rel(run, base)
    assert row["t_statistic"] == pytest.approx(t.statistic, rel=1e-9)
    assert row["p_value_t"] == pytest.approx(t.pvalue, rel=1e-9)
    exact = stats.permutation_test(
        (run, base),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
    )
    assert row["randomization_exact"] is True and row["p_value_randomization"] == exact.pvalue


def test_report_table_in_markdown_and_latex(spark: SparkSession) -> None:
    report = evaluate(*_frames(spark), ks=(1, 2), baseline="r1", permutations=40, bootstrap=40)
    markdown, latex = report.table(), report.table("latex", title="tiny")
    summary = {(row[c.RUN_ID], row[c.K]): row[c.NDCG] for row in report.summary.collect()}
    lines = markdown.splitlines()
    header = next(line for line in lines if line.startswith("| run"))
    assert "ndcg@1" in header and "ndcg@2" in header
    for run, label in (("r1", "r1 (baseline)"), ("r2", "r2")):
        line = next(line for line in lines if line.startswith(f"| {label} |"))
        assert f"{summary[(run, 2)]:.4f}" in line, (line, summary)
    assert "\\begin{tabular}" in latex and "tiny" in latex and f"{summary[('r2', 2)]:.4f}" in latex
    with pytest.raises(ConfigError, match="table_format"):
        report.table("html")  # type: ignore[arg-type]
    # str(report) speaks the API's words, not the job's flags
    printed = str(report)
    assert "(not scored; complete=True scores them 0)" in printed and "--complete" not in printed
    assert "(2 runs)" in printed and "(1 runs)" not in printed


def test_rank_order_breaks_tied_ranks_by_score_then_doc_id(spark: SparkSession) -> None:
    """order_by="rank": rank ascending; tied ranks by score descending, then doc_id descending,
    the score order's own rules. c's high score does not lift it above rank 1."""
    grades = {"a": 0, "b": 2, "c": 1, "d": 3, "e": 0}
    judgments = rows_frame(spark, [("q", doc, grade) for doc, grade in grades.items()], JUDGMENTS_DDL)
    ranked = [("a", 1.0, 1), ("b", 9.0, 1), ("c", 50.0, 2), ("d", 0.5, 3), ("e", 0.5, 3)]
    results = rows_frame(spark, [("r", "q", doc, score, rank) for doc, score, rank in ranked], RESULTS_DDL)
    report = evaluate(judgments, results, ks=(1, 2, 3, 5), order_by="rank", uncut=False)
    got = {row[c.K]: row[c.NDCG] for row in report.per_query.collect()}
    order = [grades[doc] for doc in ("b", "a", "c", "e", "d")]
    ideal = sorted(grades.values(), reverse=True)
    assert got == pytest.approx({k: oracle.dcg(order, k) / oracle.dcg(ideal, k) for k in (1, 2, 3, 5)}, abs=1e-12)
    assert got[1] == 2 / 3  # b (grade 2) first, of the ideal 3
