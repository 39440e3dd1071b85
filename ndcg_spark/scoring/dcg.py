"""NDCG@k per (run, query) as DataFrame transforms, with trec_eval's ndcg_cut and ndcg semantics.

DCG is a running sum over the ranked list (a window in rank order), and DCG@k is that sum at
position min(k, list length). Summing in rank order, as trec_eval does, never in the order Spark
happens to feed rows, makes every value independent of partitioning.

The whole computation is served by one hash partitioning of each input by query_id: the join
on (query_id, doc_id), the ranking window, the ideal window and the per-query aggregations all
reuse it, and after the ranking window only the rows at a cutoff position (and each list's last
row) travel on.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.frames import sql_name
from ndcg_spark.option_values import GainTable
from ndcg_spark.options import (
    GAIN_LINEAR,
    ORDER_BY_RANK,
    ORDER_BY_SCORE,
    Gain,
    OrderBy,
)
from ndcg_spark.scoring.ranking import (
    BIGINT,
    CUM_JUDGED,
    CUM_RELEVANT,
    FIRST_INPUT,
    LAST_INPUT,
    USABLE,
    at_cutoff,
    cutoff_ks,
    gain,
    ranking_order,
    tie_break,
    with_running_dcg,
)


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
    aggregates = [at_cutoff(c.POSITION, c.POSITION, None, c.NUM_RETRIEVED, BIGINT)]
    if FIRST_INPUT in ranked.columns:
        aggregates += [F.min(FIRST_INPUT).alias(FIRST_INPUT), F.max(LAST_INPUT).alias(LAST_INPUT)]
    for k in cutoff_ks(ks, uncut):
        aggregates += [
            at_cutoff(c.CUM_DCG, c.POSITION, k, c.at_cutoff(c.DCG, k)),
            at_cutoff(CUM_JUDGED, c.POSITION, k, c.at_cutoff(c.NUM_JUDGED_RETRIEVED, k), BIGINT),
            at_cutoff(CUM_RELEVANT, c.POSITION, k, c.at_cutoff(c.NUM_RELEVANT_RETRIEVED, k), BIGINT),
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
        at_cutoff(c.IDEAL_POSITION, c.IDEAL_POSITION, None, c.NUM_JUDGED, BIGINT),
        at_cutoff(CUM_RELEVANT, c.IDEAL_POSITION, None, c.NUM_RELEVANT, BIGINT),
        *[at_cutoff(c.CUM_IDCG, c.IDEAL_POSITION, k, c.at_cutoff(c.IDCG, k)) for k in cutoff_ks(ks, uncut)],
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
