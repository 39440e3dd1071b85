"""trec_eval -q's per-query report as text lines, digit for digit."""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.io.trec_formats import LINE
from ndcg_spark.measures import catalogue
from ndcg_spark.report.trec_eval_lines import FAMILY_PATTERN

# trec_eval -q prints each value with this format: measure padded to 22, then tabs.
_REPORT_LINE = "%-22s\t%s\t%.4f"
# and a count (num_ret, num_rel, ...) as a whole number.
_WHOLE_LINE = "%-22s\t%s\t%d"
# and text: the run's name ('runid'), a list's grades ('relstring', quoted).
_TEXT_LINE = "%-22s\t%s\t%s"
_QUOTED_LINE = "%-22s\t%s\t'%s'"
ALL_QUERIES = "all"
RUNID = "runid"
_SORT_KEYS = ("block", "sort_query", "sort_measure", "sort_name", "sort_k")


def _measure_name(measure: Column, k: Column) -> Column:
    """'ndcg', 'map' for an uncut row, 'ndcg_cut_K', 'P_K' for a cutoff, as trec_eval names them."""
    return F.when(k.isNull(), measure).otherwise(F.concat(measure, F.lit("_"), k.cast("string")))


def _report_line(measure: Column, k: Column, query: Column, value: Column) -> Column:
    # Rounded half-to-even to 4 places first, so that Java's formatter (half-up) prints the
    # digits C's printf would for a value exactly halfway.
    whole = [declaration.name for declaration in catalogue.CATALOGUE if declaration.whole]
    return F.when(
        measure.isin(*whole), F.format_string(_WHOLE_LINE, _measure_name(measure, k), query, value.cast("bigint"))
    ).otherwise(F.format_string(_REPORT_LINE, _measure_name(measure, k), query, F.bround(value, 4)))


def _measure_place(measure: Column) -> Column:
    """Where trec_eval prints a measure among the others (its measure table's order; a measure
    with a parameter in its name, iprec_at_recall_0.10, at its declaration's place)."""
    names = [declaration.name for declaration in catalogue.CATALOGUE]
    # The declaration's name of a reported measure name: iprec_at_recall_0.10 -> iprec_at_recall.
    family = F.regexp_extract(measure, FAMILY_PATTERN, 1)
    return F.array_position(F.array(*[F.lit(name) for name in names]), family)


def _keyed(frame: DataFrame, block: int, query: Column, name: Column, k: Column, line: Column) -> DataFrame:
    return frame.select(
        c.RUN_ID,
        F.lit(block).alias("block"),
        query.alias("sort_query"),
        _measure_place(name).alias("sort_measure"),
        name.alias("sort_name"),
        k.alias("sort_k"),
        line.alias(LINE),
    )


def report_lines(
    per_query: DataFrame,
    summary: DataFrame,
    relstrings: DataFrame | None = None,
    relstring_name: str = "relstring",
    *,
    summary_lines: bool = True,
    runids: DataFrame | None = None,
) -> DataFrame:
    """trec_eval -q output per run: each query's values (queries in byte order, measures in
    trec_eval's order, each one's parameters and cutoffs ascending; none of the measures trec_eval
    prints for 'all' only, such as gm_map), then the 'all' rows, the run's name (runid) first.
    relstrings: (run_id, query_id, relstring) to print as `relstring_name` per query; runids:
    the run names (run_id) to print as runid lines. Columns run_id, line, and the sort keys."""
    measure, k = F.col(c.MEASURE), F.col(c.K)
    summary_only = [declaration.name for declaration in catalogue.CATALOGUE if not declaration.per_query_printed]
    query = F.col(c.QUERY_ID)
    lines = _keyed(
        per_query.filter(~measure.isin(*summary_only)), 0, query, measure, k, _report_line(measure, k, query, F.col(c.VALUE))
    )
    if relstrings is not None:
        name, text = F.lit(relstring_name), F.col("relstring")
        texts = _keyed(relstrings, 0, query, name, F.lit(None).cast("int"), F.format_string(_QUOTED_LINE, name, query, text))
        lines = lines.unionByName(texts)
    if not summary_lines:
        return lines
    every = F.lit(ALL_QUERIES)
    means = _keyed(summary, 1, every, measure, k, _report_line(measure, k, every, F.col(c.VALUE)))
    lines = lines.unionByName(means)
    if runids is None:
        return lines
    name = F.lit(RUNID)
    line = F.format_string(_TEXT_LINE, name, every, F.col(c.RUN_ID))
    return lines.unionByName(_keyed(runids.select(c.RUN_ID), 1, every, name, F.lit(None).cast("int"), line))


def sorted_lines(lines: DataFrame, run_id: str) -> DataFrame:
    """One run's lines in trec_eval's order, a total order (a run has one line per query,
    measure's reported name and k)."""
    order = [*[F.col(key) for key in _SORT_KEYS[:-1]], F.col(_SORT_KEYS[-1]).asc_nulls_first()]
    return lines.filter(F.col(c.RUN_ID) == run_id).orderBy(*order).select(LINE)
