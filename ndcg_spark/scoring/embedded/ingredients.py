"""The measures' ingredients as numpy arrays, one value per scored (run, query) pair: what
scoring/formulas.py's PassIngredients gives the Spark engine as columns, computed the same way
(sequential sums in rank order, Spark's log2 and rounding), so that each formula gives the same
bits on both engines."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ndcg_spark.measures.strict_math import powers
from ndcg_spark.measures.terms import Term
from ndcg_spark.scoring.embedded.lists import Bools, Doubles, Ints, at_positions, discount, offsets, running

_INFAP_EPSILON = 0.00001  # trec_eval's INFAP_EPSILON, as scoring/formulas.py's


@dataclass(frozen=True)
class RankedRows:
    """The rows of the scored lists, in pair order and each list in rank order: pair p's rows are
    starts[p] to starts[p] + lengths[p], one after the other (no rows for a run lacking the
    query). Each row's position from 1, gain, grade (NaN unjudged), whether it is judged (with -J,
    a usable judgment), relevant at the level, judged non-relevant, or judged below 0, and its
    query's R and N at the level."""

    starts: Ints
    lengths: Ints
    position: Ints
    gain: Doubles
    grade: Doubles
    judged: Bools
    relevant: Bools
    nonrelevant: Bools
    negative: Bools
    total: Ints
    nonrelevant_total: Ints


@dataclass(frozen=True)
class IdealRows:
    """Each pair's query's ideal list: starts, lengths (per pair, into the ideal rows of every
    query); per ideal row its gain, the running ideal DCG and the running sum of max(gain, 1) over
    gains > 0 (G's cost); per pair R at the level, the count of gains > 0 (the list's first rows),
    and the highest grade."""

    starts: Ints
    lengths: Ints
    gain: Doubles
    cum_idcg: Doubles
    cum_cost: Doubles
    relevant: Ints
    positive: Ints
    max_grade: Doubles


class ArrayIngredients:
    """The ingredients (measures.Ingredients) of every scored pair, as arrays."""

    def __init__(self, ranked: RankedRows, ideal: IdealRows, trec_eval_version: int) -> None:
        self.trec_eval_version = trec_eval_version
        self.ranked = ranked
        self.ideal = ideal
        self.pairs = len(ranked.starts)

    def _at(self, values: np.ndarray, k: int | None) -> np.ndarray:
        return at_positions(values, self.ranked.starts, self.ranked.lengths, k)

    def _running(self, values: np.ndarray) -> np.ndarray:
        return running(values, self.ranked.starts, self.ranked.lengths)

    @cached_property
    def _cum_relevant(self) -> Ints:
        return self._running(self.ranked.relevant.astype(np.int64))

    @cached_property
    def _cum_nonrelevant(self) -> Ints:
        return self._running(self.ranked.nonrelevant.astype(np.int64))

    @cached_property
    def _precision(self) -> Doubles:
        """cum_rel / position on each row."""
        return self._cum_relevant.astype(np.float64) / self.ranked.position.astype(np.float64)

    def _relevant_sum(self, term: Doubles, k: int | None = None) -> Doubles:
        """The sequential sum of `term` over the relevant rows in the top k, in rank order (zeros
        between them add nothing: x + 0.0 is x)."""
        return self._at(self._running(np.where(self.ranked.relevant, term, 0.0)), k)

    def constant(self, value: float) -> Doubles:
        return np.full(self.pairs, value, dtype=np.float64)

    def retrieved(self) -> Ints:
        return self.ranked.lengths

    def relevant(self) -> Ints:
        return self.ideal.relevant

    def relevant_retrieved(self, k: int | None) -> Ints:
        return self._at(self._cum_relevant, k).astype(np.int64)

    def nonrelevant_retrieved(self, k: int | None) -> Ints:
        return self._at(self._cum_nonrelevant, k).astype(np.int64)

    def precision_sum(self, k: int | None) -> Doubles:
        return self._relevant_sum(self._precision, k)

    def first_relevant(self) -> Ints:
        """The position of the first relevant row; 0 where none (NULL on the Spark engine, which
        every formula reads as none)."""
        first = np.zeros(self.pairs, dtype=np.int64)
        rows = np.flatnonzero(self.ranked.relevant)
        pair = self._pair_of_rows[rows]
        pairs, at = np.unique(pair, return_index=True)
        first[pairs] = self.ranked.position[rows[at]]
        return first

    @cached_property
    def _pair_of_rows(self) -> Ints:
        return np.repeat(np.arange(self.pairs, dtype=np.int64), self.ranked.lengths)

    def relevant_within_multiple(self, multiple: float) -> Ints:
        depth = np.floor(multiple * self.ranked.total.astype(np.float64) + 0.9)
        within = self.ranked.relevant & (self.ranked.position <= depth)
        return np.bincount(self._pair_of_rows[within], minlength=self.pairs).astype(np.int64)

    def bpref_sum(self) -> Doubles:
        above, r, n = self._cum_nonrelevant, self.ranked.total, self.ranked.nonrelevant_total
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.minimum(above, r).astype(np.float64) / np.minimum(r, n).astype(np.float64)
        return self._relevant_sum(np.where(above > 0, 1.0 - share, 1.0))

    def interpolated_precision(self, recall: float, depth: Callable[[Term], Term]) -> Doubles:
        """The highest precision at a relevant row whose running count reaches max(depth(R), 1);
        NaN where none (NULL on the Spark engine)."""
        reached = np.maximum(np.asarray(depth(self.ranked.total), dtype=np.float64), 1.0)
        rows = self.ranked.relevant & (self._cum_relevant >= reached)
        best = np.full(self.pairs, -np.inf)
        np.maximum.at(best, self._pair_of_rows[rows], self._precision[rows])
        return np.where(np.isneginf(best), np.nan, best)

    def infap_sum(self) -> Doubles:
        j = self.ranked.position.astype(np.float64)
        above = (self._cum_relevant - 1).astype(np.float64)
        nonrel = self._cum_nonrelevant
        negative = self._running(self.ranked.negative.astype(np.int64))
        judged_above = above + (nonrel + negative).astype(np.float64)
        share = (above + _INFAP_EPSILON) / (above + nonrel.astype(np.float64) + 2 * _INFAP_EPSILON)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = 1.0 / j + ((j - 1.0) / j) * (judged_above / (j - 1.0)) * share
        return self._relevant_sum(np.where(self.ranked.position == 1, 1.0, term))

    def bing_sum(self) -> Doubles:
        from ndcg_spark.measures.strict_math import log2

        pos, cum = self.ranked.position.astype(np.float64), self._cum_relevant.astype(np.float64)
        return self._relevant_sum(1.0 / log2(2.0 + pos - cum))

    def max_grade(self) -> Doubles:
        return self.ideal.max_grade

    def dcg(self, k: int | None) -> Doubles:
        return self._at(self._cum_dcg, k)

    @cached_property
    def _cum_dcg(self) -> Doubles:
        return self._running(discount(self.ranked.gain, self.ranked.position))

    def ideal_dcg(self, k: int | None) -> Doubles:
        return at_positions(self.ideal.cum_idcg, self.ideal.starts, self.ideal.lengths, k)

    def positives(self) -> Ints:
        return self.ideal.positive

    def positives_retrieved(self, k: int | None) -> Ints:
        return self._at(self._cum_positive, k).astype(np.int64)

    @cached_property
    def _cum_positive(self) -> Ints:
        return self._running((self.ranked.gain > 0).astype(np.int64))

    def judged_retrieved(self, k: int | None) -> Ints:
        return self._at(self._cum_judged, k).astype(np.int64)

    @cached_property
    def _cum_judged(self) -> Ints:
        return self._running(self.ranked.judged.astype(np.int64))

    def judged_at(self, k: int | None) -> Doubles:
        """judged@k: the judged share of the top k retrieved; NaN where none is (NULL)."""
        depth = self.ranked.lengths if k is None else np.minimum(self.ranked.lengths, k)
        judged = self.judged_retrieved(k)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(depth > 0, judged / depth, np.nan)

    def _discounts(self, persistence: float) -> Doubles:
        """persistence^(position - 1) on each row, as Spark's pow (StrictMath's) gives it."""
        longest = int(self.ranked.position.max()) if len(self.ranked.position) else 0
        return powers(persistence, longest + 1)[np.maximum(self.ranked.position - 1, 0)]

    def grade_discount_sum(self, persistence: float) -> Doubles:
        grade = np.nan_to_num(self.ranked.grade, nan=0.0)
        term = np.where(grade > 0, grade * self._discounts(persistence), 0.0)
        return self._at(self._running(term), None)

    def judged_discount_sum(self, persistence: float) -> Doubles:
        judged = self.ranked.relevant | self.ranked.nonrelevant
        return self._at(self._running(np.where(judged, self._discounts(persistence), 0.0)), None)

    def ranked_positives(self) -> ArrayList:
        rows = self.ranked.gain > 0
        pair = self._pair_of_rows[rows]
        cum_gain = self._running(np.where(rows, self.ranked.gain, 0.0))
        fields = {"pos": self.ranked.position, "dcg": self._cum_dcg, "gain": self.ranked.gain, "cum_gain": cum_gain}
        return ArrayList({name: values[rows] for name, values in fields.items()}, pair, self.pairs)

    def ideal_positives(self) -> ArrayList:
        """Each pair's query's ideal rows of gain > 0: the first `positive` rows of its ideal list."""
        ideal = self.ideal
        lengths = ideal.positive
        first = offsets(lengths)
        within = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(first, lengths)
        rows = np.repeat(ideal.starts, lengths) + within
        fields = {"pos": within + 1, "idcg": ideal.cum_idcg[rows], "gain": ideal.gain[rows], "cost": ideal.cum_cost[rows]}
        return ArrayList(fields, np.repeat(np.arange(self.pairs, dtype=np.int64), lengths), self.pairs)

    def ranked_graded(self) -> ArrayList:
        grade = np.nan_to_num(self.ranked.grade, nan=0.0)
        rows = grade > 0
        return ArrayList({"pos": self.ranked.position[rows], "grade": grade[rows]}, self._pair_of_rows[rows], self.pairs)

    def dcg_within(self, depth: Term, row: ArrayRow) -> Doubles:
        """The pair's running DCG at min(depth, its length): rows past the last positive one within
        add exactly 0, so this is the Spark engine's last positive row's."""
        pair = row.pair
        lengths, starts = self.ranked.lengths[pair], self.ranked.starts[pair]
        within = np.minimum(np.asarray(depth, dtype=np.int64), lengths)
        if len(self._cum_dcg) == 0:
            return np.zeros(len(pair))
        return np.where(within > 0, self._cum_dcg[np.where(within > 0, starts + within - 1, 0)], 0.0)


class ArrayRow:
    """The elements of a list ingredient, one per row of `pair` (the pair each belongs to); fields
    are arrays over them."""

    def __init__(self, fields: dict[str, np.ndarray], pair: Ints) -> None:
        self.fields = fields
        self.pair = pair

    def __getattr__(self, field: str) -> np.ndarray:
        if field.startswith("_") or field not in self.__dict__.get("fields", {}):
            raise AttributeError(field)
        return self.fields[field]

    def of_pair(self, term: Term) -> Term:
        """A per-pair array (or a number) as seen from each element: its pair's value."""
        values = np.asarray(term)
        return values[self.pair] if values.ndim else values


class ArrayList:
    """A list per pair, as arrays of its elements' fields in (pair, order): Spark's ARRAY column
    of structs, walked the same way."""

    def __init__(self, fields: dict[str, np.ndarray], pair: Ints, pairs: int) -> None:
        self.fields, self.pair, self.pairs = fields, pair, pairs
        self.lengths = np.bincount(pair, minlength=pairs).astype(np.int64)
        self.starts = offsets(self.lengths)

    def size(self) -> Ints:
        return self.lengths

    def sum(self, term: Callable[[ArrayRow], Term]) -> Doubles:
        """Sequentially in each list's order, from 0.0 (Spark's aggregate); 0.0 for an empty list."""
        values = np.broadcast_to(np.asarray(term(ArrayRow(self.fields, self.pair)), dtype=np.float64), self.pair.shape)
        return at_positions(running(np.array(values), self.starts, self.lengths), self.starts, self.lengths, None)

    def filter(self, keep: Callable[[ArrayRow], Term]) -> ArrayList:
        kept = np.broadcast_to(np.asarray(keep(ArrayRow(self.fields, self.pair)), dtype=bool), self.pair.shape)
        return ArrayList({name: values[kept] for name, values in self.fields.items()}, self.pair[kept], self.pairs)

    def fold(
        self, start: tuple[float, ...], step: Callable[[tuple[Doubles, ...], ArrayRow], tuple[Term, ...]]
    ) -> tuple[Doubles, ...]:
        """A state carried through each list's elements in order, every list in lockstep: at step
        t the t-th element of each list long enough updates its pair's state, the same operations
        in the same order as Spark's aggregate."""
        state = [np.full(self.pairs, value, dtype=np.float64) for value in start]
        for t in range(int(self.lengths.max()) if self.pairs and len(self.pair) else 0):
            rows = self.starts[self.lengths > t] + t
            pairs = self.pair[rows]
            element = ArrayRow({name: values[rows] for name, values in self.fields.items()}, pairs)
            updated = step(tuple(values[pairs] for values in state), element)
            for values, new in zip(state, updated, strict=True):
                values[pairs] = np.asarray(new, dtype=np.float64)
        return tuple(state)

    def at(self, position: Term, row: ArrayRow | None = None) -> ArrayRow:
        """The element at position (from 1) of each pair's list (of `row`'s pairs when given);
        a position outside the list reads its nearest element, or 0 in an empty list, where the
        formulas' conditions never read it (Spark's element_at would fail there, unevaluated)."""
        pair = np.arange(self.pairs, dtype=np.int64) if row is None else row.pair
        lengths = self.lengths[pair]
        index = self.starts[pair] + np.clip(np.asarray(position, dtype=np.int64), 1, np.maximum(lengths, 1)) - 1
        present = lengths > 0
        fields = {
            name: np.where(present, values[np.where(present, index, 0)] if len(values) else 0, 0)
            for name, values in self.fields.items()
        }
        return ArrayRow(fields, pair)
