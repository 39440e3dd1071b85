"""The comparison against a baseline, checked against scipy on the same per-query values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from scipy import stats

from ndcg_spark import columns as c
from ndcg_spark import compare as api_compare
from ndcg_spark.comparison import rows as cmp
from ndcg_spark.comparison.compare import compare
from ndcg_spark.comparison.pairing import wide_values
from ndcg_spark.comparison.stats import holm, paired_t, t_two_sided_p
from ndcg_spark.errors import ConfigError
from tests.conftest import rows_frame

PER_QUERY_DDL = "run_id string, query_id string, measure string, k int, ndcg double"
CUTOFFS = [cmp.Cutoff(c.MEASURE_CUT, 10), cmp.Cutoff(c.MEASURE_UNCUT, None)]


def per_query(spark: SparkSession, values: dict[str, np.ndarray], partitions: int = 3) -> DataFrame:
    """Per-query rows of several runs; the uncut value is the k=10 value halved (any second
    cutoff will do), so both cutoffs are checked."""
    rows = []
    for run, array in values.items():
        for i, value in enumerate(array):
            rows.append((run, f"q{i:05d}", c.MEASURE_CUT, 10, float(value)))
            rows.append((run, f"q{i:05d}", c.MEASURE_UNCUT, None, float(value) / 2))
    return rows_frame(spark, rows, PER_QUERY_DDL).withColumn(c.VALUE, F.col(c.NDCG)).repartition(partitions)


def run_compare(spark, values, permutations=1000, bootstrap=1000, seed=42, partitions=3):
    frame = per_query(spark, values, partitions)
    resampling = cmp.Resampling(permutations, bootstrap, seed)
    rows = sum(len(array) for array in values.values())
    return compare(spark, wide_values(frame, CUTOFFS), "base", list(values), CUTOFFS, resampling, rows)


def row_for(rows, run: str, k: int | None):
    return next(row for row in rows if row.run_id == run and row.k == k)


@pytest.fixture(scope="module")
def values() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    base = rng.random(400)
    return {
        "base": base,
        "better": np.clip(base + rng.normal(0.04, 0.2, 400), 0, 1),
        "same": np.clip(base + rng.normal(0.0, 0.2, 400), 0, 1),
    }


def test_means_counts_and_t_test_equal_scipy(spark: SparkSession, values) -> None:
    rows = run_compare(spark, values, permutations=200, bootstrap=200)
    assert [(row.run_id, row.k) for row in rows] == [("better", 10), ("better", None), ("same", 10), ("same", None)]
    for run in ("better", "same"):
        for k, scale in ((10, 1.0), (None, 0.5)):
            row = row_for(rows, run, k)
            a, b = values[run] * scale, values["base"] * scale
            d = a - b
            expected = stats.ttest_rel(a, b)
            assert row.num_queries == len(a)
            assert row.ndcg_run == pytest.approx(a.mean(), rel=1e-12)
            assert row.ndcg_baseline == pytest.approx(b.mean(), rel=1e-12)
            assert row.mean_difference == pytest.approx(d.mean(), rel=1e-9, abs=1e-15)
            assert (row.wins, row.ties, row.losses) == (int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
            assert row.t_statistic == pytest.approx(expected.statistic, rel=1e-9)
            assert row.p_value_t == pytest.approx(expected.pvalue, rel=1e-8)


def test_exact_randomization_equals_scipy_exact_test(spark: SparkSession) -> None:
    """2^9 = 512 sign patterns <= 1000 draws: every pattern is enumerated, as scipy does."""
    rng = np.random.default_rng(5)
    base = rng.random(9)
    run = np.clip(base + rng.normal(0.1, 0.15, 9), 0, 1)
    rows = run_compare(spark, {"base": base, "run": run}, permutations=1000)
    row = row_for(rows, "run", 10)
    expected = stats.permutation_test(
        (run, base),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
    )
    assert row.randomization_exact is True and row.permutations == 512
    assert row.p_value_randomization == expected.pvalue


def test_random_randomization_and_bootstrap_agree_with_scipy(spark: SparkSession, values) -> None:
    """Random draws differ between implementations. The p-value is 2 (1 + tail) / (1 + draws)
    exactly, as scipy's is, so a count of draws, at least one; it lies within 4 standard errors
    of scipy's, both Monte Carlo errors counted, plus the +1 correction's 1 / (1 + draws). The
    interval ends lie within a tenth of the mean difference's standard error."""
    draws, reference_draws = 4000, 20000
    rows = run_compare(spark, values, permutations=draws, bootstrap=draws)
    for run in ("better", "same"):
        row = row_for(rows, run, 10)
        a, b = values[run], values["base"]
        expected = stats.permutation_test(
            (a, b),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            vectorized=True,
            n_resamples=reference_draws,
            random_state=1,
        ).pvalue
        assert row.randomization_exact is False and row.permutations == draws
        tail = row.p_value_randomization * (draws + 1) / 2
        assert tail == pytest.approx(round(tail), abs=1e-9) and round(tail) >= 1, tail
        spread = max(expected, 1 / draws) * (1 - expected)
        error = math.sqrt(spread / draws + spread / reference_draws)
        assert abs(row.p_value_randomization - expected) <= 4 * error + 1 / (draws + 1), (row.p_value_randomization, expected)
        interval = stats.bootstrap((a - b,), np.mean, method="percentile", n_resamples=reference_draws, random_state=1)
        se = (a - b).std(ddof=1) / math.sqrt(len(a))
        assert row.ci_low == pytest.approx(interval.confidence_interval.low, abs=0.1 * se)
        assert row.ci_high == pytest.approx(interval.confidence_interval.high, abs=0.1 * se)
        assert row.ci_low < row.mean_difference < row.ci_high
    # the two runs are told apart: a clear gain, and none
    assert row_for(rows, "better", 10).p_value_randomization < 0.01 < row_for(rows, "same", 10).p_value_randomization


def test_holm_across_runs(spark: SparkSession, values) -> None:
    rows = run_compare(spark, values, permutations=200, bootstrap=200)
    for k in (10, None):
        group = [row_for(rows, run, k) for run in ("better", "same")]
        for raw, adjusted in ((cmp.P_T, cmp.P_T_HOLM), (cmp.P_RANDOMIZATION, cmp.P_RANDOMIZATION_HOLM)):
            low, high = sorted(getattr(row, raw) for row in group)
            by_p = sorted(group, key=lambda row: getattr(row, raw))
            assert getattr(by_p[0], adjusted) == pytest.approx(min(1.0, 2 * low))
            assert getattr(by_p[1], adjusted) == pytest.approx(max(min(1.0, 2 * low), high))


def test_same_seed_same_numbers_whatever_the_partitioning(spark: SparkSession, values) -> None:
    first = run_compare(spark, values, permutations=300, bootstrap=300, partitions=1)
    second = run_compare(spark, values, permutations=300, bootstrap=300, partitions=7)
    other_seed = run_compare(spark, values, permutations=300, bootstrap=300, seed=7)
    assert first == second
    assert [row.ci_low for row in first] != [row.ci_low for row in other_seed]


def test_only_queries_scored_for_both_are_paired(spark: SparkSession) -> None:
    base = np.array([0.5, 0.2, 0.9])
    rows = run_compare(spark, {"base": base, "run": np.array([0.7, 0.2])}, permutations=100)
    row = row_for(rows, "run", 10)
    assert row.num_queries == 2
    assert (row.wins, row.ties, row.losses) == (1, 1, 0)
    assert row.ndcg_baseline == pytest.approx(0.35)


def test_unknown_baseline_is_refused(spark: SparkSession, values) -> None:
    frame = per_query(spark, {"base": values["base"][:3]})
    with pytest.raises(ConfigError, match="baseline run 'nope' is not in the results"):
        compare(spark, wide_values(frame, CUTOFFS), "nope", ["base"], CUTOFFS, cmp.Resampling(10, 10, 1), 10)


def test_statistics_helpers_against_scipy() -> None:
    for t, df in ((0.0, 3), (1.2, 10), (-3.5, 50), (8.0, 1000), (40.0, 5)):
        assert t_two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-10, abs=1e-300)
    assert paired_t(1, 0.3, 0.0) == (None, None)
    assert paired_t(5, 0.0, 0.0) == (None, None)
    assert paired_t(5, 0.2, 0.0) == (math.inf, 0.0)
    adjusted = holm([0.01, 0.04, 0.03, None, 0.005])
    assert adjusted[3] is None
    assert [adjusted[i] for i in (0, 1, 2, 4)] == pytest.approx([0.03, 0.06, 0.06, 0.02])


def _nulls(row: tuple) -> tuple:
    """A row's missing values (pandas' NA, NaN, Spark's None) as None."""
    return tuple(None if value is None or value is pd.NA or value != value else value for value in row)


@pytest.mark.parametrize(
    ("permutations", "bootstrap", "sizes"),
    [(200, 300, (400, 400, 400)), (5000, 200, (9, 9, 12)), (1000, 1000, (30, 25, 0))],
    ids=["random-draws", "exact-test", "a-run-sharing-no-query"],
)
def test_the_embedded_engine_compares_to_the_bit(
    spark: SparkSession, values, permutations: int, bootstrap: int, sizes: tuple[int, ...]
) -> None:
    """compare() of per_query rows in memory (pandas) gives the Spark engine's rows, every field:
    the exact sums, the fixed-point draws (the arrays engine's own kernel), the tails, the
    interval and Holm's correction. Runs pair over the queries they share with the baseline (in
    the last case one shares none: its queries are renamed)."""
    subset = {run: array[: size or 5] for (run, array), size in zip(values.items(), sizes, strict=True)}
    frame = per_query(spark, subset)
    if not sizes[2]:
        renamed = F.when(F.col(c.RUN_ID) == "same", F.concat(F.lit("x"), F.col(c.QUERY_ID))).otherwise(F.col(c.QUERY_ID))
        frame = frame.withColumn(c.QUERY_ID, renamed)
    keywords = {"permutations": permutations, "bootstrap": bootstrap}
    on_spark = [_nulls(tuple(row)) for row in api_compare(frame, "base", **keywords).collect()]
    local = api_compare(frame.toPandas(), "base", **keywords)
    assert [_nulls(row) for row in local.astype(object).itertuples(index=False)] == on_spark
    assert len(on_spark) == 4 and local["p_value_randomization"].notna().any()
