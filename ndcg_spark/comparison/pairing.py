"""The pairing: each run's per-query values beside the baseline's, over the queries both were
scored on, with the sums the tests read."""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.comparison.rows import Cutoff
from ndcg_spark.frames import indicator, sql_name
from ndcg_spark.scoring.summary import exact_sum

# Columns of the paired and resampled frames.
DRAW = "_draw"
DRAWS = "_draws"
EXACT_DRAWS = "_exact"
INDEX = "_index"
SIGN = "_sign"
WEIGHT = "_weight"
N_PAIRS = "_n"
PERMS = "_perms"
WEIGHTS = "_weights"
# Columns of fell_most().
BEFORE, AFTER, DIFFERENCE, PLACE = "before", "after", "_difference", "_place"


def cutoff_column(prefix: str, cutoff: Cutoff) -> str:
    """The column of a (measure, k)'s value in a wide row: d_ndcg_cut_10, r_map_all."""
    return c.at_cutoff(f"{prefix}_{cutoff.measure}", cutoff.k)


def with_value(per_query: DataFrame) -> DataFrame:
    """A per_query published before the value column holds NDCG's rows only: their value is ndcg."""
    return per_query if c.VALUE in per_query.columns else per_query.withColumn(c.VALUE, F.col(c.NDCG))


def _is(cutoff: Cutoff) -> Column:
    k = F.col(c.K).isNull() if cutoff.k is None else F.col(c.K) == cutoff.k
    return (F.col(c.MEASURE) == cutoff.measure) & k


def _wide(per_query: DataFrame, cutoffs: list[Cutoff]) -> DataFrame:
    """One row per (run, query), the value at every (measure, k) in its own column."""
    return per_query.groupBy(c.RUN_ID, c.QUERY_ID).agg(
        *[F.max(F.when(_is(cut), F.col(c.VALUE))).alias(cutoff_column("v", cut)) for cut in cutoffs]
    )


def paired(per_query: DataFrame, baseline: str, cutoffs: list[Cutoff]) -> DataFrame:
    """(run, query) for every other run and query scored for both: the baseline's value, the
    run's and their difference at each cutoff (columns b_K, r_K, d_K)."""
    wide = _wide(per_query, cutoffs)
    base = wide.filter(F.col(c.RUN_ID) == baseline).select(
        c.QUERY_ID, *[F.col(cutoff_column("v", cut)).alias(cutoff_column("b", cut)) for cut in cutoffs]
    )
    runs = wide.filter(F.col(c.RUN_ID) != baseline)
    return _differences(runs.join(base, on=c.QUERY_ID, how="inner"), cutoffs)


def paired_with_earlier(per_query: DataFrame, earlier: DataFrame, cutoffs: list[Cutoff]) -> DataFrame:
    """(run, query) for every run and query scored in both reports: the earlier report's value
    of the same run (b_K), this one's (r_K) and their difference (d_K), as paired() gives them."""
    before = _wide(earlier, cutoffs).select(
        c.RUN_ID, c.QUERY_ID, *[F.col(cutoff_column("v", cut)).alias(cutoff_column("b", cut)) for cut in cutoffs]
    )
    return _differences(_wide(per_query, cutoffs).join(before, on=[c.RUN_ID, c.QUERY_ID], how="inner"), cutoffs)


def _differences(joined: DataFrame, cutoffs: list[Cutoff]) -> DataFrame:
    """A wide run's values (v_K) beside what it is paired with (b_K): the pairing's columns."""
    return joined.select(
        c.RUN_ID,
        c.QUERY_ID,
        *[F.col(cutoff_column(p, cut)) for cut in cutoffs for p in ("b", "v")],
    ).select(
        c.RUN_ID,
        c.QUERY_ID,
        *[
            column
            for cut in cutoffs
            for column in (F.col(cutoff_column("b", cut)), F.col(cutoff_column("v", cut)).alias(cutoff_column("r", cut)))
        ],
        *[(F.col(cutoff_column("v", cut)) - F.col(cutoff_column("b", cut))).alias(cutoff_column("d", cut)) for cut in cutoffs],
    )


def fell_most(pairs: DataFrame, cutoffs: list[Cutoff], limit: int) -> DataFrame:
    """Per (run, measure, k), the `limit` queries whose value fell most (ties by query id), with
    their value before and after: a few rows, for the driver."""
    cuts = F.explode(
        F.array(
            *[
                F.struct(
                    F.lit(cut.measure).alias(c.MEASURE),
                    F.lit(cut.k).cast(T.IntegerType()).alias(c.K),
                    F.col(cutoff_column("b", cut)).alias(BEFORE),
                    F.col(cutoff_column("r", cut)).alias(AFTER),
                    F.col(cutoff_column("d", cut)).alias(DIFFERENCE),
                )
                for cut in cutoffs
            ]
        )
    ).alias("_cut")
    long = pairs.select(c.RUN_ID, c.QUERY_ID, cuts).select(c.RUN_ID, c.QUERY_ID, "_cut.*").filter(F.col(DIFFERENCE) < 0)
    order = Window.partitionBy(c.RUN_ID, c.MEASURE, c.K).orderBy(F.col(DIFFERENCE), F.col(c.QUERY_ID))
    return (
        long.withColumn(PLACE, F.row_number().over(order))
        .filter(F.col(PLACE) <= limit)
        .select(c.RUN_ID, c.MEASURE, c.K, PLACE, c.QUERY_ID, BEFORE, AFTER)
    )


def pair_stats(pairs: DataFrame, cutoffs: list[Cutoff]) -> dict[str, dict[str, Any]]:
    aggregates = [F.count(F.lit(1)).alias(N_PAIRS)]
    for cut in cutoffs:
        d = F.col(cutoff_column("d", cut))
        difference = sql_name(cutoff_column("d", cut))
        aggregates += [
            exact_sum(sql_name(cutoff_column("b", cut))).alias(cutoff_column("sb", cut)),
            exact_sum(sql_name(cutoff_column("r", cut))).alias(cutoff_column("sr", cut)),
            exact_sum(difference).alias(cutoff_column("sd", cut)),
            exact_sum(f"{difference} * {difference}").alias(cutoff_column("sdd", cut)),
            F.sum(indicator(d > 0)).cast(T.LongType()).alias(cutoff_column("w", cut)),
            F.sum(indicator(d == 0)).cast(T.LongType()).alias(cutoff_column("t", cut)),
            F.sum(indicator(d < 0)).cast(T.LongType()).alias(cutoff_column("l", cut)),
        ]
    return {row[c.RUN_ID]: row.asDict() for row in pairs.groupBy(c.RUN_ID).agg(*aggregates).collect()}
