"""The pairing: each run's per-query values beside the baseline's, over the queries both were
scored on, with the sums the tests read."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, Row, Window
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.comparison.rows import Cutoff
from ndcg_spark.frames import count_where, sql_name, sql_string
from ndcg_spark.scoring.summary import part_sums, part_sums_names, total_of

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
_CUT = "_cut"  # pair_stats' long rows: the cutoff's index
_HAS_BASELINE = "_has_baseline"  # paired(): the query has a row of the baseline
# Columns of fell_most().
BEFORE, AFTER, DIFFERENCE, PLACE = "before", "after", "_difference", "_place"


def cutoff_column(prefix: str, cutoff: Cutoff) -> str:
    """The column of a (measure, k)'s value in a wide row: d_ndcg_cut_10, r_map_all."""
    return c.at_cutoff(f"{prefix}_{cutoff.measure}", cutoff.k)


def with_value(per_query: DataFrame) -> DataFrame:
    """A per_query published before the value column holds NDCG's rows only: their value is ndcg."""
    return per_query if c.VALUE in per_query.columns else per_query.withColumn(c.VALUE, F.col(c.NDCG))


def _is(cutoff: Cutoff) -> str:
    """SQL text: the row is the cutoff's. (Every wide expression here is SQL text, one Py4J call
    each: built function by function, the comparison's columns took 14,500 calls, seconds.)"""
    k = f"{c.K} IS NULL" if cutoff.k is None else f"{c.K} = {int(cutoff.k)}"
    return f"{c.MEASURE} = {sql_string(cutoff.measure)} AND {k}"


def wide_values(per_query: DataFrame, cutoffs: list[Cutoff]) -> DataFrame:
    """One row per (run, query), the value at every (measure, k) in its own column (v_K): the
    long per_query rows pivoted, for a per_query read back. The evaluation, which holds the
    wide rows it computed the long ones from, pairs those instead (no shuffle to pivot)."""
    return per_query.groupBy(c.RUN_ID, c.QUERY_ID).agg(
        *[F.expr(f"max(CASE WHEN {_is(cut)} THEN {c.VALUE} END)").alias(cutoff_column("v", cut)) for cut in cutoffs]
    )


def paired(wide: DataFrame, baseline: str, cutoffs: list[Cutoff]) -> DataFrame:
    """(run, query) for every other run and query scored for both: the baseline's value, the
    run's and their difference at each cutoff (columns b_K, r_K, d_K), from wide_values' rows.
    The baseline's values reach the other runs' rows of a query through a window over the query:
    one shuffle of the rows, where a join shuffled the baseline's and the others' apart."""
    query, is_base = sql_name(c.QUERY_ID), f"{sql_name(c.RUN_ID)} = {sql_string(baseline)}"

    def of_baseline(value: str) -> str:
        return f"max(CASE WHEN {is_base} THEN {value} END) OVER (PARTITION BY {query})"

    based = wide.select(
        "*",
        F.expr(f"{of_baseline('1')} AS {sql_name(_HAS_BASELINE)}"),
        *[F.expr(f"{of_baseline(sql_name(cutoff_column('v', cut)))} AS {sql_name(cutoff_column('b', cut))}") for cut in cutoffs],
    )
    runs = based.filter(f"NOT ({is_base}) AND {sql_name(_HAS_BASELINE)} IS NOT NULL")
    return _differences(runs, cutoffs)


def paired_with_earlier(per_query: DataFrame, earlier: DataFrame, cutoffs: list[Cutoff]) -> DataFrame:
    """(run, query) for every run and query scored in both reports: the earlier report's value
    of the same run (b_K), this one's (r_K) and their difference (d_K), as paired() gives them."""
    before = wide_values(earlier, cutoffs).select(
        c.RUN_ID, c.QUERY_ID, *[F.col(sql_name(cutoff_column("v", cut))).alias(cutoff_column("b", cut)) for cut in cutoffs]
    )
    return _differences(wide_values(per_query, cutoffs).join(before, on=[c.RUN_ID, c.QUERY_ID], how="inner"), cutoffs)


def _differences(joined: DataFrame, cutoffs: list[Cutoff]) -> DataFrame:
    """A wide run's values (v_K) beside what it is paired with (b_K): the pairing's columns."""
    values = [(sql_name(cutoff_column("b", cut)), sql_name(cutoff_column("v", cut)), cut) for cut in cutoffs]
    return joined.selectExpr(
        c.RUN_ID,
        c.QUERY_ID,
        *[text for b, v, cut in values for text in (b, f"{v} AS {sql_name(cutoff_column('r', cut))}")],
        *[f"{v} - {b} AS {sql_name(cutoff_column('d', cut))}" for b, v, cut in values],
    )


def fell_most(pairs: DataFrame, cutoffs: list[Cutoff], limit: int) -> DataFrame:
    """Per (run, measure, k), the `limit` queries whose value fell most (ties by query id), with
    their value before and after: a few rows, for the driver."""
    cuts = F.explode(
        F.array(
            *[
                F.struct(
                    F.lit(cut.measure).alias(c.MEASURE),
                    F.lit(cut.k).cast("int").alias(c.K),
                    F.col(sql_name(cutoff_column("b", cut))).alias(BEFORE),
                    F.col(sql_name(cutoff_column("r", cut))).alias(AFTER),
                    F.col(sql_name(cutoff_column("d", cut))).alias(DIFFERENCE),
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
    """Per run: the pairs' count (N_PAIRS) and, per cutoff, the exact sums of the baseline's
    values (sb), the run's (sr), the differences (sd) and their squares (sdd), as integers in
    units of 2^-FRACTION_BITS (summed as long parts in Spark, put together here), and the wins,
    ties and losses (w, t, l).

    Aggregated with a row per (run, query, cutoff), grouped by (run, cutoff): the same dozen
    aggregates whatever the cutoffs. A column per cutoff made one aggregation of 11 per cutoff
    (143 with 13 cutoffs), whose generated code a cold JVM compiled for about a second."""
    structs = ", ".join(
        f"named_struct('{_CUT}', {index}, 'b', {sql_name(cutoff_column('b', cut))},"
        f" 'r', {sql_name(cutoff_column('r', cut))}, 'd', {sql_name(cutoff_column('d', cut))})"
        for index, cut in enumerate(cutoffs)
    )
    long = pairs.select(c.RUN_ID, F.expr(f"inline(array({structs}))"))
    summed = {"sb": "b", "sr": "r", "sd": "d", "sdd": "d * d"}
    aggregates = [F.count(F.lit(1)).alias(N_PAIRS)]
    for name, value in summed.items():
        aggregates += part_sums(name, value, counted=False)
    for name, test in (("w", "d > 0"), ("t", "d = 0"), ("l", "d < 0")):
        aggregates.append(count_where(test).alias(name))
    stats: dict[str, dict[str, Any]] = {}
    for row in long.groupBy(c.RUN_ID, _CUT).agg(*aggregates).collect():
        cut = cutoffs[row[_CUT]]
        run = stats.setdefault(row[c.RUN_ID], {c.RUN_ID: row[c.RUN_ID], N_PAIRS: row[N_PAIRS]})
        run.update({cutoff_column(name, cut): _total(row, name) for name in summed})
        run.update({cutoff_column(name, cut): row[name] for name in ("w", "t", "l")})
    return stats


def _total(row: Row, name: str) -> int | None:
    """The exact sum from its parts; None when no value was summed (every part NULL), as the
    DECIMAL sum of the parts gave it."""
    parts = [row[part] for part in part_sums_names(name)]
    return None if all(part is None for part in parts) else total_of(row, name)
