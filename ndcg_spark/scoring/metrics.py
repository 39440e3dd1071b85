"""NDCG@k as DataFrame transforms, with trec_eval's ndcg_cut and ndcg semantics.

DCG is a running sum over the ranked list (a window in rank order), and DCG@k is that sum at
position min(k, list length). Summing in rank order, as trec_eval does, never in the order Spark
happens to feed rows, makes every value independent of partitioning.

The whole computation is served by one hash partitioning of each input by query_id: the join
on (query_id, doc_id), the ranking window, the ideal window and the per-query aggregations all
reuse it, and after the ranking window only the rows at a cutoff position (and each list's last
row) travel on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.frames import copartition, indicator, sql_name
from ndcg_spark.option_values import GainTable
from ndcg_spark.options import (
    GAIN_EXPONENTIAL,
    GAIN_LINEAR,
    ORDER_BY_RANK,
    ORDER_BY_SCORE,
    Gain,
    OrderBy,
    describe_variant,
)

# Running sums of the ranked list and of the ideal list.
CUM_JUDGED = "cum_judged"
CUM_RELEVANT = "cum_relevant"
LIST_LENGTH = "list_length"
# With judged_only: the row is a judged document graded >= 0, the ones trec_eval -J keeps.
USABLE = "_usable"
# The row's number in the whole ordered list, before judged_only condenses it.
ORDINAL = "_ordinal"
# With several result inputs (rows carry columns.INPUT): per (run, query) the lowest and highest
# index among its rows; they differ when two inputs name a run alike.
FIRST_INPUT = "_first_input"
LAST_INPUT = "_last_input"


def gain(relevance: Column, kind: Gain, table: GainTable = ()) -> Column:
    """Relevance <= 0 (non-relevant, or trec_eval's judged-but-unusable negatives) gains 0; a
    grade in `table` gains what the table says (grade 0 included), any other grade the kind's."""
    if kind == GAIN_LINEAR:
        value = relevance.cast(T.DoubleType())
    elif kind == GAIN_EXPONENTIAL:
        value = F.pow(F.lit(2.0), relevance.cast(T.DoubleType())) - F.lit(1.0)
    else:
        raise ValueError(f"unknown gain {kind!r}")
    default = F.when(relevance > 0, value).otherwise(F.lit(0.0))
    if not table:
        return default
    custom = F.when(relevance < 0, F.lit(0.0))
    for grade, grade_gain in table:
        custom = custom.when(relevance == F.lit(float(grade)), F.lit(float(grade_gain)))
    return custom.otherwise(default)


def discounted(gain_value: str, position: str) -> str:
    """SQL text of gain / log2(position + 1); position 1 is the top."""
    return f"{gain_value} / log2(CAST({position} AS DOUBLE) + 1.0D)"


TIE_BREAK = "_tie_break"


def tie_break() -> Column:
    """doc_id as a string: trec_eval breaks score ties in byte order ("10" before "9"), which
    integer ids do not follow. A column, not an expression in the window's order: Spark then
    sees that both windows of with_running_dcg share one order, and sorts once."""
    return F.col(c.DOC_ID).cast(T.StringType()).alias(TIE_BREAK)


def with_tie_break(frame: DataFrame) -> DataFrame:
    return frame.withColumn(TIE_BREAK, tie_break())


def ranking_order(order_by: OrderBy) -> list[str]:
    """trec_eval's order, as SQL sort keys: score descending, ties by doc_id descending in byte
    order (on a frame from with_tie_break)."""
    by_score = [f"{sql_name(c.SCORE)} DESC", f"{sql_name(TIE_BREAK)} DESC"]
    return [f"{sql_name(c.RANK)} ASC", *by_score] if order_by == ORDER_BY_RANK else by_score


def window(partition: Sequence[str], order: Sequence[str]) -> str:
    """SQL text of a window over the lists of `partition`, each in `order` (SQL sort keys)."""
    return f"PARTITION BY {', '.join(sql_name(name) for name in partition)} ORDER BY {', '.join(order)}"


RUNNING = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
# The whole list, in the same window as the running sums, so Spark computes both in one
# WindowExec over one sort.
WHOLE = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"


def _counted(condition: str) -> str:
    return f"CASE WHEN {condition} THEN 1 ELSE 0 END"


def with_running_dcg(
    frame: DataFrame,
    partition: Sequence[str],
    order: Sequence[str],
    position: str,
    running: str,
    ks: Sequence[int],
    judged: str | None = None,
    *,
    kept: str | None = None,
    max_depth: int | None = None,
    whole: Mapping[str, str] | None = None,
) -> DataFrame:
    """The rows some cutoff reads (see at_cutoffs) with their position in the (total) order, the
    DCG of the list down to them, the running counts of relevant (and judged) rows, and the
    list's length. `order` holds SQL sort keys; `judged` and `kept` name boolean columns.

    Two windows over one sort: the first numbers every row; only rows that can change a running
    value (gain > 0, or judged) or that a cutoff reads go on to the second, which sums in rank
    order. Rows left out add 0 to every sum, so the sums are those of the whole list.

    max_depth cuts the list after its first max_depth rows (trec_eval -M); then `kept`, when
    given, condenses it to the rows it holds for (trec_eval -J): positions count only those,
    and a list that keeps none is one row at position 0, so that it is still scored (0).
    `whole` names SQL aggregates to take over the whole list, before any cut."""
    spec = window(partition, order)

    def over(aggregate: str, rows: str = "", cast: str | None = None) -> Column:
        text = f"{aggregate} OVER ({spec} {rows})"
        return F.expr(f"CAST({text} AS {cast})" if cast else text)

    over_whole = {name: over(aggregate, WHOLE) for name, aggregate in (whole or {}).items()}
    pos, length, gain_value = sql_name(position), sql_name(LIST_LENGTH), sql_name(c.GAIN)
    if kept is None:
        numbered = frame.withColumns({position: over("row_number()"), LIST_LENGTH: over("count(1)", WHOLE), **over_whole})
        if max_depth is not None:
            numbered = numbered.filter(F.expr(f"{pos} <= {max_depth}")).withColumn(
                LIST_LENGTH, F.expr(f"least({length}, {max_depth})")
            )
        term = discounted(gain_value, pos)
    else:
        ordinal, usable = sql_name(ORDINAL), sql_name(kept)
        numbered = frame.withColumns({ORDINAL: over("row_number()"), **over_whole})
        if max_depth is not None:
            numbered = numbered.filter(F.expr(f"{ordinal} <= {max_depth}"))
        numbered = (
            numbered.withColumns(
                {
                    position: over(f"sum({_counted(usable)})", RUNNING, "INT"),
                    LIST_LENGTH: over(f"sum({_counted(usable)})", WHOLE, "INT"),
                }
            )
            .filter(F.expr(f"{usable} OR ({length} = 0 AND {ordinal} = 1)"))
            .drop(ORDINAL)
        )
        term = f"CASE WHEN {pos} > 0 THEN {discounted(gain_value, pos)} ELSE 0.0D END"
    relevant = f"{gain_value} > 0"
    counted = relevant if judged is None else f"{sql_name(judged)} OR {relevant}"
    sums = {running: over(f"sum({term})", RUNNING), CUM_RELEVANT: over(f"sum({_counted(relevant)})", RUNNING)}
    if judged is not None:
        sums[CUM_JUDGED] = over(f"sum({_counted(sql_name(judged))})", RUNNING)
    return numbered.filter(F.expr(counted) | at_cutoffs(position, ks)).withColumns(sums).filter(at_cutoffs(position, ks))


def at_cutoffs(position: str, ks: Sequence[int]) -> Column:
    """Only the rows whose running values some cutoff reads: positions k, and the list's last row
    (which serves every k beyond the list and the uncut measure)."""
    at_k = f"{sql_name(position)} IN ({', '.join(str(k) for k in ks)}) OR " if ks else ""
    return F.expr(f"{at_k}{sql_name(position)} = {sql_name(LIST_LENGTH)}")


def _at_cutoff(value: str, position: str, k: int | None, name: str, cast: str | None = None) -> Column:
    """The running value at the last position <= k (running values never decrease), as `name`,
    cast to the SQL type `cast` when given."""
    at = f"max({sql_name(value)})" if k is None else f"max(CASE WHEN {sql_name(position)} <= {k} THEN {sql_name(value)} END)"
    return F.expr(f"{f'CAST({at} AS {cast})' if cast else at} AS {sql_name(name)}")


_BIGINT = "BIGINT"


def cutoff_ks(ks: Sequence[int], uncut: bool) -> list[int | None]:
    return [*ks, *([None] if uncut else [])]


def judged_gains(judgments: DataFrame, gain_kind: Gain, table: GainTable = (), judged_only: bool = False) -> DataFrame:
    """Both uses of the judgments (the join, the ideal DCG) must see the same plan, so that
    Spark reads and shuffles them once; the explicit non-null filter (ids are validated
    non-null) equals the one Spark would infer for the join only."""
    usable = [(F.col(c.RELEVANCE) >= 0).alias(USABLE)] if judged_only else []
    return judgments.filter(F.col(c.QUERY_ID).isNotNull() & F.col(c.DOC_ID).isNotNull()).select(
        c.QUERY_ID, c.DOC_ID, gain(F.col(c.RELEVANCE), gain_kind, table).alias(c.GAIN), *usable
    )


def ranked_dcg(
    results: DataFrame,
    gains: DataFrame,
    order_by: OrderBy,
    ks: Sequence[int],
    *,
    judged_only: bool = False,
    max_depth: int | None = None,
    inputs: bool = False,
) -> DataFrame:
    """The rows of each ranked list at the cutoff positions, with the running DCG and counts.

    judged_only drops unjudged documents and those graded below 0 before positions are counted
    (trec_eval -J; such a list's judged@k is 1). max_depth cuts each list first (trec_eval -M).
    inputs: the results carry columns.INPUT, the index of the input each row came from."""
    # A merge join: both sides arrive sorted by (query_id, doc_id, ...) from their copies'
    # windows. Measured warm at 10M rows, a shuffled hash join cost as much as this join with
    # its sorts, and finding copies by a hash aggregation instead of those windows cost more
    # than the sort (see docs/performance.md). Only what the ranking needs travels on through
    # its sort (doc_id only as its tie-break string).
    usable = [USABLE] if judged_only else []
    labelled = results.join(
        gains.select(c.QUERY_ID, c.DOC_ID, c.GAIN, F.lit(True).alias(c.IS_JUDGED), *usable).hint("merge"),
        on=[c.QUERY_ID, c.DOC_ID],
        how="left",
    ).select(
        c.RUN_ID,
        c.QUERY_ID,
        c.SCORE,
        *([c.RANK] if order_by == ORDER_BY_RANK else []),
        tie_break(),
        F.coalesce(F.col(c.GAIN), F.lit(0.0)).alias(c.GAIN),
        F.coalesce(F.col(c.IS_JUDGED), F.lit(False)).alias(c.IS_JUDGED),
        *[F.coalesce(F.col(USABLE), F.lit(False)).alias(USABLE)] if judged_only else [],
        *[c.INPUT] if inputs else [],
    )
    judged = USABLE if judged_only else c.IS_JUDGED
    spread = {FIRST_INPUT: f"min({sql_name(c.INPUT)})", LAST_INPUT: f"max({sql_name(c.INPUT)})"} if inputs else {}
    ranked = with_running_dcg(
        labelled,
        [c.QUERY_ID, c.RUN_ID],
        ranking_order(order_by),
        c.POSITION,
        c.CUM_DCG,
        ks,
        judged=judged,
        kept=judged if judged_only else None,
        max_depth=max_depth,
        whole=spread,
    )
    return ranked.select(c.RUN_ID, c.QUERY_ID, c.POSITION, c.CUM_DCG, CUM_JUDGED, CUM_RELEVANT, *spread)


def dcg_per_query(ranked: DataFrame, ks: Sequence[int], uncut: bool) -> DataFrame:
    """One row per (run, query): DCG and counts at every cutoff, all k in one aggregation."""
    aggregates = [_at_cutoff(c.POSITION, c.POSITION, None, c.NUM_RETRIEVED, _BIGINT)]
    if FIRST_INPUT in ranked.columns:
        aggregates += [F.min(FIRST_INPUT).alias(FIRST_INPUT), F.max(LAST_INPUT).alias(LAST_INPUT)]
    for k in cutoff_ks(ks, uncut):
        aggregates += [
            _at_cutoff(c.CUM_DCG, c.POSITION, k, c.at_cutoff(c.DCG, k)),
            _at_cutoff(CUM_JUDGED, c.POSITION, k, c.at_cutoff(c.NUM_JUDGED_RETRIEVED, k), _BIGINT),
            _at_cutoff(CUM_RELEVANT, c.POSITION, k, c.at_cutoff(c.NUM_RELEVANT_RETRIEVED, k), _BIGINT),
        ]
    return ranked.groupBy(c.QUERY_ID, c.RUN_ID).agg(*aggregates)


IDEAL_COLUMNS = (c.NUM_JUDGED, c.NUM_RELEVANT)
JUDGED_QUERIES = "judged_queries"


def ideal_dcg_per_query(gains: DataFrame, ks: Sequence[int], uncut: bool) -> DataFrame:
    """One row per judged query: the DCG of all its judged documents in the best order.

    The same kind of windows as the ranked lists: an ideal side from counts per gain and array
    functions sorted less but ran slower, each new operator kind costing a cold JVM its
    compilation (docs/performance.md, "Designs tried")."""
    order = [f"{sql_name(c.GAIN)} DESC", f"{sql_name(c.DOC_ID)} DESC"]
    ideal = with_running_dcg(gains, [c.QUERY_ID], order, c.IDEAL_POSITION, c.CUM_IDCG, ks)
    return ideal.groupBy(c.QUERY_ID).agg(
        _at_cutoff(c.IDEAL_POSITION, c.IDEAL_POSITION, None, c.NUM_JUDGED, _BIGINT),
        _at_cutoff(CUM_RELEVANT, c.IDEAL_POSITION, None, c.NUM_RELEVANT, _BIGINT),
        *[_at_cutoff(c.CUM_IDCG, c.IDEAL_POSITION, k, c.at_cutoff(c.IDCG, k)) for k in cutoff_ks(ks, uncut)],
    )


def ideal_columns(ks: Sequence[int], uncut: bool) -> list[str]:
    return [*IDEAL_COLUMNS, *[c.at_cutoff(c.IDCG, k) for k in cutoff_ks(ks, uncut)]]


def query_pairs(
    results: DataFrame,
    judgments: DataFrame,
    *,
    ks: Sequence[int],
    gain_kind: Gain = GAIN_LINEAR,
    order_by: OrderBy = ORDER_BY_SCORE,
    uncut: bool = True,
    judged_queries: Observation | None = None,
    ideal_judgments: DataFrame | None = None,
    gains: GainTable = (),
    judged_only: bool = False,
    max_depth: int | None = None,
    inputs: bool = False,
) -> DataFrame:
    """The one pass over the data: a row per (run, query) retrieved, with its DCGs, and per judged
    query its ideal DCGs; a retrieved query nobody judged has NULL ideal columns, a judged query
    no run retrieved has a NULL run_id. Both inputs must already be copartitioned.

    judged_queries, when given, counts the judged queries (metric JUDGED_QUERIES) on the way:
    the ideal side has one row each, so no later query has to count them. ideal_judgments, when
    given, are the judgments the ideal side reads instead: the same exchange before the copies
    window, when a run with copies is refused anyway and one copies check is enough.

    gains, judged_only, max_depth: see gain and ranked_dcg. inputs: the results carry columns.INPUT, and
    each row gets the lowest and highest input index of its list (FIRST_INPUT, LAST_INPUT)."""
    labelled = judged_gains(judgments, gain_kind, gains, judged_only)
    dcg = ranked_dcg(results, labelled, order_by, ks, judged_only=judged_only, max_depth=max_depth, inputs=inputs).transform(
        lambda df: dcg_per_query(df, ks, uncut)
    )
    ideal_gains = labelled if ideal_judgments is None else judged_gains(ideal_judgments, gain_kind, gains)
    ideal = ideal_dcg_per_query(ideal_gains, ks, uncut)
    if judged_queries is not None:
        ideal = ideal.observe(judged_queries, F.count(F.lit(1)).alias(JUDGED_QUERIES))
    return dcg.join(ideal, on=c.QUERY_ID, how="full_outer")


def is_judged(pairs: DataFrame) -> Column:
    return pairs[c.NUM_JUDGED].isNotNull()


def is_retrieved(pairs: DataFrame) -> Column:
    return pairs[c.RUN_ID].isNotNull()


def evaluated_pairs(pairs: DataFrame, ks: Sequence[int], uncut: bool, complete: bool) -> DataFrame:
    """(run, query) pairs to score: judged and retrieved; with complete, every judged query for
    every run, a query the run lacks with NULL DCGs (scored 0)."""
    scored = pairs.filter(is_retrieved(pairs) & is_judged(pairs))
    if not complete:
        return scored
    judged = pairs.filter(is_judged(pairs)).select(c.QUERY_ID, *ideal_columns(ks, uncut))
    runs = pairs.filter(is_retrieved(pairs)).select(c.RUN_ID).distinct()
    retrieved = scored.drop(*ideal_columns(ks, uncut))
    return runs.crossJoin(judged.dropDuplicates([c.QUERY_ID])).join(retrieved, on=[c.QUERY_ID, c.RUN_ID], how="left")


def _cutoff_struct(k: int | None) -> str:
    """SQL text of one cutoff's values of a (run, query) row; a missing value (the run lacks
    the query, scored with complete) is 0."""

    def cut(name: str) -> str:
        zero = "0.0D" if name == c.DCG else "0L"
        return f"coalesce({sql_name(c.at_cutoff(name, k))}, {zero})"

    measure = c.MEASURE_UNCUT if k is None else c.MEASURE_CUT
    retrieved = sql_name(c.NUM_RETRIEVED) if k is None else f"least({sql_name(c.NUM_RETRIEVED)}, {k})"
    fields = {
        c.MEASURE: f"'{measure}'",
        c.K: f"CAST({'NULL' if k is None else k} AS INT)",
        c.DCG: cut(c.DCG),
        c.IDCG: sql_name(c.at_cutoff(c.IDCG, k)),
        c.NUM_RELEVANT_RETRIEVED: cut(c.NUM_RELEVANT_RETRIEVED),
        c.JUDGED_AT_K: f"CASE WHEN {retrieved} > 0 THEN {cut(c.NUM_JUDGED_RETRIEVED)} / {retrieved} END",
    }
    named = [f"'{name}', {value}" for name, value in fields.items()]
    return f"named_struct({', '.join(named)})"


PER_QUERY_COLUMNS = (
    c.RUN_ID,
    c.QUERY_ID,
    c.MEASURE,
    c.K,
    c.NDCG,
    c.DCG,
    c.IDCG,
    c.NUM_RETRIEVED,
    c.NUM_JUDGED,
    c.NUM_RELEVANT,
    c.NUM_RELEVANT_RETRIEVED,
    c.JUDGED_AT_K,
    c.VARIANT,
)


def per_query_rows(pairs: DataFrame, ks: Sequence[int], uncut: bool, variant: str) -> DataFrame:
    """Long format: one row per (run, query, cutoff); the uncut row has measure 'ndcg', k NULL.
    `variant` (Options.variant) says how the values were computed."""
    cutoffs = ", ".join(_cutoff_struct(k) for k in cutoff_ks(ks, uncut))
    query_id, retrieved, dcg, idcg = (sql_name(name) for name in (c.QUERY_ID, c.NUM_RETRIEVED, c.DCG, c.IDCG))
    computed = {
        c.NDCG: F.expr(f"CASE WHEN {idcg} > 0 THEN {dcg} / {idcg} ELSE 0.0D END AS {sql_name(c.NDCG)}"),
        c.VARIANT: F.lit(variant).alias(c.VARIANT),
    }
    return (
        pairs.select(
            c.RUN_ID,
            F.expr(f"CAST({query_id} AS STRING) AS {query_id}"),
            F.expr(f"CAST(coalesce({retrieved}, 0) AS BIGINT) AS {retrieved}"),
            c.NUM_JUDGED,
            c.NUM_RELEVANT,
            F.expr(f"explode(array({cutoffs})) AS {sql_name(c.CUTOFFS)}"),
        )
        .select("*", f"{c.CUTOFFS}.*")
        .select(*[computed.get(name, F.col(name)) for name in PER_QUERY_COLUMNS])
    )


def ndcg_per_query(
    results: DataFrame,
    judgments: DataFrame,
    *,
    ks: Sequence[int],
    gain_kind: Gain = GAIN_LINEAR,
    complete: bool = False,
    order_by: OrderBy = ORDER_BY_SCORE,
    uncut: bool = True,
    gains: GainTable = (),
    judged_only: bool = False,
    max_depth: int | None = None,
) -> DataFrame:
    """Canonical, duplicate-free results and judgments -> the per-query report, in one plan."""
    pairs = query_pairs(
        copartition(results),
        copartition(judgments),
        ks=ks,
        gain_kind=gain_kind,
        order_by=order_by,
        uncut=uncut,
        gains=gains,
        judged_only=judged_only,
        max_depth=max_depth,
    )
    variant = describe_variant(gain_kind, gains, judged_only, max_depth)
    return evaluated_pairs(pairs, ks, uncut, complete).transform(lambda df: per_query_rows(df, ks, uncut, variant))


SUMMARY_COLUMNS = (c.RUN_ID, c.MEASURE, c.K, c.NDCG, c.NUM_QUERIES, c.JUDGED_AT_K, c.VARIANT)

# Values in [0, 1] summed as decimals with 24 places: integer arithmetic, so the sum is the
# same whatever order Spark adds them in (a double sum is not), and 24 places lie far below
# a double's precision. 14 integer digits hold sums of up to 10^14 values.
_EXACT_SUM = T.DecimalType(38, 24)


def exact_sum(value: Column) -> Column:
    """The sum of a column of values in [-1, 1], as a decimal: independent of summation order."""
    return F.sum(value.cast(_EXACT_SUM))


def exact_mean(value: Column) -> Column:
    """The mean of the non-null values of a [0, 1] column, independent of summation order."""
    total = exact_sum(value).cast(T.DoubleType())
    count = F.count(value)
    return F.when(count > 0, total / count.cast(T.DoubleType()))


SUMMARY_KEYS = (c.RUN_ID, c.MEASURE, c.K, c.VARIANT)


def _summary_values() -> list[Column]:
    """A summary row's values over its group of per-query rows."""
    return [
        exact_mean(F.col(c.NDCG)).alias(c.NDCG),
        F.count(F.lit(1)).alias(c.NUM_QUERIES),
        exact_mean(F.col(c.JUDGED_AT_K)).alias(c.JUDGED_AT_K),
    ]


def summarize(per_query: DataFrame) -> DataFrame:
    """Plain mean over the evaluated queries, per (run, cutoff)."""
    return per_query.groupBy(*SUMMARY_KEYS).agg(*_summary_values()).select(*SUMMARY_COLUMNS)


RETRIEVED_JUDGED = "retrieved_judged"


# Marks the rows of summary_and_counts that hold a run's counts, not a summary row.
COUNTS_ROW = "_counts_row"
_JUDGED = "_judged"


def _null(frame: DataFrame, name: str) -> Column:
    """A NULL of `frame`'s type for column `name`, under that name."""
    return F.lit(None).cast(frame.schema[name].dataType).alias(name)


def summary_and_counts(per_query: DataFrame, pairs: DataFrame) -> DataFrame:
    """summarize(per_query), and per run the queries it retrieved (NUM_QUERIES) and of those the
    judged ones (RETRIEVED_JUDGED; the rest are skipped), in one aggregation over the union of
    both: the report reads the staged pairs in one query, with one shuffle, where two queries
    cost two shuffles and twice the Spark jobs. A run's counts are the rows with COUNTS_ROW set;
    with several result inputs they also hold the lowest and highest index of the inputs the
    run came from. The summary rows' values are those of summarize: the same exact sums."""
    spread = [name for name in (FIRST_INPUT, LAST_INPUT) if name in pairs.columns]
    summary_side = per_query.select(
        *SUMMARY_KEYS,
        c.NDCG,
        c.JUDGED_AT_K,
        F.lit(None).cast(T.IntegerType()).alias(_JUDGED),
        *[_null(pairs, name) for name in spread],
        F.lit(False).alias(COUNTS_ROW),
    )
    counts_side = pairs.filter(is_retrieved(pairs)).select(
        c.RUN_ID,
        *[_null(per_query, name) for name in (*SUMMARY_KEYS[1:], c.NDCG, c.JUDGED_AT_K)],
        indicator(is_judged(pairs)).alias(_JUDGED),
        *spread,
        F.lit(True).alias(COUNTS_ROW),
    )
    return (
        summary_side.unionByName(counts_side)
        .groupBy(*SUMMARY_KEYS, COUNTS_ROW)
        .agg(
            *_summary_values(),
            F.sum(_JUDGED).cast(T.LongType()).alias(RETRIEVED_JUDGED),
            *[F.min(FIRST_INPUT).alias(FIRST_INPUT), F.max(LAST_INPUT).alias(LAST_INPUT)] if spread else [],
        )
        .select(*SUMMARY_COLUMNS, COUNTS_ROW, RETRIEVED_JUDGED, *spread)
    )
