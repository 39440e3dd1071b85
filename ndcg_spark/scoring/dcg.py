"""The measures per (run, query) as DataFrame transforms: the one pass that ranks each list and
computes, in its windows, what the measures' formulas read (scoring.formulas).

DCG is a running sum over the ranked list (a window in rank order), and DCG@k is that sum at
position min(k, list length). Summing in rank order, as trec_eval does, never in the order Spark
happens to feed rows, makes every value independent of partitioning.

The whole computation is served by one hash partitioning of each input by query_id: the join
on (query_id, doc_id), the ranking window, the ideal window and the per-query aggregations all
reuse it, and after the ranking window only the rows at a cutoff position (and each list's last
row) travel on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.frames import sql_name
from ndcg_spark.measures import NDCG_MEASURES
from ndcg_spark.options import (
    ORDER_BY_RANK,
)
from ndcg_spark.scoring import formulas as f
from ndcg_spark.scoring.formulas import formulas_of
from ndcg_spark.scoring.plan import ScoringPlan
from ndcg_spark.scoring.ranking import (
    BIGINT,
    CUM_JUDGED,
    CUM_RELEVANT,
    FIRST_INPUT,
    LAST_INPUT,
    USABLE,
    at_cutoff,
    gain,
    ranking_order,
    tie_break,
    with_running_dcg,
)


def judged_gains(judgments: DataFrame, plan: ScoringPlan, *, usable: bool = True) -> DataFrame:
    """Both uses of the judgments (the join, the ideal DCG) must see the same plan, so that
    Spark reads and shuffles them once; the explicit non-null filter (ids are validated
    non-null) equals the one Spark would infer for the join only. When a measure reads relevance
    at the level, each judgment also says whether it is relevant at it. usable: with judged_only,
    whether each judgment is one -J keeps (the join's side; the ideal side needs no such column)."""
    formulas = formulas_of(plan)
    kept = [(F.col(c.RELEVANCE) >= 0).alias(USABLE)] if plan.judged_only and usable else []
    relevance = f.relevance_columns(F.col(c.RELEVANCE), formulas)
    return judgments.filter(F.col(c.QUERY_ID).isNotNull() & F.col(c.DOC_ID).isNotNull()).select(
        c.QUERY_ID, c.DOC_ID, gain(F.col(c.RELEVANCE), plan.gain, plan.gains).alias(c.GAIN), *kept, *relevance
    )


def ranked_dcg(results: DataFrame, gains: DataFrame, plan: ScoringPlan, *, inputs: bool = False) -> DataFrame:
    """The rows of each ranked list at the cutoff positions, with the running DCG and counts
    (and what the formulas read of other rows: each relevant row, for instance).

    The plan's judged_only drops unjudged documents and those graded below 0 before positions
    are counted (trec_eval -J; such a list's judged@k is 1); its max_depth cuts each list first
    (trec_eval -M). inputs: the results carry columns.INPUT, the index of the input each row
    came from."""
    formulas, judged_only, order_by = formulas_of(plan), plan.judged_only, plan.order_by
    # A merge join: both sides arrive sorted by (query_id, doc_id, ...) from their copies'
    # windows. Measured warm at 10M rows, a shuffled hash join cost as much as this join with
    # its sorts, and finding copies by a hash aggregation instead of those windows cost more
    # than the sort (see docs/design-notes.md). Only what the ranking needs travels on through
    # its sort (doc_id only as its tie-break string).
    usable = [USABLE] if judged_only else []
    joined = f.joined_columns(formulas)
    judgments = f.with_judgment(gains, formulas)
    labelled = results.join(
        judgments.select(c.QUERY_ID, c.DOC_ID, c.GAIN, F.lit(True).alias(c.IS_JUDGED), *usable, *joined).hint("merge"),
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
        *f.labelled(formulas),
        *[c.INPUT] if inputs else [],
    )
    judged = USABLE if judged_only else c.IS_JUDGED
    spread = {FIRST_INPUT: f"min({sql_name(c.INPUT)})", LAST_INPUT: f"max({sql_name(c.INPUT)})"} if inputs else {}
    counts = f.running_sums(formulas, judged, c.POSITION)
    ranked = with_running_dcg(
        labelled,
        [c.QUERY_ID, c.RUN_ID],
        ranking_order(order_by),
        c.POSITION,
        c.CUM_DCG,
        formulas.ks,
        judged=judged,
        kept=judged if judged_only else None,
        max_depth=plan.max_depth,
        whole=spread,
        counts=counts,
        keep=f.kept_rows(formulas),
    )
    extra = f.ranked_columns(formulas, judged, c.POSITION)
    return ranked.select(c.RUN_ID, c.QUERY_ID, c.POSITION, c.CUM_DCG, CUM_JUDGED, CUM_RELEVANT, *spread, *extra)


def dcg_per_query(ranked: DataFrame, plan: ScoringPlan) -> DataFrame:
    """One row per (run, query): what the formulas read of its list, all cutoffs in one
    aggregation."""
    formulas = formulas_of(plan)
    aggregates = [at_cutoff(c.POSITION, c.POSITION, None, c.NUM_RETRIEVED, BIGINT)]
    if FIRST_INPUT in ranked.columns:
        aggregates += [F.min(FIRST_INPUT).alias(FIRST_INPUT), F.max(LAST_INPUT).alias(LAST_INPUT)]
    for k in formulas.judged_ks:
        aggregates.append(at_cutoff(CUM_JUDGED, c.POSITION, k, c.at_cutoff(c.NUM_JUDGED_RETRIEVED, k), BIGINT))
    aggregates += f.ranked_aggregates(formulas, c.POSITION)
    return ranked.groupBy(c.QUERY_ID, c.RUN_ID).agg(*aggregates)


IDEAL_COLUMNS = (c.NUM_JUDGED, c.NUM_RELEVANT)
JUDGED_QUERIES = "judged_queries"


def ideal_dcg_per_query(gains: DataFrame, plan: ScoringPlan) -> DataFrame:
    """One row per judged query: the DCG of all its judged documents in the best order.

    The same kind of windows as the ranked lists: an ideal side from counts per gain and array
    functions sorted less but ran slower, each new operator kind costing a cold JVM its
    compilation (docs/design-notes.md, "Designs tried")."""
    formulas = formulas_of(plan)
    order = [f"{sql_name(c.GAIN)} DESC", f"{sql_name(c.DOC_ID)} DESC"]
    ideal = with_running_dcg(
        gains,
        [c.QUERY_ID],
        order,
        c.IDEAL_POSITION,
        c.CUM_IDCG,
        formulas.ideal_ks,
        whole=f.ideal_whole(formulas),
        counts=f.ideal_sums(formulas),
        keep=f.ideal_kept(formulas),
    )
    return ideal.groupBy(c.QUERY_ID).agg(
        at_cutoff(c.IDEAL_POSITION, c.IDEAL_POSITION, None, c.NUM_JUDGED, BIGINT),
        at_cutoff(CUM_RELEVANT, c.IDEAL_POSITION, None, c.NUM_RELEVANT, BIGINT),
        *[
            at_cutoff(c.CUM_IDCG, c.IDEAL_POSITION, k, c.at_cutoff(c.IDCG, k))
            for k in sorted(formulas.needs.ideal_ks, key=c.cutoff_order)
        ],
        *f.ideal_aggregates(formulas),
    )


def ideal_columns(plan: ScoringPlan) -> list[str]:
    formulas = formulas_of(plan)
    ideal = [c.at_cutoff(c.IDCG, k) for k in sorted(formulas.needs.ideal_ks, key=c.cutoff_order)]
    return [*IDEAL_COLUMNS, *f.ideal_columns(formulas), *ideal]


def query_pairs(
    results: DataFrame,
    judgments: DataFrame,
    plan: ScoringPlan,
    *,
    judged_queries: Observation | None = None,
    ideal_judgments: DataFrame | None = None,
    inputs: bool = False,
) -> DataFrame:
    """The one pass over the data: a row per (run, query) retrieved, with its DCGs, and per judged
    query its ideal DCGs; a retrieved query nobody judged has NULL ideal columns, a judged query
    no run retrieved has a NULL run_id. Both inputs must already be copartitioned.

    judged_queries, when given, counts the judged queries (metric JUDGED_QUERIES) on the way:
    the ideal side has one row each, so no later query has to count them. ideal_judgments, when
    given, are the judgments the ideal side reads instead: the same exchange before the copies
    window, when a run with copies is refused anyway and one copies check is enough.

    inputs: the results carry columns.INPUT, and each row gets the lowest and highest input index
    of its list (FIRST_INPUT, LAST_INPUT)."""
    labelled = judged_gains(judgments, plan)
    dcg = ranked_dcg(results, labelled, plan, inputs=inputs).transform(lambda df: dcg_per_query(df, plan))
    ideal_gains = labelled if ideal_judgments is None else judged_gains(ideal_judgments, plan, usable=False)
    ideal = ideal_dcg_per_query(ideal_gains, plan)
    if judged_queries is not None:
        ideal = ideal.observe(judged_queries, F.count(F.lit(1)).alias(JUDGED_QUERIES))
    return dcg.join(ideal, on=c.QUERY_ID, how="full_outer")


def is_judged(pairs: DataFrame) -> Column:
    return pairs[c.NUM_JUDGED].isNotNull()


def is_retrieved(pairs: DataFrame) -> Column:
    return pairs[c.RUN_ID].isNotNull()


def evaluated_pairs(pairs: DataFrame, plan: ScoringPlan) -> DataFrame:
    """(run, query) pairs to score: judged and retrieved; with complete, every judged query for
    every run, a query the run lacks with NULL DCGs (scored 0)."""
    scored = pairs.filter(is_retrieved(pairs) & is_judged(pairs))
    if not plan.complete:
        return scored
    judged = pairs.filter(is_judged(pairs)).select(c.QUERY_ID, *ideal_columns(plan))
    runs = pairs.filter(is_retrieved(pairs)).select(c.RUN_ID).distinct()
    retrieved = scored.drop(*ideal_columns(plan))
    return runs.crossJoin(judged.dropDuplicates([c.QUERY_ID])).join(retrieved, on=[c.QUERY_ID, c.RUN_ID], how="left")


def _judged_at(k: int | None) -> str:
    """SQL text of judged@k: the judged share of the top k retrieved (NULL when none is, a run
    lacking the query with complete too: least() would skip its NULL count and divide by k)."""
    length = f"coalesce({sql_name(c.NUM_RETRIEVED)}, 0)"
    retrieved = length if k is None else f"least({length}, {k})"
    judged = f"coalesce({sql_name(c.at_cutoff(c.NUM_JUDGED_RETRIEVED, k))}, 0L)"
    return f"CASE WHEN {retrieved} > 0 THEN {judged} / {retrieved} END"


@dataclass(frozen=True)
class MeasuredRow:
    """One (measure, k) of a (run, query) row: SQL text of its values (a missing ranked value,
    when the run lacks the query and complete scores it, is 0)."""

    measure: str
    k: int | None
    dcg: str
    idcg: str
    num_relevant: str
    relevant_retrieved: str
    value: str


def measured_rows(plan: ScoringPlan) -> list[MeasuredRow]:
    """Every (measure, k) a (run, query) row is reported at, in the plan's order."""
    return _all_rows(plan)[: len(plan.measures)]


def page_rows(plan: ScoringPlan) -> list[MeasuredRow]:
    """The (measure, k) the HTML page alone draws (ScoringPlan.page_measures)."""
    return _all_rows(plan)[len(plan.measures) :]


def _all_rows(plan: ScoringPlan) -> list[MeasuredRow]:
    formulas = formulas_of(plan)
    return [
        MeasuredRow(measure.reported, measure.k, *details, value)
        for measure, details, value in zip(formulas.measures, formulas.details, formulas.values, strict=True)
    ]


def _column(kind: str, index: int) -> str:
    return f"_{kind}_{index}"


def value_column(index: int) -> str:
    """The column of measured() holding the value of the index-th of measured_rows."""
    return _column("value", index)


def judged_column(k: int | None) -> str:
    """The column of measured() holding judged@k."""
    return c.at_cutoff("_judged_at", k)


_INLINE = re.compile(r"`[^`]*`|" + re.escape(f.NULL_DOUBLE))
"""A field's SQL text that is a column or a constant: the long row reads it as it is."""


def _fields(rows: Sequence[MeasuredRow]) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The columns measured() computes (name -> SQL text; each expression once, however many
    measures share it, and a column the rows read as it is under its own name), and per row the
    SQL text of each field of its long row."""
    columns: dict[str, str] = {}
    named: dict[str, str] = {}

    def ref(text: str) -> str:
        if _INLINE.fullmatch(text):
            if text.startswith("`"):
                columns[text.strip("`")] = text
            return text
        if text not in named:
            named[text] = _column("field", len(named))
            columns[named[text]] = text
        return sql_name(named[text])

    fields = []
    for i, row in enumerate(rows):
        columns[value_column(i)] = row.value
        fields.append(
            {
                c.MEASURE: f"'{row.measure}'",
                c.K: f"CAST({'NULL' if row.k is None else row.k} AS INT)",
                c.DCG: ref(row.dcg),
                c.IDCG: ref(row.idcg),
                c.NUM_RELEVANT: ref(row.num_relevant),
                c.NUM_RELEVANT_RETRIEVED: ref(row.relevant_retrieved),
                c.JUDGED_AT_K: sql_name(judged_column(row.k)),
                c.VALUE: sql_name(value_column(i)),
            }
        )
    columns.update({judged_column(k): _judged_at(k) for k in dict.fromkeys(row.k for row in rows)})
    return columns, fields


def measured(pairs: DataFrame, rows: Sequence[MeasuredRow]) -> DataFrame:
    """The (run, query) rows with each (measure, k)'s value and each cutoff's judged@k as plain
    columns (value_column, judged_column): what both the long per_query rows and the summary
    read. Computing them once, in a projection of their own, keeps the code Spark generates for
    the long rows small (24 measures' expressions inline in one explode fell back from
    whole-stage code generation and ran ten times slower); the long rows then read them."""
    query_id, retrieved = sql_name(c.QUERY_ID), sql_name(c.NUM_RETRIEVED)
    columns, _ = _fields(rows)
    return pairs.select(
        c.RUN_ID,
        F.expr(f"CAST({query_id} AS STRING) AS {query_id}"),
        F.expr(f"CAST(coalesce({retrieved}, 0) AS BIGINT) AS {retrieved}"),
        c.NUM_JUDGED,
        *[F.expr(f"{text} AS {sql_name(name)}") for name, text in columns.items()],
    )


_POSITION = "_position"
_VALUES = "_values"

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
    c.VALUE,
)


def per_query_rows(pairs: DataFrame, plan: ScoringPlan) -> DataFrame:
    """Long format: one row per (run, query, measure, cutoff); NDCG's uncut row has measure
    'ndcg', k NULL. `value` holds every measure's value, `ndcg` the NDCG rows' (NULL on the
    others). `variant` (Options.variant) says how the values were computed.

    The values go into one array and a row is made per element (posexplode), each other field
    of a row read from an array at its position, or as it is where all rows share it: the plan
    stays narrow, so Spark generates code for it. stack() over the wide measured row (more than
    spark.sql.codegen.maxFields columns with all_trec) ran interpreted: 2.4x the time for its
    98 rows per query, 1.8x cold (docs/design-notes.md)."""
    rows, variant = measured_rows(plan), plan.variant
    fields = _fields(rows)[1]
    position = f"{sql_name(_POSITION)} + 1"
    kept = [c.RUN_ID, c.QUERY_ID, c.NUM_RETRIEVED, c.NUM_JUDGED]
    narrow: list[Column] = []  # beside the values: what the rows' fields read
    long: dict[str, Column] = {}
    for name in (name for name in fields[0] if name != c.VALUE):
        texts, holder = [row[name] for row in fields], f"_by_{name}"
        if name in (c.MEASURE, c.K):  # constants: a literal array
            long[name] = F.expr(f"element_at(array({', '.join(texts)}), {position})")
        elif len(set(texts)) == 1:
            narrow.append(F.expr(f"{texts[0]} AS {sql_name(holder)}"))
            long[name] = F.col(holder)
        else:
            narrow.append(F.expr(f"array({', '.join(texts)}) AS {sql_name(holder)}"))
            long[name] = F.expr(f"element_at({sql_name(holder)}, {position})")
    values = F.expr(f"array({', '.join(row[c.VALUE] for row in fields)})").alias(_VALUES)
    # The outer form: Spark would add a filter on the array's size for a plain explode,
    # computing every value twice; the array is never empty.
    exploded = F.expr(f"posexplode_outer({sql_name(_VALUES)}) AS ({sql_name(_POSITION)}, {sql_name(c.VALUE)})")
    staged = measured(pairs, rows).select(*kept, *narrow, values)
    stacked = staged.select(*kept, *[column for column in staged.columns if column.startswith("_by_")], exploded)
    # element_at of an array of non-null texts is non-null; the schema keeps its fields nullable.
    nullable = F.col(_POSITION).isNotNull()
    computed = {
        **{name: F.when(nullable, column).alias(name) for name, column in long.items()},
        c.NDCG: F.when(F.col(c.MEASURE).isin(*NDCG_MEASURES), F.col(c.VALUE)).alias(c.NDCG),
        c.VARIANT: F.lit(variant).alias(c.VARIANT),
    }
    named = stacked.select(*kept, *[computed[name] for name in long], c.VALUE)
    return named.select(*[computed[name] if name in (c.NDCG, c.VARIANT) else F.col(name) for name in PER_QUERY_COLUMNS])
