"""trec_eval's binary measures (P, recall, map, map_cut, recip_rank, Rprec, success, bpref) from
the main pass's own windows.

A document is relevant when its grade is at least the relevance level (trec_eval -l). Each
measure is a running count or a first position over the ranked list, read in the aggregation that
already reads the DCG: the running count of relevant documents at k (P, recall, success), the sum
of the precision at each relevant document (map, map_cut), the first relevant position
(recip_rank). Rprec and bpref also need the query's R (and bpref its number of judged
non-relevant documents) on every ranked row: a window over the judgments per query, on the order
their copies check already sorted them in, brings them. Dividing by R waits until the (run, query)
row meets the ideal side's R.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.frames import indicator, sql_name
from ndcg_spark.measures import NDCG_MEASURES, Measure
from ndcg_spark.option_values import GainTable
from ndcg_spark.scoring.ranking import BIGINT, CUM_RELEVANT, at_cutoff

# Columns of the judgments and of the ranked rows.
RELEVANT = "_relevant"  # grade >= level
NONRELEVANT = "_nonrelevant"  # judged, 0 <= grade < level (bpref's judged non-relevant)
QUERY_RELEVANT = "_query_relevant"  # the query's R, on each of its judgments
QUERY_NONRELEVANT = "_query_nonrelevant"
CUM_REL = "_cum_rel"
CUM_NONREL = "_cum_nonrel"
# Columns of the (run, query) rows.
REL_RET = "rel_ret"  # relevant retrieved, per cutoff: c.at_cutoff(REL_RET, k)
AP_SUM = "ap_sum"  # sum of the precision at each relevant document, per cutoff
FIRST_REL = "first_rel"
RPREC_REL = "rprec_rel"  # relevant documents in the top R
BPREF_SUM = "bpref_sum"
NUM_RELEVANT_LEVEL = "num_relevant_level"  # the ideal side's R

_AVERAGED = ("map", "map_cut")
_PER_ROW = ("map", "map_cut", "recip_rank", "Rprec", "bpref")
_PER_QUERY = ("Rprec", "bpref")


@dataclass(frozen=True)
class Binary:
    """The binary measures asked for (none of them NDCG) and the grade from which a document is
    relevant. by_gain: relevant is gain > 0 (level 1 and the gain's own values, whose positive
    gains are exactly the grades >= 1), so the NDCG pass's own relevant counts serve."""

    measures: tuple[Measure, ...]
    level: int = 1
    by_gain: bool = False

    @property
    def cum_rel(self) -> str:
        """The running count of relevant rows."""
        return CUM_RELEVANT if self.by_gain else CUM_REL

    @property
    def total(self) -> str:
        """The (run, query) row's column holding R."""
        return c.NUM_RELEVANT if self.by_gain else NUM_RELEVANT_LEVEL

    def named(self, *names: str) -> list[Measure]:
        return [measure for measure in self.measures if measure.name in names]

    @property
    def ks(self) -> list[int]:
        """The cutoffs whose relevant-retrieved count some measure reads."""
        return sorted({measure.k for measure in self.measures if measure.k is not None})

    @property
    def ap_ks(self) -> list[int | None]:
        """The cutoffs of average precision (None: map, over the whole list)."""
        return sorted({measure.k for measure in self.named(*_AVERAGED)}, key=c.cutoff_order)

    @property
    def per_row(self) -> bool:
        """Whether some measure reads each relevant row, not only the rows at the cutoffs."""
        return bool(self.named(*_PER_ROW))

    @property
    def per_query(self) -> bool:
        """Whether some measure needs the query's R on the ranked rows (Rprec, bpref)."""
        return bool(self.named(*_PER_QUERY))

    @property
    def bpref(self) -> bool:
        return bool(self.named("bpref"))


def relevance_columns(relevance: Column, binary: Binary) -> list[Column]:
    """A judgment's binary relevance (and, for bpref, whether it is judged non-relevant)."""
    level = F.lit(binary.level)
    columns = [] if binary.by_gain else [(relevance >= level).alias(RELEVANT)]
    if binary.bpref:
        columns.append(((relevance >= 0) & (relevance < level)).alias(NONRELEVANT))
    return columns


def with_query_counts(gains: DataFrame, binary: Binary) -> DataFrame:
    """Each judgment with its query's R (and judged non-relevant count): a window per query that
    needs no sort of its own, since the copies check leaves the judgments in query order."""
    if not binary.per_query:
        return gains
    per_query = Window.partitionBy(c.QUERY_ID)
    relevant = F.col(c.GAIN) > 0 if binary.by_gain else F.col(RELEVANT)
    counts = {QUERY_RELEVANT: F.sum(indicator(relevant)).over(per_query)}
    if binary.bpref:
        counts[QUERY_NONRELEVANT] = F.sum(indicator(F.col(NONRELEVANT))).over(per_query)
    return gains.withColumns(counts)


def joined_columns(binary: Binary) -> list[str]:
    """The judgments' columns the ranked rows take from the join."""
    return [
        *([] if binary.by_gain else [RELEVANT]),
        *([NONRELEVANT] if binary.bpref else []),
        *([QUERY_RELEVANT] if binary.per_query else []),
        *([QUERY_NONRELEVANT] if binary.per_query and binary.bpref else []),
    ]


def labelled(binary: Binary) -> list[Column]:
    """The joined columns on a ranked row, right after the join: an unjudged document (NULL
    gain) is neither relevant nor judged non-relevant."""
    flags = [*([] if binary.by_gain else [RELEVANT]), *([NONRELEVANT] if binary.bpref else [])]
    counts = [F.col(name) for name in joined_columns(binary) if name not in flags]
    relevant = [(F.coalesce(F.col(c.GAIN), F.lit(0.0)) > 0).alias(RELEVANT)] if binary.by_gain else []
    return [*relevant, *[F.coalesce(F.col(name), F.lit(False)).alias(name) for name in flags], *counts]


def running_counts(binary: Binary) -> dict[str, str]:
    """Running counts in rank order: relevant rows, and judged non-relevant ones for bpref."""
    counts = {} if binary.by_gain else {CUM_REL: sql_name(RELEVANT)}
    if binary.bpref:
        counts[CUM_NONREL] = sql_name(NONRELEVANT)
    return counts


def whole_list(binary: Binary) -> dict[str, str]:
    """The query's counts over the whole list (unjudged rows carry none)."""
    names = [name for name in (QUERY_RELEVANT, QUERY_NONRELEVANT) if name in joined_columns(binary)]
    return {name: f"max({sql_name(name)})" for name in names}


def kept_rows(binary: Binary) -> str | None:
    """The rows the aggregation reads beyond the cutoffs: each relevant row, when a measure reads it."""
    return sql_name(RELEVANT) if binary.per_row else None


def ranked_aggregates(binary: Binary, position: str) -> list[Column]:
    """Per (run, query), over its rows at the cutoffs and its relevant rows."""
    pos, rel, cum = sql_name(position), sql_name(RELEVANT), sql_name(binary.cum_rel)
    aggregates = [at_cutoff(binary.cum_rel, position, k, c.at_cutoff(REL_RET, k), BIGINT) for k in [*binary.ks, None]]
    precision = f"CAST({cum} AS DOUBLE) / CAST({pos} AS DOUBLE)"
    for k in binary.ap_ks:
        within = "" if k is None else f" AND {pos} <= {k}"
        aggregates.append(F.expr(f"sum(CASE WHEN {rel}{within} THEN {precision} END) AS {sql_name(c.at_cutoff(AP_SUM, k))}"))
    if binary.named("recip_rank"):
        aggregates.append(F.expr(f"min(CASE WHEN {rel} THEN {pos} END) AS {sql_name(FIRST_REL)}"))
    total = sql_name(QUERY_RELEVANT)
    if binary.named("Rprec"):
        aggregates.append(F.expr(f"CAST(max(CASE WHEN {pos} <= {total} THEN {cum} END) AS BIGINT) AS {sql_name(RPREC_REL)}"))
    if binary.bpref:
        # trec_eval: each relevant document scores 1 - min(n, R) / min(R, N), n the judged
        # non-relevant documents above it, N all of the query's; 1 when n is 0.
        above, judged_nonrel = sql_name(CUM_NONREL), sql_name(QUERY_NONRELEVANT)
        share = f"CAST(least({above}, {total}) AS DOUBLE) / CAST(least({total}, {judged_nonrel}) AS DOUBLE)"
        score = f"CASE WHEN {above} > 0 THEN 1.0D - {share} ELSE 1.0D END"
        aggregates.append(F.expr(f"sum(CASE WHEN {rel} THEN {score} END) AS {sql_name(BPREF_SUM)}"))
    return aggregates


_LEVEL_RELEVANT = "_level_relevant"


def ideal_whole(binary: Binary | None) -> dict[str, str]:
    """R over the whole ideal list, before rows of gain 0 (a relevant grade may gain 0) leave it;
    none when relevance is the gain's (the ideal side's NUM_RELEVANT is R then)."""
    if binary is None or binary.by_gain:
        return {}
    return {_LEVEL_RELEVANT: f"sum(CASE WHEN {sql_name(RELEVANT)} THEN 1 ELSE 0 END)"}


def ideal_aggregates(binary: Binary | None) -> list[Column]:
    """R at the level, per judged query, when ideal_whole counted it."""
    if not ideal_whole(binary):
        return []
    return [F.expr(f"CAST(max({sql_name(_LEVEL_RELEVANT)}) AS BIGINT) AS {sql_name(NUM_RELEVANT_LEVEL)}")]


def ideal_columns(binary: Binary | None) -> list[str]:
    """The ideal side's columns of a (run, query) row for the binary measures."""
    return [NUM_RELEVANT_LEVEL] if ideal_whole(binary) else []


def value(measure: Measure, binary: Binary) -> str:
    """SQL text of the measure's value on a (run, query) row; a run lacking the query (scored
    with complete) has NULL ranked columns, and scores 0."""
    total = sql_name(binary.total)

    def of(name: str) -> str:
        return f"coalesce(CAST({sql_name(name)} AS DOUBLE), 0.0D)"

    def per_relevant(numerator: str) -> str:
        return f"CASE WHEN {total} > 0 THEN {numerator} / CAST({total} AS DOUBLE) ELSE 0.0D END"

    found = of(c.at_cutoff(REL_RET, measure.k))
    name = measure.name
    if name == "P":
        return f"{found} / {float(measure.k or 1)}D"
    if name == "recall":
        return per_relevant(found)
    if name == "success":
        return f"CASE WHEN {found} > 0 THEN 1.0D ELSE 0.0D END"
    if name in _AVERAGED:
        return per_relevant(of(c.at_cutoff(AP_SUM, measure.k)))
    if name == "recip_rank":
        first = sql_name(FIRST_REL)
        return f"CASE WHEN {first} > 0 THEN 1.0D / CAST({first} AS DOUBLE) ELSE 0.0D END"
    if name == "Rprec":
        return per_relevant(of(RPREC_REL))
    if name == "bpref":
        return per_relevant(of(BPREF_SUM))
    raise ValueError(f"not a binary measure: {name}")


def relevant_retrieved(measure: Measure) -> str:
    """SQL text of a binary row's num_relevant_retrieved: relevant documents in the top k (the
    whole list for a measure without a cutoff)."""
    return f"coalesce({sql_name(c.at_cutoff(REL_RET, measure.k))}, 0L)"


def binary_of(measures: Sequence[Measure], level: int, gains: GainTable = ()) -> Binary | None:
    """The binary measures among `measures`, or None when there are none (NDCG alone). gains:
    the custom gains (a grade >= 1 may gain 0 there, so relevance cannot be read from gains)."""
    chosen = tuple(measure for measure in measures if measure.name not in NDCG_MEASURES)
    return Binary(chosen, level, by_gain=level == 1 and not gains) if chosen else None
