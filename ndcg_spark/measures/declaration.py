"""What a measure is: one declaration (its names, parameters, places, formula and how queries
combine), and one measure asked for (a declaration at one cutoff or parameter).

A declaration's formula is written once over `Ingredients`: the per-(run, query) facts the main
pass can give (counts at a cutoff, sums over the relevant rows, R, ...), combined in the algebra
of measures/terms.py. Each engine implements the ingredients: the Spark engine as SQL text (the
formula then builds SQL), the embedded engine as numpy arrays (the formula then computes the
values). What a measure needs from the pass is what its formula reads, so needs and formula
cannot disagree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ndcg_spark.measures.terms import Term


class Element(Protocol):
    """An element of a list ingredient: its fields (pos, dcg, gain, ...) are terms."""

    def __getattr__(self, field: str) -> Any: ...
    def of_pair(self, term: Term) -> Term:
        """A term of the (run, query) row, seen from this element."""
        ...


class Positives(Protocol):
    """A list ingredient, one list per (run, query) row, walked in its order."""

    def size(self) -> Term: ...
    def sum(self, term: Callable[[Any], Term]) -> Term:
        """The sum of term over the elements, sequentially in order, from 0.0."""
        ...

    def filter(self, keep: Callable[[Any], Term]) -> Positives: ...
    def at(self, position: Term, row: Any = None) -> Any:
        """The element at position (from 1), read from `row` of another list when given."""
        ...

    def fold(self, start: tuple[float, ...], step: Callable[[tuple[Any, ...], Any], tuple[Term, ...]]) -> tuple[Term, ...]:
        """A state of a few numbers carried through the elements in order; its final value."""
        ...


# How a declaration takes parameters, as trec_eval's -m name.params gives them:
# none; cutoffs (positive whole numbers, one measure each: P.5,10); levels (numbers, one measure
# each, printed %.2f: iprec_at_recall.0.1,0.5); coefficients (one measure for all the numbers,
# printed as given when not the defaults: utility.2,-1,0,0).
ParamKind = Literal["none", "cutoffs", "levels", "coefficients"]
NO_PARAMS: ParamKind = "none"
CUTOFFS: ParamKind = "cutoffs"
LEVELS: ParamKind = "levels"
COEFFICIENTS: ParamKind = "coefficients"

# How per-query values combine into the summary's (trec_eval's 'all'): the arithmetic mean; the
# geometric mean of max(value, MIN_GEO_MEAN) (gm_map, gm_bpref); the sum (the counts).
Combine = Literal["mean", "geometric", "sum"]
MEAN: Combine = "mean"
GEOMETRIC: Combine = "geometric"
SUM: Combine = "sum"
MIN_GEO_MEAN = 0.00001  # trec_eval's floor for the geometric means

# The named sets trec_eval's -m takes (measures.c's nicknames).
OFFICIAL = "official"
ALL_TREC = "all_trec"


class Ingredients(Protocol):
    """The facts of the (run, query) rows that a formula can read, as terms of one engine. Counts
    are whole numbers and 0 for a run lacking the query (trec_eval -c); relevant means graded at
    least the relevance level (trec_eval -l); k None means the whole list. trec_eval_version: whose
    rules the formulas follow where trec_eval's versions differ (9 or 10)."""

    trec_eval_version: int

    def constant(self, value: float) -> Term:
        """The same DOUBLE on every row."""
        ...

    def retrieved(self) -> Term: ...
    def relevant(self) -> Term: ...
    def relevant_retrieved(self, k: int | None) -> Term: ...
    def positives(self) -> Term:
        """The query's judged documents of gain > 0 (NDCG's relevant, whatever the level)."""
        ...

    def positives_retrieved(self, k: int | None) -> Term:
        """Retrieved documents of gain > 0 in the top k."""
        ...

    def judged_retrieved(self, k: int | None) -> Term:
        """Judged documents (any grade) in the top k."""
        ...

    def nonrelevant_retrieved(self, k: int | None) -> Term:
        """Judged documents graded from 0 to below the level, in the top k."""
        ...

    def precision_sum(self, k: int | None) -> Term:
        """The sum of the precision at each relevant document in the top k (DOUBLE)."""
        ...

    def first_relevant(self) -> Term:
        """The position of the first relevant document (NULL when none)."""
        ...

    def relevant_within_multiple(self, multiple: float) -> Term:
        """Relevant documents in the top floor(multiple * R + 0.9) (trec_eval's Rprec_mult)."""
        ...

    def bpref_sum(self) -> Term: ...
    def interpolated_precision(self, recall: float, depth: Callable[[Term], Term]) -> Term:
        """The highest precision at a relevant document whose running count reaches
        max(depth(R), 1) (NULL when none); depth turns a query's R into the count the level asks."""
        ...

    def infap_sum(self) -> Term: ...
    def bing_sum(self) -> Term: ...
    def grade_discount_sum(self, persistence: float) -> Term:
        """The sum of grade * persistence^(position - 1) over documents graded above 0."""
        ...

    def max_grade(self) -> Term:
        """The query's highest grade among its judgments."""
        ...

    def judged_discount_sum(self, persistence: float) -> Term:
        """The sum of persistence^(position - 1) over judged documents graded 0 or more."""
        ...

    def ranked_positives(self) -> Positives:
        """The retrieved documents of gain > 0, in rank order: elements with pos, dcg (the DCG down
        to it), gain and cum_gain (the gains down to it)."""
        ...

    def ideal_positives(self) -> Positives:
        """The ideal list's documents of gain > 0, in order (element i at position i): elements
        with pos, idcg (the ideal DCG down to it), gain and cost (the sum of max(gain, 1) down to
        it)."""
        ...

    def ranked_graded(self) -> Positives:
        """The retrieved documents graded above 0, in rank order: elements with pos and grade."""
        ...

    def dcg_within(self, depth: Term, row: Any) -> Term:
        """The DCG of the top `depth` documents, `depth` read on `row`, an element of a list."""
        ...

    def dcg(self, k: int | None) -> Term:
        """DCG of the top k (DOUBLE)."""
        ...

    def ideal_dcg(self, k: int | None) -> Term:
        """DCG of the top k of the ideal list (DOUBLE)."""
        ...


Formula = Callable[[Ingredients, "Measure"], Term]


@dataclass(frozen=True)
class Details:
    """What a per-query row reports beside its value, as terms: its DCG and ideal DCG (None: the
    columns are NULL), R and the relevant documents retrieved at the row's cutoff."""

    dcg: Term | None
    ideal_dcg: Term | None
    relevant: Term
    relevant_retrieved: Term


def counted_details(i: Ingredients, m: Measure) -> Details:
    """A measure of relevance at the level: no DCG; R and rel(k) at the level."""
    return Details(None, None, i.relevant(), i.relevant_retrieved(m.k))


def gain_details(i: Ingredients, m: Measure) -> Details:
    """NDCG: its DCG and ideal DCG at k; relevant is gain > 0, whatever the level (trec_eval's
    ndcg reads gains, not -l)."""
    return Details(i.dcg(m.k), i.ideal_dcg(m.k), i.positives(), i.positives_retrieved(m.k))


@dataclass(frozen=True, order=True)
class Measure:
    """One value per query: the declaration `name` at cutoff `k` (None without one) and with
    parameter `param`, trec_eval's text of a parameter that is not a cutoff ("0.10" for
    iprec_at_recall, "2,-1,0,0" for utility; None for the defaults of a coefficients measure)."""

    name: str
    k: int | None = None
    param: str | None = None

    @property
    def reported(self) -> str:
        """The reports' `measure` column: the name, with a parameter that is not a cutoff as
        trec_eval prints it (iprec_at_recall_0.10, utility_2,-1,0,0); the cutoff is in `k`."""
        return self.name if self.param is None else f"{self.name}_{self.param}"

    @property
    def asked(self) -> str:
        """How trec_eval's -m (and --measure) asks for it: P.5, map, iprec_at_recall.0.10."""
        suffix = self.param if self.k is None else str(self.k)
        return self.name if suffix is None else f"{self.name}.{suffix}"

    @property
    def trec_eval(self) -> str:
        """The name trec_eval prints: P_5, ndcg_cut_10, map, iprec_at_recall_0.10."""
        return self.reported if self.k is None else f"{self.reported}_{self.k}"


@dataclass(frozen=True)
class Declaration:
    """One measure, declared once: everything the parser, the pass, the summary, the reports and
    the docs know of it.

    name: trec_eval's. summary: one line. formula: the per-query value as the docs print it, and
    source: where it is defined (trec_eval's m_*.c, or the paper). ir_measures: its names there
    for the measure without a cutoff and at @k (None when it has none). params, defaults: what
    -m name.params takes, and what a name alone asks for. value: the per-query formula (None: a
    trec_eval measure not supported yet). combine: how queries make the summary. report: its place
    in the reports' tables (trec_eval's printing order is the catalogue's). sets: the -m
    nicknames it belongs to. per_query_printed: whether trec_eval -q prints its per-query lines
    (gm_map prints only 'all'). whole: printed as a whole number (the counts). ir_cutoff: a
    cutoff that only ir_measures' syntax takes (RR@10; trec_eval has no recip_rank.10).
    bounded: every per-query value lies in [-1, 1] (what the summary's exact sums take; utility's
    do not). text: not a number (runid, relstring): only trec_eval's printed report has it.
    larger_is_better: whether a higher value is a better ranking (False for unj, rbp_resid,
    num_nonrel_judged_ret; what NdcgEvaluator.isLargerBetter says). details: what its per-query
    rows report beside the value (gain_details: NDCG's DCG, ideal DCG and counts by gain).
    param_names: a coefficients measure's parameters by name, as trec_eval 10.0 also takes them
    (rbp.p=0.8, printed rbp_p=0.8)."""

    name: str
    summary: str
    formula: str
    source: str
    value: Formula | None
    report: int
    params: ParamKind = NO_PARAMS
    defaults: tuple[float, ...] = ()
    ir_measures: tuple[str, ...] = ()
    ir_measures_cut: tuple[str, ...] = ()
    combine: Combine = MEAN
    sets: frozenset[str] = field(default_factory=lambda: frozenset({ALL_TREC}))
    per_query_printed: bool = True
    whole: bool = False
    ir_cutoff: bool = False
    bounded: bool = True
    text: bool = False
    larger_is_better: bool = True
    details: Callable[[Ingredients, Measure], Details] = counted_details
    param_names: tuple[str, ...] = ()

    @property
    def supported(self) -> bool:
        return self.value is not None

    @property
    def takes_cutoff(self) -> bool:
        return self.params == CUTOFFS or self.ir_cutoff

    def default_measures(self) -> list[Measure]:
        """What the name alone asks for: each default cutoff or level, or the measure itself."""
        if self.params == CUTOFFS:
            return [Measure(self.name, int(k)) for k in self.defaults]
        if self.params == LEVELS:
            return [Measure(self.name, None, level_text(level)) for level in self.defaults]
        return [Measure(self.name)]

    def values_of(self, measure: Measure) -> tuple[float, ...]:
        """The measure's parameter as numbers: its level, or its coefficients (the defaults when
        not given)."""
        if measure.param is None:
            return self.defaults
        parts = measure.param.split(",")
        if self.param_names and all("=" in part for part in parts):
            named = dict(part.split("=", 1) for part in parts)
            return tuple(float(named.get(name, default)) for name, default in zip(self.param_names, self.defaults, strict=True))
        return tuple(float(part) for part in parts)


def level_text(level: float) -> str:
    """A level as trec_eval prints it in a measure's name: two decimals (0.10, 5.00)."""
    return f"{level:.2f}"
