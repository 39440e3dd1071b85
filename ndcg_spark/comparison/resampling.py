"""Every run against a baseline, per cutoff, over the queries both were scored on.

Per (run, cutoff): both means, the mean per-query difference, wins/ties/losses, a paired t-test,
a paired randomization test (sign flips of the differences), a bootstrap 95% interval of the
mean difference, and Holm-corrected p-values across the compared runs.

All of it is aggregates over the per-query values, so it scales with Spark: one row per (run,
query) holds the differences at every cutoff; each of the P draws of the randomization test and
each of the B bootstrap resamples is generated from a hash of (seed, draw, query_id), so every
number is reproducible whatever the partitioning. Sums of differences in the resampling are
integers (fixed point, SCALE), so that a draw that ties the observed difference ties it exactly.

- Randomization: flipping the sign of a query's difference is swapping its two values. With
  2^n <= P possible flips they are all enumerated (an exact test, as scipy does); otherwise P
  random ones. Two-sided p = 2 min(P(S <= s), P(S >= s)), capped at 1, with the +1 of a
  random test (scipy.stats.permutation_test's definition).
- Bootstrap: the Poisson bootstrap (each query drawn Poisson(1) times per resample), the
  resampling that needs no global coordination; the interval is the 2.5 and 97.5 percentiles of
  the resampled mean differences (percentile method).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from decimal import Decimal, localcontext
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.comparison.stats import holm, paired_t
from ndcg_spark.errors import ConfigError
from ndcg_spark.frames import indicator, local_frame
from ndcg_spark.scoring.ranking import cutoff_ks
from ndcg_spark.scoring.summary import exact_sum

CONFIDENCE = 0.95
MAX_EXACT_QUERIES = 20  # 2^20 sign patterns: beyond that, exact enumeration is never asked for
_FIXED_LIMIT = 4 * 10**18  # sums of fixed-point values stay below 2^63
_MAX_SCALE = 10**12
# Poisson(1) cumulative probabilities: a uniform draw below the j-th is a count of j.
_POISSON_CDF = tuple(sum(math.exp(-1.0) / math.factorial(i) for i in range(j + 1)) for j in range(18))
_UNIFORM_BITS = 53

# Columns of the comparison dataset.
BASELINE = "baseline"
NUM_QUERIES = c.NUM_QUERIES
NDCG_BASELINE = "ndcg_baseline"
NDCG_RUN = "ndcg_run"
MEAN_DIFFERENCE = "mean_difference"
WINS, TIES, LOSSES = "wins", "ties", "losses"
T_STATISTIC = "t_statistic"
P_T = "p_value_t"
P_RANDOMIZATION = "p_value_randomization"
CI_LOW, CI_HIGH = "ci_low", "ci_high"
P_T_HOLM = "p_value_t_holm"
P_RANDOMIZATION_HOLM = "p_value_randomization_holm"
PERMUTATIONS = "permutations"
EXACT = "randomization_exact"
BOOTSTRAP = "bootstrap"
SEED = "seed"

_DRAW = "_draw"
_DRAWS = "_draws"
_EXACT = "_exact"
_INDEX = "_index"
_SIGN = "_sign"
_WEIGHT = "_weight"
_N = "_n"
_PERMS = "_perms"
_WEIGHTS = "_weights"


_SPARK_TYPE = "spark_type"
_SPARK_TYPES = {"str": T.StringType(), "int": T.LongType(), "float": T.DoubleType(), "bool": T.BooleanType()}


@dataclass(frozen=True)
class Cutoff:
    measure: str
    k: int | None


@dataclass
class ComparisonRow:
    """One run against the baseline at one cutoff; the fields are the comparison dataset's
    columns, in its order (COMPARISON_SCHEMA is derived from them). The Holm columns are set once
    every run's row of the cutoff is known."""

    baseline: str
    run_id: str
    measure: str
    k: int | None = field(metadata={_SPARK_TYPE: T.IntegerType()})  # the per_query dataset's k
    num_queries: int
    ndcg_baseline: float | None = None
    ndcg_run: float | None = None
    mean_difference: float | None = None
    wins: int = 0
    ties: int = 0
    losses: int = 0
    t_statistic: float | None = None
    p_value_t: float | None = None
    p_value_t_holm: float | None = None
    p_value_randomization: float | None = None
    p_value_randomization_holm: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    permutations: int = 0
    randomization_exact: bool = False
    bootstrap: int = 0
    seed: int = 0

    def values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, item.name) for item in fields(self))


def _schema(kind: type) -> T.StructType:
    """A dataclass's fields as a Spark schema: `X | None` nullable, X not; Python's int a long
    unless the field says otherwise."""
    columns = []
    for item in fields(kind):
        annotation = str(item.type)
        base = annotation.removesuffix(" | None")
        columns.append(T.StructField(item.name, item.metadata.get(_SPARK_TYPE, _SPARK_TYPES[base]), base != annotation))
    return T.StructType(columns)


COMPARISON_SCHEMA = _schema(ComparisonRow)


@dataclass(frozen=True)
class Resampling:
    permutations: int
    bootstrap: int
    seed: int


def _col(prefix: str, cutoff: Cutoff) -> str:
    return c.at_cutoff(prefix, cutoff.k)


def cutoffs_of(ks: tuple[int, ...], uncut: bool) -> list[Cutoff]:
    return [Cutoff(c.MEASURE_UNCUT if k is None else c.MEASURE_CUT, k) for k in cutoff_ks(ks, uncut)]


def _is(cutoff: Cutoff) -> Column:
    k = F.col(c.K).isNull() if cutoff.k is None else F.col(c.K) == cutoff.k
    return (F.col(c.MEASURE) == cutoff.measure) & k


def _wide(per_query: DataFrame, cutoffs: list[Cutoff]) -> DataFrame:
    """One row per (run, query), the NDCG at every cutoff in its own column."""
    return per_query.groupBy(c.RUN_ID, c.QUERY_ID).agg(
        *[F.max(F.when(_is(cut), F.col(c.NDCG))).alias(_col("v", cut)) for cut in cutoffs]
    )


def paired(per_query: DataFrame, baseline: str, cutoffs: list[Cutoff]) -> DataFrame:
    """(run, query) for every other run and query scored for both: the baseline's value, the
    run's and their difference at each cutoff (columns b_K, r_K, d_K)."""
    wide = _wide(per_query, cutoffs)
    base = wide.filter(F.col(c.RUN_ID) == baseline).select(
        c.QUERY_ID, *[F.col(_col("v", cut)).alias(_col("b", cut)) for cut in cutoffs]
    )
    runs = wide.filter(F.col(c.RUN_ID) != baseline).select(
        c.RUN_ID, c.QUERY_ID, *[F.col(_col("v", cut)).alias(_col("r", cut)) for cut in cutoffs]
    )
    return runs.join(base, on=c.QUERY_ID, how="inner").select(
        c.RUN_ID,
        c.QUERY_ID,
        *[F.col(_col(p, cut)) for cut in cutoffs for p in ("b", "r")],
        *[(F.col(_col("r", cut)) - F.col(_col("b", cut))).alias(_col("d", cut)) for cut in cutoffs],
    )


def _stats(pairs: DataFrame, cutoffs: list[Cutoff]) -> dict[str, dict[str, Any]]:
    aggregates = [F.count(F.lit(1)).alias(_N)]
    for cut in cutoffs:
        d = F.col(_col("d", cut))
        aggregates += [
            exact_sum(F.col(_col("b", cut))).alias(_col("sb", cut)),
            exact_sum(F.col(_col("r", cut))).alias(_col("sr", cut)),
            exact_sum(d).alias(_col("sd", cut)),
            exact_sum(d * d).alias(_col("sdd", cut)),
            F.sum(indicator(d > 0)).cast(T.LongType()).alias(_col("w", cut)),
            F.sum(indicator(d == 0)).cast(T.LongType()).alias(_col("t", cut)),
            F.sum(indicator(d < 0)).cast(T.LongType()).alias(_col("l", cut)),
        ]
    return {row[c.RUN_ID]: row.asDict() for row in pairs.groupBy(c.RUN_ID).agg(*aggregates).collect()}


def fixed_scale(max_queries: int) -> int:
    """The largest power of ten (at most 10^12) at which a sum of max_queries fixed-point values
    in [-1, 1], each counted up to 20 times (a bootstrap weight), cannot overflow a long."""
    scale = _MAX_SCALE
    while scale > 1 and 20 * max_queries * scale > _FIXED_LIMIT:
        scale //= 10
    return scale


def _fixed(value: Column, scale: int) -> Column:
    """value * scale rounded half away from zero: symmetric, so the fixed point of -d is exactly
    minus that of d. (floor on a double, not round/bround, which go through BigDecimal.)"""
    scaled = value * F.lit(float(scale))
    return (F.signum(scaled) * F.floor(F.abs(scaled) + F.lit(0.5))).cast(T.LongType())


def _uniform(*parts: Column) -> Column:
    """A uniform draw in [0, 1) from a hash of the parts: 53 bits, as a double."""
    bits = F.shiftrightunsigned(F.xxhash64(*parts), 64 - _UNIFORM_BITS)
    return bits.cast(T.DoubleType()) / F.lit(float(2**_UNIFORM_BITS))


def _poisson(uniform: Column) -> Column:
    """A Poisson(1) count by inverting its distribution function."""
    count = F.lit(len(_POISSON_CDF))
    for j in reversed(range(len(_POISSON_CDF))):
        count = F.when(uniform < F.lit(_POISSON_CDF[j]), F.lit(j)).otherwise(count)
    return count


_PLAN_SCHEMA = T.StructType(
    [
        T.StructField(c.RUN_ID, T.StringType()),
        T.StructField(_EXACT, T.BooleanType()),
        T.StructField(_PERMS, T.LongType()),
        T.StructField(_DRAWS, T.LongType()),
    ]
)


def _plan(spark: SparkSession, stats: dict[str, dict[str, Any]], resampling: Resampling) -> DataFrame:
    """Per run: how many draws to generate, and whether its randomization test is exact."""
    rows = []
    for run, row in stats.items():
        n = row[_N]
        exact = n <= MAX_EXACT_QUERIES and 2**n <= resampling.permutations
        permutations = 2**n if exact else resampling.permutations
        rows.append((run, exact, permutations, max(permutations, resampling.bootstrap)))
    return local_frame(spark, rows, _PLAN_SCHEMA)


def _indexed(pairs: DataFrame, plan: DataFrame) -> DataFrame:
    """The pairs with their run's plan, and for an exact run each query's bit in the draw
    number (its position in query order); the window sorts only those few rows."""
    planned = pairs.join(F.broadcast(plan), on=c.RUN_ID)
    position = F.row_number().over(Window.partitionBy(c.RUN_ID).orderBy(c.QUERY_ID)) - 1
    return (
        planned.filter(F.col(_EXACT))
        .withColumn(_INDEX, position)
        .unionByName(planned.filter(~F.col(_EXACT)).withColumn(_INDEX, F.lit(None).cast(T.IntegerType())))
    )


def _draws(pairs: DataFrame, plan: DataFrame, cutoffs: list[Cutoff], resampling: Resampling, scale: int) -> DataFrame:
    """Per (run, draw): the sign-flipped sum of differences (randomization) and the Poisson-
    weighted sum and weight (bootstrap), at every cutoff."""
    seed, draw, query = F.lit(resampling.seed), F.col(_DRAW), F.col(c.QUERY_ID)
    flipped = F.when(F.col(_EXACT), F.expr(f"shiftright({_DRAW}, {_INDEX}) & 1") == 1).otherwise(
        F.xxhash64(F.lit("randomization"), seed, draw, query).bitwiseAND(F.lit(1)) == 1
    )
    weight = _poisson(_uniform(F.lit("bootstrap"), seed, draw, query)).cast(T.LongType())
    # The fixed-point differences are computed once per query, before the draws multiply the rows
    # (an expression beside explode() in one select would be evaluated once per draw).
    fixed = _indexed(pairs, plan).select(
        c.RUN_ID,
        c.QUERY_ID,
        _EXACT,
        _INDEX,
        _PERMS,
        _DRAWS,
        *[_fixed(F.col(_col("d", cut)), scale).alias(_col("f", cut)) for cut in cutoffs],
    )
    exploded = fixed.select("*", F.explode(F.sequence(F.lit(0).cast(T.LongType()), F.col(_DRAWS) - 1)).alias(_DRAW)).select(
        c.RUN_ID,
        _DRAW,
        *[F.col(_col("f", cut)) for cut in cutoffs],
        F.when(draw < F.col(_PERMS), F.when(flipped, F.lit(-1)).otherwise(F.lit(1))).cast(T.LongType()).alias(_SIGN),
        F.when(draw < F.lit(resampling.bootstrap), weight).alias(_WEIGHT),
    )
    sums = [F.sum(_WEIGHT).alias(_WEIGHTS)]
    for cut in cutoffs:
        f = F.col(_col("f", cut))
        sums += [
            F.sum(F.col(_SIGN) * f).alias(_col("perm", cut)),
            F.sum(F.col(_WEIGHT) * f).alias(_col("boot", cut)),
        ]
    return exploded.groupBy(c.RUN_ID, _DRAW).agg(*sums)


def _resampled(
    draws: DataFrame, observed: DataFrame, cutoffs: list[Cutoff], resampling: Resampling, scale: int
) -> dict[str, dict[str, Any]]:
    """Per run: draws at or below / at or above the observed sum, and the interval ends."""
    lower, upper = (1 - CONFIDENCE) / 2, 1 - (1 - CONFIDENCE) / 2
    joined = draws.join(F.broadcast(observed), on=c.RUN_ID)
    aggregates = []
    for cut in cutoffs:
        perm, obs = F.col(_col("perm", cut)), F.col(_col("obs", cut))
        mean = F.when(
            (F.col(_DRAW) < resampling.bootstrap) & (F.col(_WEIGHTS) > 0),
            F.col(_col("boot", cut)).cast(T.DoubleType()) / F.col(_WEIGHTS).cast(T.DoubleType()) / F.lit(float(scale)),
        )
        aggregates += [
            F.sum(indicator(perm.isNotNull() & (perm <= obs))).cast(T.LongType()).alias(_col("less", cut)),
            F.sum(indicator(perm.isNotNull() & (perm >= obs))).cast(T.LongType()).alias(_col("more", cut)),
            F.percentile(mean, [lower, upper]).alias(_col("ci", cut)),
        ]
    return {row[c.RUN_ID]: row.asDict() for row in joined.groupBy(c.RUN_ID).agg(*aggregates).collect()}


def _mean(total: Decimal, n: int) -> float | None:
    return float(total) / n if n else None


def _variance(total: Decimal, squares: Decimal, n: int) -> float:
    with localcontext() as context:
        context.prec = 60
        return float((squares - total * total / n) / (n - 1))


def compare(
    spark: SparkSession,
    per_query: DataFrame,
    baseline: str,
    runs: list[str],
    cutoffs: list[Cutoff],
    resampling: Resampling,
) -> list[ComparisonRow]:
    """The comparison rows (COMPARISON_SCHEMA), one per other run and cutoff, runs in order."""
    if baseline not in runs:
        raise ConfigError(f"baseline run {baseline!r} is not in the results (runs: {', '.join(runs)})")
    pairs = paired(per_query, baseline, cutoffs).cache()
    try:
        stats = _stats(pairs, cutoffs)
        resampled: dict[str, dict[str, Any]] = {}
        plans: dict[str, Any] = {}
        if stats:
            scale = fixed_scale(max(row[_N] for row in stats.values()))
            plan = _plan(spark, stats, resampling)
            plans = {row[c.RUN_ID]: row for row in plan.collect()}
            observed = pairs.groupBy(c.RUN_ID).agg(
                *[F.sum(_fixed(F.col(_col("d", cut)), scale)).alias(_col("obs", cut)) for cut in cutoffs]
            )
            draws = _draws(pairs, plan, cutoffs, resampling, scale)
            resampled = _resampled(draws, observed, cutoffs, resampling, scale)
    finally:
        pairs.unpersist()
    rows = [
        _row(baseline, run, cut, stats.get(run), resampled.get(run), plans.get(run), resampling)
        for run in runs
        if run != baseline
        for cut in cutoffs
    ]
    _adjust(rows, cutoffs)
    return rows


def _row(
    baseline: str,
    run: str,
    cut: Cutoff,
    stats: dict[str, Any] | None,
    resampled: dict[str, Any] | None,
    plan: Any,
    resampling: Resampling,
) -> ComparisonRow:
    n = stats[_N] if stats else 0
    row = ComparisonRow(
        baseline=baseline,
        run_id=run,
        measure=cut.measure,
        k=cut.k,
        num_queries=n,
        permutations=plan[_PERMS] if plan else resampling.permutations,
        randomization_exact=bool(plan[_EXACT]) if plan else False,
        bootstrap=resampling.bootstrap,
        seed=resampling.seed,
    )
    if not stats or not n:
        return row
    total = stats[_col("sd", cut)]
    mean = float(total) / n
    t, p = paired_t(n, mean, _variance(total, stats[_col("sdd", cut)], n) if n > 1 else 0.0)
    row.ndcg_baseline = _mean(stats[_col("sb", cut)], n)
    row.ndcg_run = _mean(stats[_col("sr", cut)], n)
    row.mean_difference = mean
    row.wins, row.ties, row.losses = stats[_col("w", cut)], stats[_col("t", cut)], stats[_col("l", cut)]
    row.t_statistic, row.p_value_t = t, p
    if resampled:
        adjustment = 0 if plan[_EXACT] else 1
        draws = plan[_PERMS]
        tail = min(resampled[_col("less", cut)], resampled[_col("more", cut)]) + adjustment
        interval = resampled[_col("ci", cut)] or [None, None]
        row.p_value_randomization = min(1.0, 2.0 * tail / (draws + adjustment))
        row.ci_low, row.ci_high = interval[0], interval[1]
    return row


def _adjust(rows: list[ComparisonRow], cutoffs: list[Cutoff]) -> None:
    """Holm across the compared runs, separately for each cutoff and each test."""
    for cut in cutoffs:
        group = [row for row in rows if row.measure == cut.measure and row.k == cut.k]
        for row, value in zip(group, holm([row.p_value_t for row in group]), strict=True):
            row.p_value_t_holm = value
        for row, value in zip(group, holm([row.p_value_randomization for row in group]), strict=True):
            row.p_value_randomization_holm = value


def comparison_rows_frame(spark: SparkSession, rows: list[ComparisonRow]) -> DataFrame:
    return local_frame(spark, [row.values() for row in rows], COMPARISON_SCHEMA)
