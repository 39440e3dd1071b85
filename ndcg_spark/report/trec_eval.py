"""trec_eval -q's per-query report as text lines, digit for digit."""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.io.trec import LINE
from ndcg_spark.measures import catalogue

# trec_eval -q prints each value with this format: measure padded to 22, then tabs.
_REPORT_LINE = "%-22s\t%s\t%.4f"
# and a count (num_ret, num_rel, ...) as a whole number.
_WHOLE_LINE = "%-22s\t%s\t%d"
ALL_QUERIES = "all"


def _measure_name(measure: Column, k: Column) -> Column:
    """'ndcg', 'map' for an uncut row, 'ndcg_cut_K', 'P_K' for a cutoff, as trec_eval names them."""
    return F.when(k.isNull(), measure).otherwise(F.concat(measure, F.lit("_"), k.cast(T.StringType())))


def _report_line(measure: Column, k: Column, query: Column, value: Column) -> Column:
    # Rounded half-to-even to 4 places first, so that Java's formatter (half-up) prints the
    # digits C's printf would for a value exactly halfway.
    whole = [declaration.name for declaration in catalogue.CATALOGUE if declaration.whole]
    return F.when(
        measure.isin(*whole), F.format_string(_WHOLE_LINE, _measure_name(measure, k), query, value.cast(T.LongType()))
    ).otherwise(F.format_string(_REPORT_LINE, _measure_name(measure, k), query, F.bround(value, 4)))


def _measure_place(measure: Column) -> Column:
    """Where trec_eval prints a measure among the others (its measure table's order; a measure
    with a parameter in its name, iprec_at_recall_0.10, at its declaration's place)."""
    names = [declaration.name for declaration in catalogue.CATALOGUE]
    # The declaration's name of a reported measure name: iprec_at_recall_0.10 -> iprec_at_recall.
    family = F.regexp_extract(measure, "^(" + "|".join(sorted(names, key=len, reverse=True)) + r")(_[-0-9.,=]+)?$", 1)
    return F.array_position(F.array(*[F.lit(name) for name in names]), family)


def report_lines(per_query: DataFrame, summary: DataFrame) -> DataFrame:
    """trec_eval -q output per run: each query's values (queries in byte order, measures in
    trec_eval's order, each one's cutoffs ascending; none of the measures trec_eval prints for
    'all' only, such as gm_map), then the 'all' rows. Columns run_id, line,
    and the sort keys."""
    measure, k = F.col(c.MEASURE), F.col(c.K)
    summary_only = [declaration.name for declaration in catalogue.CATALOGUE if not declaration.per_query_printed]
    queries = per_query.filter(~measure.isin(*summary_only)).select(
        c.RUN_ID,
        F.lit(0).alias("block"),
        F.col(c.QUERY_ID).alias("sort_query"),
        _measure_place(measure).alias("sort_measure"),
        k.alias("sort_k"),
        _report_line(measure, k, F.col(c.QUERY_ID), F.col(c.VALUE)).alias(LINE),
    )
    means = summary.select(
        c.RUN_ID,
        F.lit(1).alias("block"),
        F.lit(ALL_QUERIES).alias("sort_query"),
        _measure_place(measure).alias("sort_measure"),
        k.alias("sort_k"),
        _report_line(measure, k, F.lit(ALL_QUERIES), F.col(c.VALUE)).alias(LINE),
    )
    return queries.unionByName(means)


def sorted_lines(lines: DataFrame, run_id: str) -> DataFrame:
    """One run's lines in trec_eval's order, a total order (a run has one line per query,
    measure and k)."""
    order = [F.col("block"), F.col("sort_query"), F.col("sort_measure"), F.col("sort_k").asc_nulls_first()]
    return lines.filter(F.col(c.RUN_ID) == run_id).orderBy(*order).select(LINE)
