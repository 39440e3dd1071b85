"""trec_eval's binary measures (P, recall, map, map_cut, recip_rank, Rprec, success, bpref) from
the main pass's own windows.

A document is relevant when its grade is at least the relevance level (trec_eval -l). Each
measure is a running count or a first position over the ranked list, read in the aggregation that
already reads the DCG: the running count of relevant documents at k (P, recall, success), the sum
of the precision at each relevant document (map, map_cut), the first relevant position
(recip_rank). Rprec and bpref also need the query's R (and bpref its number of judged
non-relevant documents) on each relevant ranked row: a window over the judgments per query, on
the order their copies check already sorted them in, brings them, packed in the one field a
ranked row takes from its judgment. Dividing by R waits until the (run, query) row meets the
ideal side's R.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.frames import indicator, sql_name
from ndcg_spark.measures import NDCG_MEASURES, Measure
from ndcg_spark.option_values import GainTable
from ndcg_spark.scoring.ranking import BIGINT, CUM_RELEVANT, at_cutoff

# Columns of the judgments and of the ranked rows. What a ranked row takes from its judgment
# travels through the ranking's sort, where each field costs every row 8 bytes: so it is one
# BIGINT, JUDGMENT, not a field per fact.
CLASS = "_class"  # on a judgment: RELEVANT_CLASS, NONRELEVANT_CLASS or 0 (graded < 0)
RELEVANT_CLASS = 1  # grade >= level
NONRELEVANT_CLASS = -1  # judged, 0 <= grade < level (bpref's judged non-relevant)
# On a judgment and a ranked row: > 0 relevant, < 0 judged non-relevant, 0 neither (or
# unjudged). With Rprec or bpref, a relevant one holds its query's R and N (judged
# non-relevant): R * 2^32 + N, exact while a query has fewer than 2^31 judgments.
JUDGMENT = "_judgment"
_SHIFT = 32
_LOW = (1 << _SHIFT) - 1
RELEVANT = "_relevant"  # on a ranked row after the sort: relevant at the level
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

    @property
    def classed(self) -> bool:
        """Whether the judgments carry CLASS: relevance is not the gain's, or bpref needs the
        judged non-relevant ones."""
        return not self.by_gain or self.bpref

    @property
    def judgment(self) -> bool:
        """Whether the ranked rows carry JUDGMENT: relevance is not the gain's, or Rprec and
        bpref need the query's counts."""
        return not self.by_gain or self.per_query


def relevance_columns(relevance: Column, binary: Binary) -> list[Column]:
    """A judgment's class at the level (CLASS), when relevance cannot be read from the gain or
    bpref needs the judged non-relevant ones: one field where there were two flags."""
    if not binary.classed:
        return []
    level = F.lit(binary.level)
    classed = F.when(relevance >= level, F.lit(RELEVANT_CLASS))
    if binary.bpref:
        classed = classed.when(relevance >= 0, F.lit(NONRELEVANT_CLASS))
    return [classed.otherwise(F.lit(0)).alias(CLASS)]


def _judgment_relevant(binary: Binary) -> str:
    """SQL condition: the judgment is relevant at the level."""
    return f"{sql_name(c.GAIN)} > 0" if binary.by_gain else f"{sql_name(CLASS)} = {RELEVANT_CLASS}"


def with_judgment(gains: DataFrame, binary: Binary) -> DataFrame:
    """Each judgment with what a ranked row needs of it (JUDGMENT): for Rprec and bpref, its
    query's R and judged non-relevant count N, from a window per query that needs no sort of
    its own, since the copies check leaves the judgments in query order."""
    if not binary.judgment:
        return gains
    relevant = F.expr(_judgment_relevant(binary))
    if not binary.per_query:
        return gains.withColumn(JUDGMENT, indicator(relevant).cast(T.LongType()))
    per_query = Window.partitionBy(c.QUERY_ID)
    nonrelevant = F.col(CLASS) == NONRELEVANT_CLASS
    count_r = F.sum(indicator(relevant)).over(per_query)
    count_n = F.sum(indicator(nonrelevant)).over(per_query) if binary.bpref else F.lit(0)
    packed = F.shiftleft(count_r.cast(T.LongType()), _SHIFT).bitwiseOR(count_n.cast(T.LongType()))
    judgment = F.when(relevant, packed)
    if binary.bpref:
        judgment = judgment.when(nonrelevant, F.lit(NONRELEVANT_CLASS).cast(T.LongType()))
    return gains.withColumn(JUDGMENT, judgment.otherwise(F.lit(0).cast(T.LongType())))


def joined_columns(binary: Binary) -> list[str]:
    """The judgments' columns the ranked rows take from the join."""
    return [JUDGMENT] if binary.judgment else []


def labelled(binary: Binary) -> list[Column]:
    """The joined columns on a ranked row, right after the join: an unjudged document (NULL)
    is neither relevant nor judged non-relevant."""
    return [F.coalesce(F.col(JUDGMENT), F.lit(0).cast(T.LongType())).alias(JUDGMENT)] if binary.judgment else []


def relevant_row(binary: Binary) -> str:
    """SQL condition: the ranked row is relevant at the level."""
    return f"{sql_name(c.GAIN)} > 0" if binary.by_gain else f"{sql_name(JUDGMENT)} > 0"


def running_counts(binary: Binary) -> dict[str, str]:
    """Running counts in rank order: relevant rows, and judged non-relevant ones for bpref."""
    counts = {} if binary.by_gain else {CUM_REL: relevant_row(binary)}
    if binary.bpref:
        counts[CUM_NONREL] = f"{sql_name(JUDGMENT)} < 0"
    return counts


def kept_rows(binary: Binary) -> str | None:
    """The rows the aggregation reads beyond the cutoffs: each relevant row, when a measure reads it."""
    return relevant_row(binary) if binary.per_row else None


def ranked_columns(binary: Binary) -> list[Column]:
    """What the aggregation reads of a ranked row beyond the NDCG's: whether it is relevant (from
    its gain, or its JUDGMENT, after the sort), its running counts, and JUDGMENT."""
    return [
        F.expr(relevant_row(binary)).alias(RELEVANT),
        *[F.col(name) for name in running_counts(binary)],
        *([F.col(JUDGMENT)] if binary.per_query else []),
    ]


def _query_relevant() -> str:
    """R, from a relevant row's JUDGMENT."""
    return f"shiftright({sql_name(JUDGMENT)}, {_SHIFT})"


def _query_nonrelevant() -> str:
    """N, from a relevant row's JUDGMENT."""
    return f"({sql_name(JUDGMENT)} & {_LOW})"


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
    total = _query_relevant()
    if binary.named("Rprec"):
        # The relevant rows within the top R.
        aggregates.append(F.expr(f"count(CASE WHEN {rel} AND {pos} <= {total} THEN 1 END) AS {sql_name(RPREC_REL)}"))
    if binary.bpref:
        # trec_eval: each relevant document scores 1 - min(n, R) / min(R, N), n the judged
        # non-relevant documents above it, N all of the query's; 1 when n is 0.
        above, judged_nonrel = sql_name(CUM_NONREL), _query_nonrelevant()
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
    return {_LEVEL_RELEVANT: f"sum(CASE WHEN {_judgment_relevant(binary)} THEN 1 ELSE 0 END)"}


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
