"""The resampling tests of a comparison: the randomization test's draws and the bootstrap's
resamples (compare.py puts them beside the t-test; pairing.py makes the pairs they read).

All of it is aggregates over the per-query values, so it scales with Spark: one row per (run,
query) holds the differences at every cutoff; each of the P draws of the randomization test and
each of the B bootstrap resamples is generated from a hash of (seed, draw, query_id), so every
number is reproducible whatever the partitioning. Sums of differences in the resampling are
integers (fixed point, SCALE), so that a draw that ties the observed difference ties it exactly.
Two engines give the draws' sums, with the same numbers: draw_rows, a row per (run, query, draw)
in Spark SQL, and draw_arrays, each partition's arrays in numpy (draw_arrays.py); the
Resampling's engine chooses.

- Randomization: flipping the sign of a query's difference is swapping its two values. With
  2^n <= P possible flips they are all enumerated (an exact test, as scipy does); otherwise P
  random ones. Two-sided p = 2 min(P(S <= s), P(S >= s)), capped at 1, with the +1 of a
  random test (scipy.stats.permutation_test's definition).
- Bootstrap: the Poisson bootstrap (each query drawn Poisson(1) times per resample), the
  resampling that needs no global coordination; the interval is the 2.5 and 97.5 percentiles of
  the resampled mean differences (percentile method).
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.comparison.draws import BOOTSTRAP_TAG, OBSERVED_DRAW, POISSON_CDF, RANDOMIZATION_TAG, UNIFORM_BITS
from ndcg_spark.comparison.pairing import DRAW, DRAWS, EXACT_DRAWS, INDEX, N_PAIRS, PERMS, SIGN, WEIGHT, WEIGHTS, cutoff_column
from ndcg_spark.comparison.rows import Cutoff, Resampling
from ndcg_spark.frames import sql_name, sql_string

MAX_EXACT_QUERIES = 20  # 2^20 sign patterns: beyond that, exact enumeration is never asked for
_FIXED_LIMIT = 4 * 10**18  # sums of fixed-point values stay below 2^63
_MAX_SCALE = 10**12
# draw_arrays: (run, query) rows per task, and at most this many tasks.
ROWS_PER_TASK, MAX_TASKS = 20_000, 200


def fixed_scale(max_queries: int) -> int:
    """The largest power of ten (at most 10^12) at which a sum of max_queries fixed-point values
    in [-1, 1], each counted up to 20 times (a bootstrap weight), cannot overflow a long."""
    scale = _MAX_SCALE
    while scale > 1 and 20 * max_queries * scale > _FIXED_LIMIT:
        scale //= 10
    return scale


def fixed_point(value: str, scale: int) -> Column:
    """value (a column's name) * scale rounded half away from zero: symmetric, so the fixed point
    of -d is exactly minus that of d. (floor on a double, not round/bround, which go through
    BigDecimal.) SQL text, as every wide expression here (frames.py says why)."""
    scaled = f"({sql_name(value)} * {float(scale)!r}D)"
    return F.expr(f"CAST(signum({scaled}) * floor(abs({scaled}) + 0.5D) AS BIGINT)")


def _uniform(*parts: Column) -> Column:
    """A uniform draw in [0, 1) from a hash of the parts: 53 bits, as a double."""
    bits = F.shiftrightunsigned(F.xxhash64(*parts), 64 - UNIFORM_BITS)
    return bits.cast("double") / F.lit(float(2**UNIFORM_BITS))


def _poisson(uniform: Column) -> Column:
    """A Poisson(1) count by inverting its distribution function."""
    count = F.lit(len(POISSON_CDF))
    for j in reversed(range(len(POISSON_CDF))):
        count = F.when(uniform < F.lit(POISSON_CDF[j]), F.lit(j)).otherwise(count)
    return count


Plan = dict[str, dict[str, Any]]  # per run: EXACT_DRAWS, PERMS, DRAWS


def resampling_plan(stats: dict[str, dict[str, Any]], resampling: Resampling) -> Plan:
    """Per run: how many draws to generate, and whether its randomization test is exact."""
    plan = {}
    for run, row in stats.items():
        n = row[N_PAIRS]
        exact = n <= MAX_EXACT_QUERIES and 2**n <= resampling.permutations
        permutations = 2**n if exact else resampling.permutations
        plan[run] = {EXACT_DRAWS: exact, PERMS: permutations, DRAWS: max(permutations, resampling.bootstrap)}
    return plan


def _planned(plan: Plan, name: str, sql_type: str) -> str:
    """SQL text of the run's `name` in the plan: a CASE over the few runs, where a join with the
    plan as a frame cost a broadcast (a Spark job, about a second cold)."""
    cases = " ".join(f"WHEN {sql_string(run)} THEN {str(row[name]).upper()}" for run, row in plan.items())
    return f"CAST(CASE {sql_name(c.RUN_ID)} {cases} END AS {sql_type}) AS {sql_name(name)}"


def _indexed(pairs: DataFrame, plan: Plan) -> DataFrame:
    """The pairs of the planned runs with their plan, and for an exact run each query's bit in
    the draw number (its position in query order); the window sorts only those few rows, and is
    left out when no run is exact."""
    runs = ", ".join(sql_string(run) for run in plan)
    planned = pairs.filter(f"{sql_name(c.RUN_ID)} IN ({runs})").selectExpr(
        "*", _planned(plan, EXACT_DRAWS, "BOOLEAN"), _planned(plan, PERMS, "BIGINT"), _planned(plan, DRAWS, "BIGINT")
    )
    if not any(row[EXACT_DRAWS] for row in plan.values()):
        return planned.withColumn(INDEX, F.lit(None).cast("int"))
    position = F.row_number().over(Window.partitionBy(c.RUN_ID).orderBy(c.QUERY_ID)) - 1
    return (
        planned.filter(F.col(EXACT_DRAWS))
        .withColumn(INDEX, position)
        .unionByName(planned.filter(~F.col(EXACT_DRAWS)).withColumn(INDEX, F.lit(None).cast("int")))
    )


def fixed_rows(pairs: DataFrame, plan: Plan, cutoffs: list[Cutoff], scale: int) -> DataFrame:
    """Per (run, query): its run's plan and the fixed-point difference at every cutoff (f_K)."""
    return _indexed(pairs, plan).select(
        c.RUN_ID,
        c.QUERY_ID,
        EXACT_DRAWS,
        INDEX,
        PERMS,
        DRAWS,
        *[fixed_point(cutoff_column("d", cut), scale).alias(cutoff_column("f", cut)) for cut in cutoffs],
    )


def draw_rows(fixed: DataFrame, cutoffs: list[Cutoff], resampling: Resampling) -> DataFrame:
    """Per (run, draw): the sign-flipped sum of differences (randomization) and the Poisson-
    weighted sum and weight (bootstrap), at every cutoff; from a row per (query, draw). The
    OBSERVED_DRAW row holds the observed sums (perm_K, no sign flipped; no weight)."""
    seed, draw, query = F.lit(resampling.seed), F.col(DRAW), F.col(c.QUERY_ID)
    flipped = F.when(F.col(EXACT_DRAWS), F.expr(f"shiftright({DRAW}, {INDEX}) & 1") == 1).otherwise(
        F.xxhash64(F.lit(RANDOMIZATION_TAG), seed, draw, query).bitwiseAND(F.lit(1)) == 1
    )
    weight = _poisson(_uniform(F.lit(BOOTSTRAP_TAG), seed, draw, query)).cast("bigint")
    # The fixed-point differences are computed once per query, before the draws multiply the rows
    # (an expression beside explode() in one select would be evaluated once per draw).
    first = F.lit(OBSERVED_DRAW).cast("bigint")
    observed = draw == first
    exploded = fixed.select("*", F.explode(F.sequence(first, F.col(DRAWS) - 1)).alias(DRAW)).select(
        c.RUN_ID,
        DRAW,
        *[F.col(sql_name(cutoff_column("f", cut))) for cut in cutoffs],
        F.when(observed, F.lit(1))
        .when(draw < F.col(PERMS), F.when(flipped, F.lit(-1)).otherwise(F.lit(1)))
        .cast("bigint")
        .alias(SIGN),
        F.when(~observed & (draw < F.lit(resampling.bootstrap)), weight).alias(WEIGHT),
    )
    sums = [F.sum(WEIGHT).alias(WEIGHTS)]
    for cut in cutoffs:
        f = F.col(sql_name(cutoff_column("f", cut)))
        sums += [
            F.sum(F.col(SIGN) * f).alias(cutoff_column("perm", cut)),
            F.sum(F.col(WEIGHT) * f).alias(cutoff_column("boot", cut)),
        ]
    return exploded.groupBy(c.RUN_ID, DRAW).agg(*sums)


def start_python_workers(spark: SparkSession, resampling: Resampling, rows: int) -> None:
    """draw_arrays.warm_up, in a thread, when the draws of about `rows` (run, query) rows will be
    arrays: the Python workers start (some 1.5-2.5 s) while the driver is busy before the draws,
    so a caller calls it as early as it knows the rows."""
    if resampling.arrays(rows):
        from ndcg_spark.comparison.draw_arrays import warm_up

        warm_up(spark)


def spread(frame: DataFrame, rows: int) -> DataFrame:
    """(run, query) rows spread by query (a query's runs share its draws' hashes) over a
    partition per ROWS_PER_TASK rows: they are few and small, and left to adaptive execution they
    would make one task, one core, for the draws' arrays. An explicit count, which adaptive
    execution keeps: rows a window or a filter derives from them stay spread so."""
    return frame.repartition(max(1, min(MAX_TASKS, -(-rows // ROWS_PER_TASK))), F.col(c.QUERY_ID))


def draw_arrays(fixed: DataFrame, cutoffs: list[Cutoff], resampling: Resampling) -> DataFrame:
    """draw_rows' frame from each partition's arrays (draw_arrays.py), with no row per draw:
    Python workers on the executors, with numpy and pyarrow (imported here, when asked for: a run
    without a comparison does not load them). `fixed` is spread by query (spread())."""
    from ndcg_spark.comparison.draw_arrays import DrawPartials

    perm = tuple(cutoff_column("perm", cut) for cut in cutoffs)
    boot = tuple(cutoff_column("boot", cut) for cut in cutoffs)
    partials = DrawPartials(
        resampling.permutations,
        resampling.bootstrap,
        resampling.seed,
        tuple(cutoff_column("f", cut) for cut in cutoffs),
        perm,
        boot,
    )
    schema = T.StructType(
        [T.StructField(c.RUN_ID, T.StringType()), T.StructField(DRAW, T.LongType())]
        + [T.StructField(name, T.LongType()) for name in (WEIGHTS, *perm, *boot)]
    )
    summed = fixed.mapInArrow(partials, schema).groupBy(c.RUN_ID, DRAW)
    sums = (WEIGHTS, *[name for pair in zip(perm, boot, strict=True) for name in pair])  # draw_rows' order
    return summed.agg(*[F.sum(name).alias(name) for name in sums])
