"""Every measure asked for (the catalogue's, NDCG as any other), computed in the main pass's own
windows.

A document is relevant when its grade is at least the relevance level (trec_eval -l). Each
measure's formula (measures/catalogue.py) reads ingredients; `PassIngredients` gives each one as
a column of the (run, query) row and records it, so that the pass computes exactly what the
formulas read. An ingredient is a running count or sum over the ranked list read at a cutoff
(DCG at k, relevant retrieved at k, judged non-relevant at k, discounted sums at the list's end),
the ideal DCG at k from the ideal list's window, or an
aggregate over the relevant rows (precision sums, the first relevant position, interpolated
precision, infAP's and binG's terms). Those that need the query's R on each relevant row
(Rprec, Rprec_mult, iprec_at_recall, bpref and its N) take it from a window over the judgments
per query, on the order their copies check already sorted them in, packed in the one field a
ranked row takes from its judgment. Dividing by R waits until the (run, query) row meets the
ideal side's R.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.frames import indicator, sql_name
from ndcg_spark.measures import Measure, declaration_of
from ndcg_spark.measures.terms import Sql, SqlList, Term, literal
from ndcg_spark.scoring.plan import ScoringPlan
from ndcg_spark.scoring.ranking import BIGINT, CUM_RELEVANT, at_cutoff, counted

# Columns of the judgments and of the ranked rows. What a ranked row takes from its judgment
# travels through the ranking's sort, where each field costs every row 8 bytes: so it is one
# BIGINT, JUDGMENT, not a field per fact (and the grade only when rbp asks for it).
CLASS = "_class"  # on a judgment: RELEVANT_CLASS, NONRELEVANT_CLASS or 0 (graded < 0)
RELEVANT_CLASS = 1  # grade >= level
NONRELEVANT_CLASS = -1  # judged, 0 <= grade < level
# On a judgment and a ranked row: > 0 relevant, < 0 judged non-relevant, 0 neither (unjudged,
# or graded below 0). When some measure needs R on the rows, a relevant one holds its query's R
# and N (judged non-relevant): R * 2^32 + N, exact while a query has fewer than 2^31 judgments.
JUDGMENT = "_judgment"
GRADE = "_grade"
_SHIFT = 32
_LOW = (1 << _SHIFT) - 1
RELEVANT = "_relevant"  # on a ranked row after the sort: relevant at the level
CUM_REL = "_cum_rel"
CUM_NONREL = "_cum_nonrel"
CUM_NEGATIVE = "_cum_negative"  # judged documents graded below 0 (trec_eval's unjudged in the pool)
# Columns of the (run, query) rows.
REL_RET = "rel_ret"  # relevant retrieved, per cutoff: c.at_cutoff(REL_RET, k)
NONREL_RET = "nonrel_ret"  # judged non-relevant retrieved, per cutoff
AP_SUM = "ap_sum"  # sum of the precision at each relevant document, per cutoff
FIRST_REL = "first_rel"
BPREF_SUM = "bpref_sum"
INFAP_SUM = "infap_sum"
BING_SUM = "bing_sum"
MAX_GRADE = "max_grade"
NUM_RELEVANT_LEVEL = "num_relevant_level"  # the ideal side's R
# G, ndcg_rel and Rndcg walk the run's list beside the ideal one: each side's rows of gain > 0,
# as an array sorted by position (the ranked rows per (run, query), the ideal's per query).
CUM_GAIN = "_cum_gain"
CUM_COST = "_cum_cost"
RANKED_POSITIVES = "_ranked_positives"
IDEAL_POSITIVES = "_ideal_positives"
RANKED_POSITIVES_TYPE = "ARRAY<STRUCT<pos: INT, dcg: DOUBLE, gain: DOUBLE, cum_gain: DOUBLE>>"
# err walks the retrieved documents graded above 0: (pos, grade), sorted by position.
RANKED_GRADED = "_ranked_graded"
RANKED_GRADED_TYPE = "ARRAY<STRUCT<pos: INT, grade: DOUBLE>>"
IDEAL_POSITIVES_TYPE = "ARRAY<STRUCT<pos: INT, idcg: DOUBLE, gain: DOUBLE, cost: DOUBLE>>"
_INFAP_EPSILON = 0.00001  # trec_eval's INFAP_EPSILON


@dataclass
class Needs:
    """What the formulas read of the pass, recorded as they are built. level: some formula reads
    relevance at the level (else gain > 0 serves, whatever the level)."""

    level: bool = False
    judged_ks: set[int | None] = field(default_factory=set)
    dcg_ks: set[int | None] = field(default_factory=set)
    ideal_ks: set[int | None] = field(default_factory=set)
    positive_ks: set[int | None] = field(default_factory=set)
    rel_ks: set[int | None] = field(default_factory=set)
    nonrel_ks: set[int | None] = field(default_factory=set)
    ap_ks: set[int | None] = field(default_factory=set)
    first_rel: bool = False
    multiples: set[float] = field(default_factory=set)
    bpref: bool = False
    recalls: dict[float, str] = field(default_factory=dict)  # level -> SQL of its count, per row
    infap: bool = False
    bing: bool = False
    grade_sums: set[float] = field(default_factory=set)
    max_grade: bool = False
    judged_sums: set[float] = field(default_factory=set)
    positives: bool = False
    graded_rows: bool = False


class PassIngredients:
    """The ingredients as columns of the (run, query) row (see measures.Ingredients), each one
    recorded in `needs` when a formula reads it. by_gain: relevant at the level is gain > 0 (the
    plan's by_gain), so the counts by gain serve."""

    def __init__(self, by_gain: bool, trec_eval_version: int) -> None:
        self.by_gain = by_gain
        self.trec_eval_version = trec_eval_version
        self.total = c.NUM_RELEVANT if by_gain else NUM_RELEVANT_LEVEL
        self.needs = Needs()

    def _level(self) -> None:
        self.needs.level = True

    @staticmethod
    def _count(name: str) -> Sql:
        return Sql(f"coalesce({sql_name(name)}, 0L)")

    @staticmethod
    def _sum(name: str) -> Sql:
        return Sql(f"coalesce({sql_name(name)}, 0.0D)")

    def constant(self, value: float) -> Sql:
        return Sql(literal(float(value)))

    def retrieved(self) -> Sql:
        return self._count(c.NUM_RETRIEVED)

    def relevant(self) -> Sql:
        self._level()
        return self._count(self.total)

    def relevant_retrieved(self, k: int | None) -> Sql:
        if self.by_gain:
            return self.positives_retrieved(k)
        self._level()
        self.needs.rel_ks.add(k)
        return self._count(c.at_cutoff(REL_RET, k))

    def positives(self) -> Sql:
        return Sql(sql_name(c.NUM_RELEVANT))  # the ideal side's: set on every scored row

    def positives_retrieved(self, k: int | None) -> Sql:
        self.needs.positive_ks.add(k)
        return self._count(c.at_cutoff(c.NUM_RELEVANT_RETRIEVED, k))

    def judged_retrieved(self, k: int | None) -> Sql:
        self.needs.judged_ks.add(k)
        return self._count(c.at_cutoff(c.NUM_JUDGED_RETRIEVED, k))

    def nonrelevant_retrieved(self, k: int | None) -> Sql:
        self._level()
        self.needs.nonrel_ks.add(k)
        return self._count(c.at_cutoff(NONREL_RET, k))

    def precision_sum(self, k: int | None) -> Sql:
        self._level()
        self.needs.ap_ks.add(k)
        return self._sum(c.at_cutoff(AP_SUM, k))

    def first_relevant(self) -> Sql:
        self._level()
        self.needs.first_rel = True
        return Sql(sql_name(FIRST_REL))

    def relevant_within_multiple(self, multiple: float) -> Sql:
        self._level()
        self.needs.multiples.add(multiple)
        return Sql(f"coalesce({sql_name(multiple_column(multiple))}, 0L)")

    def bpref_sum(self) -> Sql:
        self._level()
        self.needs.bpref = True
        return self._sum(BPREF_SUM)

    def interpolated_precision(self, recall: float, depth: Callable[[Term], Term]) -> Sql:
        self._level()
        self.needs.recalls[recall] = literal(depth(Sql(_query_relevant())))
        return Sql(sql_name(recall_column(recall)))

    def infap_sum(self) -> Sql:
        self._level()
        self.needs.infap = True
        return self._sum(INFAP_SUM)

    def bing_sum(self) -> Sql:
        self._level()
        self.needs.bing = True
        return self._sum(BING_SUM)

    def grade_discount_sum(self, persistence: float) -> Sql:
        self.needs.grade_sums.add(persistence)
        return self._sum(discount_column("_grade_sum", persistence))

    def max_grade(self) -> Sql:
        self.needs.max_grade = True
        return Sql(sql_name(MAX_GRADE))

    def judged_discount_sum(self, persistence: float) -> Sql:
        self._level()
        self.needs.judged_sums.add(persistence)
        self.needs.nonrel_ks.add(None)
        return self._sum(discount_column("_judged_sum", persistence))

    def ranked_positives(self) -> SqlList:
        self.needs.positives = True
        return SqlList(f"coalesce({sql_name(RANKED_POSITIVES)}, CAST(array() AS {RANKED_POSITIVES_TYPE}))", "r")

    def ideal_positives(self) -> SqlList:
        self.needs.positives = True
        return SqlList(f"coalesce({sql_name(IDEAL_POSITIVES)}, CAST(array() AS {IDEAL_POSITIVES_TYPE}))", "x")

    def ranked_graded(self) -> SqlList:
        self.needs.graded_rows = True
        return SqlList(f"coalesce({sql_name(RANKED_GRADED)}, CAST(array() AS {RANKED_GRADED_TYPE}))", "d")

    def dcg_within(self, depth: Term, row: object) -> Sql:
        """The DCG of the top `depth` documents: the running DCG at the last positive row within."""
        ranked = self.ranked_positives().text
        return Sql(f"aggregate(filter({ranked}, r -> r.pos <= {literal(depth)}), 0.0D, (acc, r) -> greatest(acc, r.dcg))")

    def dcg(self, k: int | None) -> Sql:
        self.needs.dcg_ks.add(k)
        return Sql(f"coalesce({sql_name(c.at_cutoff(c.DCG, k))}, 0.0D)")

    def ideal_dcg(self, k: int | None) -> Sql:
        self.needs.ideal_ks.add(k)
        return Sql(sql_name(c.at_cutoff(c.IDCG, k)))


def multiple_column(multiple: float) -> str:
    return f"_rel_within_{multiple!r}".replace(".", "_")


def recall_column(recall: float) -> str:
    return f"_iprec_{recall!r}".replace(".", "_")


def discount_column(prefix: str, persistence: float) -> str:
    return f"{prefix}_{persistence!r}".replace(".", "_")


@dataclass(frozen=True)
class Formulas:
    """The measures asked for, with the SQL of each one's value and of what its row reports
    beside it (measures.Details), and what the pass must compute for them. level: the grade from
    which a document is relevant. by_gain: relevant is gain > 0 (the plan's by_gain, or no
    formula reads relevance at the level), so the running counts by gain serve."""

    measures: tuple[Measure, ...]
    level: int = 1
    by_gain: bool = True
    values: tuple[str, ...] = ()
    details: tuple[tuple[str, str, str, str], ...] = ()
    needs: Needs = field(default_factory=Needs)

    @property
    def cum_rel(self) -> str:
        """The running count of relevant rows."""
        return CUM_RELEVANT if self.by_gain else CUM_REL

    @property
    def ks(self) -> list[int]:
        """The positions some cutoff of the ranked list reads: every measure's own k (its
        judged@k), and those of the running values the formulas read."""
        n = self.needs
        asked = {measure.k for measure in self.measures} | n.rel_ks | n.nonrel_ks | n.dcg_ks | n.positive_ks | n.judged_ks
        return sorted(k for k in asked if k is not None)

    @property
    def ideal_ks(self) -> list[int]:
        """The positions of the ideal list some ideal DCG reads."""
        return sorted(k for k in self.needs.ideal_ks if k is not None)

    @property
    def judged_ks(self) -> list[int | None]:
        """The cutoffs judged@k is reported at (every measure's, and the whole list when one has
        no cutoff), and those a formula reads the judged count at."""
        return sorted({measure.k for measure in self.measures} | self.needs.judged_ks, key=c.cutoff_order)

    @property
    def ap_ks(self) -> list[int | None]:
        return sorted(self.needs.ap_ks, key=c.cutoff_order)

    @property
    def nonrelevant(self) -> bool:
        """Whether judged non-relevant documents are counted (on the judgments, as CLASS)."""
        return bool(self.needs.nonrel_ks) or self.needs.bpref or self.needs.infap

    @property
    def per_row(self) -> bool:
        """Whether some measure reads each relevant row, not only the rows at the cutoffs."""
        n = self.needs
        return bool(n.ap_ks or n.first_rel or n.multiples or n.bpref or n.recalls or n.infap or n.bing)

    @property
    def per_query(self) -> bool:
        """Whether some measure needs the query's R on the ranked rows."""
        return bool(self.needs.multiples or self.needs.recalls or self.needs.bpref)

    @property
    def graded(self) -> bool:
        """Whether the ranked rows carry their grade (rbp, err)."""
        return bool(self.needs.grade_sums) or self.needs.graded_rows

    @property
    def by_cutoff(self) -> list[tuple[str, str, str | None, list[int | None]]]:
        """The running values read at cutoffs: (running column, reported column, its SQL type
        when a cast is due (counts; None for the DCG, a double), cutoffs)."""
        n = self.needs
        return [
            (c.CUM_DCG, c.DCG, None, sorted(n.dcg_ks, key=c.cutoff_order)),
            (CUM_RELEVANT, c.NUM_RELEVANT_RETRIEVED, BIGINT, sorted(n.positive_ks, key=c.cutoff_order)),
            (CUM_REL, REL_RET, BIGINT, [] if self.by_gain else sorted(n.rel_ks, key=c.cutoff_order)),
            (CUM_NONREL, NONREL_RET, BIGINT, sorted(n.nonrel_ks, key=c.cutoff_order)),
        ]

    @property
    def classed(self) -> bool:
        """Whether the judgments carry CLASS: relevance is not the gain's, or non-relevant
        documents are counted."""
        return not self.by_gain or self.nonrelevant

    @property
    def judgment(self) -> bool:
        """Whether the ranked rows carry JUDGMENT: relevance is not the gain's, or a measure needs
        the non-relevant ones or the query's counts."""
        return not self.by_gain or self.per_query or self.nonrelevant


def relevance_columns(relevance: Column, formulas: Formulas) -> list[Column]:
    """A judgment's class at the level (CLASS), when relevance cannot be read from the gain or
    non-relevant documents are counted; and its grade, when rbp reads it."""
    columns = [relevance.alias(GRADE)] if formulas.graded or formulas.needs.max_grade else []
    if not formulas.classed:
        return columns
    level = F.lit(formulas.level)
    classed = F.when(relevance >= level, F.lit(RELEVANT_CLASS))
    if formulas.nonrelevant:
        classed = classed.when(relevance >= 0, F.lit(NONRELEVANT_CLASS))
    return [*columns, classed.otherwise(F.lit(0)).alias(CLASS)]


def _judgment_relevant(formulas: Formulas) -> str:
    """SQL condition: the judgment is relevant at the level."""
    return f"{sql_name(c.GAIN)} > 0" if formulas.by_gain else f"{sql_name(CLASS)} = {RELEVANT_CLASS}"


def with_judgment(gains: DataFrame, formulas: Formulas) -> DataFrame:
    """Each judgment with what a ranked row needs of it (JUDGMENT): when R is needed on the rows,
    its query's R and judged non-relevant count N, from a window per query that needs no sort of
    its own, since the copies check leaves the judgments in query order."""
    if not formulas.judgment:
        return gains
    relevant = F.expr(_judgment_relevant(formulas))
    nonrelevant = F.col(CLASS) == NONRELEVANT_CLASS
    if not formulas.per_query:
        judgment = F.when(relevant, F.lit(1).cast("bigint"))
    else:
        per_query = Window.partitionBy(c.QUERY_ID)
        count_r = F.sum(indicator(relevant)).over(per_query)
        count_n = F.sum(indicator(nonrelevant)).over(per_query) if formulas.nonrelevant else F.lit(0)
        judgment = F.when(relevant, F.shiftleft(count_r.cast("bigint"), _SHIFT).bitwiseOR(count_n.cast("bigint")))
    if formulas.nonrelevant:
        judgment = judgment.when(nonrelevant, F.lit(NONRELEVANT_CLASS).cast("bigint"))
    return gains.withColumn(JUDGMENT, judgment.otherwise(F.lit(0).cast("bigint")))


def joined_columns(formulas: Formulas) -> list[str]:
    """The judgments' columns the ranked rows take from the join."""
    return [*([JUDGMENT] if formulas.judgment else []), *([GRADE] if formulas.graded else [])]


def labelled(formulas: Formulas) -> list[Column]:
    """The joined columns on a ranked row, right after the join: an unjudged document (NULL)
    is neither relevant nor judged non-relevant, and grades 0."""
    judgment = [F.coalesce(F.col(JUDGMENT), F.lit(0).cast("bigint")).alias(JUDGMENT)] if formulas.judgment else []
    grade = [F.coalesce(F.col(GRADE).cast("double"), F.lit(0.0)).alias(GRADE)] if formulas.graded else []
    return [*judgment, *grade]


def relevant_row(formulas: Formulas) -> str:
    """SQL condition: the ranked row is relevant at the level."""
    return f"{sql_name(c.GAIN)} > 0" if formulas.by_gain else f"{sql_name(JUDGMENT)} > 0"


def running_sums(formulas: Formulas, judged: str, position: str) -> dict[str, str]:
    """Running sums in rank order (SQL terms, 0 on the rows the pass drops before summing):
    relevant rows, judged non-relevant ones, judged ones graded below 0, and the discounted sums
    rbp and rbp_resid read at the list's end."""
    sums = {} if formulas.by_gain else {CUM_REL: counted(relevant_row(formulas))}
    if formulas.nonrelevant:
        sums[CUM_NONREL] = counted(f"{sql_name(JUDGMENT)} < 0")
    if formulas.needs.infap:
        sums[CUM_NEGATIVE] = counted(f"{sql_name(judged)} AND {sql_name(JUDGMENT)} = 0")
    pos = f"CAST({sql_name(position)} AS DOUBLE) - 1.0D"
    for p in sorted(formulas.needs.grade_sums):
        grade = sql_name(GRADE)
        sums[discount_column("_grade_sum", p)] = f"CASE WHEN {grade} > 0 THEN {grade} * pow({p!r}D, {pos}) ELSE 0.0D END"
    if formulas.needs.positives:
        sums[CUM_GAIN] = f"CASE WHEN {sql_name(c.GAIN)} > 0 THEN {sql_name(c.GAIN)} ELSE 0.0D END"
    for p in sorted(formulas.needs.judged_sums):
        sums[discount_column("_judged_sum", p)] = f"CASE WHEN {sql_name(JUDGMENT)} <> 0 THEN pow({p!r}D, {pos}) ELSE 0.0D END"
    return sums


def kept_rows(formulas: Formulas) -> str | None:
    """The rows the aggregation reads beyond the cutoffs: each relevant row, when a measure reads
    it, and each row of gain > 0 when G, ndcg_rel or Rndcg walk them."""
    kept = [relevant_row(formulas)] if formulas.per_row else []
    if formulas.needs.positives:
        kept.append(f"{sql_name(c.GAIN)} > 0")
    if formulas.needs.graded_rows:
        kept.append(f"{sql_name(GRADE)} > 0")
    return " OR ".join(f"({condition})" for condition in kept) or None


def ranked_columns(formulas: Formulas, judged: str, position: str) -> list[Column]:
    """What the aggregation reads of a ranked row beyond the NDCG's: whether it is relevant (from
    its gain, or its JUDGMENT, after the sort), its running sums, and JUDGMENT."""
    return [
        *([F.expr(relevant_row(formulas)).alias(RELEVANT)] if formulas.per_row else []),
        *[F.col(name) for name in running_sums(formulas, judged, position)],
        *([F.col(JUDGMENT)] if formulas.per_query else []),
        *([F.col(c.GAIN)] if formulas.needs.positives else []),
        *([F.col(GRADE)] if formulas.needs.graded_rows else []),
    ]


def _query_relevant() -> str:
    """R, from a relevant row's JUDGMENT."""
    return f"shiftright({sql_name(JUDGMENT)}, {_SHIFT})"


def _query_nonrelevant() -> str:
    """N, from a relevant row's JUDGMENT."""
    return f"({sql_name(JUDGMENT)} & {_LOW})"


def _infap_term(pos: str, cum: str, nonrel: str, negative: str) -> str:
    """trec_eval's infAP term of a relevant row at (1-based) position pos: 1 at the top, else
    1/j + ((j-1)/j) * (judged above / (j-1)) * ((rel above + e) / (rel above + nonrel above + 2e))."""
    j, above = f"CAST({pos} AS DOUBLE)", f"CAST({cum} - 1 AS DOUBLE)"
    judged_above = f"({above} + CAST({nonrel} + {negative} AS DOUBLE))"
    share = f"(({above} + {_INFAP_EPSILON!r}D) / ({above} + CAST({nonrel} AS DOUBLE) + {2 * _INFAP_EPSILON!r}D))"
    return f"CASE WHEN {pos} = 1 THEN 1.0D ELSE 1.0D / {j} + (({j} - 1.0D) / {j}) * ({judged_above} / ({j} - 1.0D)) * {share} END"


def ranked_aggregates(formulas: Formulas, position: str) -> list[Column]:
    """Per (run, query), over its rows at the cutoffs and its relevant rows."""
    n = formulas.needs
    pos, rel, cum = sql_name(position), sql_name(RELEVANT), sql_name(formulas.cum_rel)
    aggregates = [
        at_cutoff(running, position, k, c.at_cutoff(reported, k), cast)
        for running, reported, cast, ks in formulas.by_cutoff
        for k in ks
    ]
    for name in [discount_column("_grade_sum", p) for p in n.grade_sums] + [
        discount_column("_judged_sum", p) for p in n.judged_sums
    ]:
        aggregates.append(at_cutoff(name, position, None, name))
    precision = f"CAST({cum} AS DOUBLE) / CAST({pos} AS DOUBLE)"
    for k in formulas.ap_ks:
        within = "" if k is None else f" AND {pos} <= {k}"
        aggregates.append(F.expr(f"sum(CASE WHEN {rel}{within} THEN {precision} END) AS {sql_name(c.at_cutoff(AP_SUM, k))}"))
    if n.first_rel:
        aggregates.append(F.expr(f"min(CASE WHEN {rel} THEN {pos} END) AS {sql_name(FIRST_REL)}"))
    total = _query_relevant()
    for multiple in sorted(n.multiples):
        depth = f"floor({multiple!r}D * CAST({total} AS DOUBLE) + 0.9D)"
        aggregates.append(
            F.expr(f"count(CASE WHEN {rel} AND {pos} <= {depth} THEN 1 END) AS {sql_name(multiple_column(multiple))}")
        )
    for recall, depth in sorted(n.recalls.items()):
        reached = f"greatest({depth}, 1.0D)"
        aggregates.append(
            F.expr(f"max(CASE WHEN {rel} AND {cum} >= {reached} THEN {precision} END) AS {sql_name(recall_column(recall))}")
        )
    if n.bpref:
        # trec_eval: each relevant document scores 1 - min(n, R) / min(R, N), n the judged
        # non-relevant documents above it, N all of the query's; 1 when n is 0.
        above, judged_nonrel = sql_name(CUM_NONREL), _query_nonrelevant()
        share = f"CAST(least({above}, {total}) AS DOUBLE) / CAST(least({total}, {judged_nonrel}) AS DOUBLE)"
        score = f"CASE WHEN {above} > 0 THEN 1.0D - {share} ELSE 1.0D END"
        aggregates.append(F.expr(f"sum(CASE WHEN {rel} THEN {score} END) AS {sql_name(BPREF_SUM)}"))
    if n.infap:
        term = _infap_term(pos, cum, sql_name(CUM_NONREL), sql_name(CUM_NEGATIVE))
        aggregates.append(F.expr(f"sum(CASE WHEN {rel} THEN {term} END) AS {sql_name(INFAP_SUM)}"))
    if n.bing:
        term = f"1.0D / log2(2.0D + CAST({pos} AS DOUBLE) - CAST({cum} AS DOUBLE))"
        aggregates.append(F.expr(f"sum(CASE WHEN {rel} THEN {term} END) AS {sql_name(BING_SUM)}"))
    if n.positives:
        gain = sql_name(c.GAIN)
        dcg, gained = sql_name(c.CUM_DCG), sql_name(CUM_GAIN)
        row = f"named_struct('pos', CAST({pos} AS INT), 'dcg', {dcg}, 'gain', {gain}, 'cum_gain', {gained})"
        aggregates.append(
            F.expr(f"array_sort(collect_list(CASE WHEN {gain} > 0 THEN {row} END)) AS {sql_name(RANKED_POSITIVES)}")
        )
    if n.graded_rows:
        grade = sql_name(GRADE)
        row = f"named_struct('pos', CAST({pos} AS INT), 'grade', {grade})"
        aggregates.append(F.expr(f"array_sort(collect_list(CASE WHEN {grade} > 0 THEN {row} END)) AS {sql_name(RANKED_GRADED)}"))
    return aggregates


def ideal_sums(formulas: Formulas) -> dict[str, str]:
    """Running sums over the ideal list: the cost G reads (the sum of max(gain, 1))."""
    if not formulas.needs.positives:
        return {}
    gain = sql_name(c.GAIN)
    return {CUM_COST: f"CASE WHEN {gain} > 0 THEN greatest({gain}, 1.0D) ELSE 0.0D END"}


def ideal_kept(formulas: Formulas) -> str | None:
    """The ideal rows the aggregation reads beyond the cutoffs: those of gain > 0, for G,
    ndcg_rel and Rndcg."""
    return f"{sql_name(c.GAIN)} > 0" if formulas.needs.positives else None


_LEVEL_RELEVANT = "_level_relevant"
_MAX_GRADE_WHOLE = "_max_grade_whole"


def ideal_whole(formulas: Formulas) -> dict[str, str]:
    """Over the whole ideal list, before rows of gain 0 leave it: R at the level (when relevance
    is not the gain's, whose NUM_RELEVANT is R), and the highest grade (rbp)."""
    whole = {} if formulas.by_gain else {_LEVEL_RELEVANT: f"sum(CASE WHEN {_judgment_relevant(formulas)} THEN 1 ELSE 0 END)"}
    if formulas.needs.max_grade:
        whole[_MAX_GRADE_WHOLE] = f"max({sql_name(GRADE)})"
    return whole


def ideal_aggregates(formulas: Formulas) -> list[Column]:
    """Per judged query, what ideal_whole counted."""
    whole = ideal_whole(formulas)
    aggregates = []
    if _LEVEL_RELEVANT in whole:
        aggregates.append(F.expr(f"CAST(max({sql_name(_LEVEL_RELEVANT)}) AS BIGINT) AS {sql_name(NUM_RELEVANT_LEVEL)}"))
    if _MAX_GRADE_WHOLE in whole:
        aggregates.append(F.expr(f"CAST(max({sql_name(_MAX_GRADE_WHOLE)}) AS DOUBLE) AS {sql_name(MAX_GRADE)}"))
    if formulas.needs.positives:
        gain, pos = sql_name(c.GAIN), sql_name(c.IDEAL_POSITION)
        idcg, cost = sql_name(c.CUM_IDCG), sql_name(CUM_COST)
        row = f"named_struct('pos', CAST({pos} AS INT), 'idcg', {idcg}, 'gain', {gain}, 'cost', {cost})"
        aggregates.append(F.expr(f"array_sort(collect_list(CASE WHEN {gain} > 0 THEN {row} END)) AS {sql_name(IDEAL_POSITIVES)}"))
    return aggregates


def ideal_columns(formulas: Formulas) -> list[str]:
    """The ideal side's columns of a (run, query) row for the formulas measures."""
    whole = ideal_whole(formulas)
    positives = [IDEAL_POSITIVES] if formulas.needs.positives else []
    return [
        *([NUM_RELEVANT_LEVEL] if _LEVEL_RELEVANT in whole else []),
        *([MAX_GRADE] if _MAX_GRADE_WHOLE in whole else []),
        *positives,
    ]


@lru_cache(maxsize=64)
def formulas_of(plan: ScoringPlan) -> Formulas:
    """The plan's measures with their formulas built as SQL (and so what they need recorded):
    built once per plan, however many steps of the pass read it (the page's own measures too)."""
    measures = plan.scored
    ingredients = PassIngredients(plan.by_gain, plan.trec_eval_version)
    values, details = [], []
    for measure in measures:
        declaration = declaration_of(measure)
        assert declaration.value is not None, f"{measure.name} is not supported"
        values.append(str(declaration.value(ingredients, measure)))
        row = declaration.details(ingredients, measure)
        details.append((_text(row.dcg), _text(row.ideal_dcg), str(row.relevant), str(row.relevant_retrieved)))
    by_gain = plan.by_gain or not ingredients.needs.level
    return Formulas(measures, plan.relevance_level, by_gain, tuple(values), tuple(details), ingredients.needs)


NULL_DOUBLE = "CAST(NULL AS DOUBLE)"


def _text(term: Term | None) -> str:
    return NULL_DOUBLE if term is None else str(term)
