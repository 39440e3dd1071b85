"""The resampling's draws as arrays (draw_arrays.py) equal the draws as rows (resampling.draw_rows)
to the last bit: Spark's own xxhash64 against the numpy one, every draw's sums of the two engines,
and the comparison rows they lead to, on string and integer query ids, an exact test, a missing
value and two partitionings."""

from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.comparison import rows as cmp
from ndcg_spark.comparison import xxhash
from ndcg_spark.comparison.compare import compare
from ndcg_spark.comparison.draws import OBSERVED_DRAW
from ndcg_spark.comparison.pairing import N_PAIRS, pair_stats, paired, wide_values
from ndcg_spark.comparison.resampled import LOWER, UPPER, percentiles
from ndcg_spark.comparison.resampling import draw_arrays, draw_rows, fixed_rows, fixed_scale, resampling_plan, spread
from ndcg_spark.options import RESAMPLING_ARRAYS, RESAMPLING_ROWS
from tests.conftest import rows_frame
from tests.plans import SPARK

CUTOFFS = [cmp.Cutoff(c.MEASURE_CUT, 10), cmp.Cutoff(c.MEASURE_UNCUT, None)]
# Byte lengths of every branch of XXH64: none, a tail of bytes, a 4-byte word, 8-byte words, the
# 32-byte stripes and what follows them; multi-byte UTF-8 too.
TEXTS = ["", "a", "abc", "abcd", "q1234", "q12345678", "x" * 31, "y" * 32, "z" * 37, "ü" * 20, "w" * 71, "查询-7"]
LONGS = [0, 1, -1, 7, 2**40 + 3, 2**63 - 1, -(2**63)]


@pytest.mark.parametrize("seed", [0, 42, 2**31 - 1])
def test_numpy_xxhash64_is_sparks(spark: SparkSession, seed: int) -> None:
    draws = 6
    texts = rows_frame(spark, [(text,) for text in TEXTS], "q string").crossJoin(spark.range(draws).withColumnRenamed("id", "d"))
    longs = rows_frame(spark, [(value,) for value in LONGS], "q long").crossJoin(spark.range(draws).withColumnRenamed("id", "d"))
    for tag, frame in (("randomization", texts), ("bootstrap", longs)):
        got = frame.select("q", "d", F.xxhash64(F.lit(tag), F.lit(seed), F.col("d"), F.col("q")).alias("h")).collect()
        seeds = xxhash.draw_seeds(tag, seed, draws).reshape(1, -1)
        for row in got:
            if isinstance(row.q, str):
                raw = row.q.encode("utf-8")
                mine = xxhash.hash_bytes(np.frombuffer(raw, dtype=np.uint8).reshape(1, -1), len(raw), seeds)
            else:
                mine = xxhash.hash_long(np.array([[row.q]], dtype=np.int64), seeds)
            assert int(xxhash.as_signed(mine)[0, row.d]) == row.h, (tag, row.q, row.d)


def _per_query(spark: SparkSession, ids: str, partitions: int) -> DataFrame:
    """Three runs beside a baseline over 300 queries: one close to it, one better, one scored on
    12 queries only (2^12 sign patterns: an exact test at 5000 draws), and the better one lacks
    its uncut value on a few queries (a missing difference)."""
    rng = np.random.default_rng(3)
    base = rng.random(300)
    runs = {
        "base": base,
        "close": np.clip(base + rng.normal(0.0, 0.1, 300), 0, 1),
        "better": np.clip(base + rng.normal(0.05, 0.1, 300), 0, 1),
        "few": np.clip(base[:12] + rng.normal(0.02, 0.1, 12), 0, 1),
    }
    rows = []
    for run, values in runs.items():
        for i, value in enumerate(values):
            query = f"q-{i}" if ids == "string" else i * 7919
            rows.append((run, query, c.MEASURE_CUT, 10, float(value)))
            if not (run == "better" and i % 50 == 0):
                rows.append((run, query, c.MEASURE_UNCUT, None, float(value) / 2))
    ddl = f"run_id string, query_id {ids}, measure string, k int, value double"
    return rows_frame(spark, rows, ddl).repartition(partitions)


def _sorted(frame: DataFrame) -> list[tuple]:
    return sorted(tuple(row) for row in frame.collect())


@pytest.mark.parametrize("ids", ["string", "long"])
def test_the_arrays_give_every_draw_the_rows_give(spark: SparkSession, ids: str) -> None:
    resampling = cmp.Resampling(5000, 700, 11)
    pairs = paired(wide_values(_per_query(spark, ids, 3), CUTOFFS), "base", CUTOFFS).cache()
    try:
        stats = pair_stats(pairs, CUTOFFS)
        scale = fixed_scale(max(row[N_PAIRS] for row in stats.values()))
        plan = resampling_plan(stats, resampling)
        fixed = fixed_rows(pairs, plan, CUTOFFS, scale)
        rows = _sorted(draw_rows(fixed, CUTOFFS, resampling))
        arrays = _sorted(draw_arrays(spread(fixed, sum(row[N_PAIRS] for row in stats.values())), CUTOFFS, resampling))
    finally:
        pairs.unpersist()
    assert arrays == rows
    # draws 0..4999 for two runs, the exact one's 2^12 sign patterns, and each run's observed sums
    assert len(rows) == 5000 * 2 + 2**12 + 3
    observed = [row for row in rows if row[1] == OBSERVED_DRAW]
    assert len(observed) == 3 and all(row[2] is None for row in observed)  # no bootstrap weight
    assert any(value is None for row in rows for value in row)  # past a test's draws: NULL


@pytest.mark.parametrize("partitions", [1, 5])
def test_the_comparison_is_the_same_with_either_engine(spark: SparkSession, partitions: int) -> None:
    frame = wide_values(_per_query(spark, "string", partitions), CUTOFFS)
    runs = ["base", "better", "close", "few"]
    by_rows = compare(spark, frame, "base", runs, CUTOFFS, cmp.Resampling(5000, 500, 42, RESAMPLING_ROWS), 912)
    by_arrays = compare(spark, frame, "base", runs, CUTOFFS, cmp.Resampling(5000, 500, 42, RESAMPLING_ARRAYS), 912)
    assert by_arrays == by_rows
    exact = next(row for row in by_arrays if row.run_id == "few")
    assert exact.randomization_exact and exact.permutations == 2**12
    assert all(row.p_value_randomization is not None and row.ci_low is not None for row in by_arrays)


@pytest.mark.parametrize("n", [1, 2, 3, 41, 1000])
def test_the_interval_ends_are_spark_sqls_percentiles(spark: SparkSession, n: int) -> None:
    """The driver's percentiles of the resampled means are Spark SQL's percentile(): bit for bit
    on Spark 4.3, whose interpolation they copy; within a rounding on 4.0, which writes it as
    (ceil - p) low + (p - floor) high."""
    rng = np.random.default_rng(n)
    values = np.round(rng.normal(0.01, 0.02, n), 4)  # ties, as resampled means of a few queries have
    points = (LOWER, UPPER)
    mine = percentiles(np.sort(values), points)
    frame = rows_frame(spark, [(float(value),) for value in values], "v double")
    theirs = list(frame.selectExpr(f"percentile(v, array({points[0]!r}D, {points[1]!r}D))").first()[0])
    if SPARK >= (4, 3):
        assert mine == theirs
    else:
        assert mine == pytest.approx(theirs, rel=1e-15, abs=1e-18)


def test_a_driver_without_pandas_is_a_setup_error_naming_the_rows_engine(spark: SparkSession, monkeypatch) -> None:
    """pyspark's mapInArrow asks for pandas on the driver before it plans: without it, the
    arrays engine is refused in one line with its remedy, exit 2, not a PySparkImportError (1)."""
    import pyspark.sql.pandas.functions as pandas_functions
    from pyspark.errors import PySparkImportError

    from ndcg_spark.errors import EXIT_USAGE, ConfigError
    from ndcg_spark.remedies import VOICE_JOB

    def without_pandas() -> None:
        parameters = {"package_name": "Pandas", "minimum_version": "2.2.0"}
        raise PySparkImportError(errorClass="PACKAGE_NOT_INSTALLED", messageParameters=parameters)

    monkeypatch.setattr(pandas_functions, "require_minimum_pandas_version", without_pandas)
    frame = wide_values(_per_query(spark, "string", 1), CUTOFFS)
    with pytest.raises(ConfigError) as refused:
        compare(spark, frame, "base", ["base", "better"], CUTOFFS, cmp.Resampling(50, 50, 42, RESAMPLING_ARRAYS), 600)
    said = refused.value.said(VOICE_JOB)
    assert refused.value.exit_code == EXIT_USAGE
    needs = "the comparison's draws as arrays need what pyspark's Arrow path imports"
    assert said.startswith(f"{needs}: [PACKAGE_NOT_INSTALLED] Pandas")
    remedy = 'pass --resampling rows (config file: [comparison] resampling = "rows") to compute them in Spark SQL alone'
    assert said.endswith(remedy)
