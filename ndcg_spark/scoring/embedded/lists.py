"""The ranked lists and the ideal lists of the embedded engine, as flat numpy arrays in list order.

The same order as the Spark engine's windows: each (run, query) list by score descending, ties by
doc_id descending in byte order (trec_eval's), or by the results' rank first; each query's ideal
list by gain descending. Positions count from 1; trec_eval -M cuts a list after its first
max_depth rows, then -J keeps only judged documents graded 0 or more, numbered anew.

Running sums are sequential in list order (np.add.accumulate along a row of a matrix of lists of
one length), as Spark's running window sums add: never numpy's pairwise sum, whose last bits
differ."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ndcg_spark import columns as c
from ndcg_spark.arrays import Ints
from ndcg_spark.measures.strict_math import log2
from ndcg_spark.option_values import GainTable
from ndcg_spark.options import GAIN_EXPONENTIAL, GAIN_LINEAR, ORDER_BY_RANK, Gain, OrderBy

Doubles = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]


def gains_of(relevance: Doubles, kind: Gain, table: GainTable = ()) -> Doubles:
    """scoring.ranking.gain on arrays: a grade <= 0 gains 0, a grade in `table` what it says, any
    other grade the kind's (2^rel - 1 exactly: rel is a whole number, so 2^rel is)."""
    if kind == GAIN_LINEAR:
        value = relevance.astype(np.float64)
    elif kind == GAIN_EXPONENTIAL:
        value = np.ldexp(1.0, np.clip(relevance, 0, None).astype(np.int64)) - 1.0
    else:
        raise ValueError(f"unknown gain {kind!r}")
    gained = np.where(relevance > 0, value, 0.0)
    for grade, grade_gain in table:
        gained = np.where(relevance == float(grade), float(grade_gain), gained)
    return np.where(relevance < 0, 0.0, gained) if table else gained


def running(values: npt.NDArray[np.generic], starts: Ints, lengths: Ints) -> npt.NDArray[np.generic]:
    """Each list's running sums, in list order, sequentially: the lists of one length are gathered
    into a matrix and accumulated along its rows (lists of one length laid end to end, the common
    case of full-depth runs, are that matrix already)."""
    if len(lengths) and len(values) == len(lengths) * int(lengths[0]) and lengths[0] > 0:
        length = int(lengths[0])
        if (lengths == length).all() and np.array_equal(starts, np.arange(len(lengths), dtype=np.int64) * length):
            return np.add.accumulate(values.reshape(len(lengths), length), axis=1).reshape(-1)
    out = np.empty_like(values)
    for length in np.unique(lengths):
        if length == 0:
            continue
        chosen = starts[lengths == length]
        index = chosen[:, None] + np.arange(length, dtype=np.int64)
        out[index] = np.add.accumulate(values[index], axis=1)
    return out


def at_positions(
    running_values: npt.NDArray[np.generic], starts: Ints, lengths: Ints, k: int | None, empty: float = 0
) -> Doubles:
    """Each list's running value at position min(k, length) (the list's end for k None); `empty`
    for a list of no rows. Running values never decrease (gains are >= 0), so this is the Spark
    engine's max over the rows at positions <= k."""
    depth = lengths if k is None else np.minimum(lengths, k)
    safe = np.where(depth > 0, starts + depth - 1, 0)
    if len(running_values) == 0:
        return np.full(len(starts), empty, dtype=np.float64)
    return np.where(depth > 0, running_values[safe], empty)


def discount(gain: Doubles, position: Ints) -> Doubles:
    """gain / log2(position + 1), as scoring.ranking.discounted: Spark's log2, bit for bit, taken
    once per position (a list's positions are 1 to its length) and looked up."""
    if len(position) == 0:
        return np.zeros(0, dtype=np.float64)
    logs = log2(np.arange(int(position.max()) + 2, dtype=np.float64) + 1.0)
    return gain / logs[position]


@dataclass(frozen=True)
class Lists:
    """Rows grouped in lists, each list's rows contiguous and in order. keys: the lists' key
    columns (a row per list); starts, lengths: where each list's rows are; position: each row's,
    from 1; source: each row's index in the input table (what the caller takes its columns by)."""

    keys: pa.Table
    starts: Ints
    lengths: Ints
    position: Ints
    source: Ints

    def list_of_rows(self) -> Ints:
        """The index of the list each row belongs to."""
        return np.repeat(np.arange(len(self.starts), dtype=np.int64), self.lengths)


def offsets(lengths: Ints) -> Ints:
    """Where each of consecutive lists of these lengths starts."""
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64) if len(lengths) else lengths


def _segments(sorted_keys: list[npt.NDArray[np.generic]], n: int) -> tuple[Ints, Ints]:
    """Starts and lengths of the runs of equal keys in sorted key arrays."""
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for key in sorted_keys:
        change[1:] |= key[1:] != key[:-1]
    starts = np.flatnonzero(change).astype(np.int64)
    lengths = np.diff(np.append(starts, n)).astype(np.int64)
    return starts, lengths


# The columns of the ids' codes (arrays.codes: byte order of their text), beside the ids.
RUN_CODE, QUERY_CODE, DOC_CODE = "_run", "_query", "_doc"


def ranked_lists(results: pa.Table, order_by: OrderBy, max_depth: int | None) -> Lists:
    """The results as (run, query) lists in trec_eval's order, cut at max_depth. `results` has
    run_id, query_id, score (and rank) and the ids' codes (RUN_CODE, QUERY_CODE, DOC_CODE)."""
    run, query = (results[name].to_numpy(zero_copy_only=False) for name in (RUN_CODE, QUERY_CODE))
    group = run * (int(query.max()) + 1 if len(query) else 1) + query  # (run, query) as one key
    doc = results[DOC_CODE].to_numpy(zero_copy_only=False)
    order = None
    if order_by != ORDER_BY_RANK:
        order = _by_score(group, results[c.SCORE].to_numpy(zero_copy_only=False), doc)
    if order is None:
        # Arrow's multi-key sort: the same order as numpy's lexsort, 2.7x faster on 10M rows.
        keys = {"group": pa.array(group), "score": results[c.SCORE], "doc": pa.array(doc)}
        sort_keys = [("group", "ascending"), ("score", "descending"), ("doc", "descending")]
        if order_by == ORDER_BY_RANK:
            keys["rank"] = results[c.RANK]
            sort_keys.insert(1, ("rank", "ascending"))
        order = pc.sort_indices(pa.table(keys), sort_keys=sort_keys).to_numpy().astype(np.int64)
    starts, lengths = _segments([group[order]], len(order))
    position = np.arange(len(order), dtype=np.int64) - np.repeat(starts, lengths) + 1
    keys_table = results.select([c.RUN_ID, c.QUERY_ID, QUERY_CODE]).take(pa.array(order[starts]))
    if max_depth is not None:
        kept = position <= max_depth
        order, position = order[kept], position[kept]
        lengths = np.minimum(lengths, max_depth)
        starts = offsets(lengths)
    return Lists(keys_table, starts, lengths, position, order.astype(np.int64))


# Tied (list, score) rows are put in doc order apart from the sort; past this share of the rows,
# the three-key sort is cheaper.
_TIED_SHARE = 0.25
_RADIX_BITS = 15  # numpy's stable argsort is a radix sort on 16-bit integers


def _by_score(group: Ints, score: Doubles, doc: Ints) -> Ints | None:
    """The order by group ascending, score descending, doc descending: numpy's vectorised sort of
    the scores, then a stable radix sort of the groups, then each run of tied (group, score) rows
    by doc descending. None when ties are too many for that to pay (or groups too many for the
    radix sort): Arrow's three-key sort then."""
    largest = int(group.max()) if len(group) else 0
    if len(group) == 0 or largest >= 1 << (2 * _RADIX_BITS):
        return None
    order = np.argsort(-score).astype(np.int64)
    for shift in (0, _RADIX_BITS) if largest >= 1 << _RADIX_BITS else (0,):
        digit = ((group[order] >> shift) & ((1 << _RADIX_BITS) - 1)).astype(np.int16)
        order = order[np.argsort(digit, kind="stable")]
    grouped, scored = group[order], score[order]
    tied = (grouped[1:] == grouped[:-1]) & (scored[1:] == scored[:-1])  # row i + 1 ties row i
    count = int(tied.sum())
    if count == 0:
        return order
    if count > _TIED_SHARE * len(order):
        return None
    follows = np.concatenate([[False], tied])
    rows = np.flatnonzero(follows | np.concatenate([tied, [False]]))
    run_of_ties = np.cumsum(~follows[rows])
    order[rows] = order[rows][np.lexsort([-doc[order[rows]], run_of_ties])]
    return order


def condensed(lists: Lists, usable: Bools) -> Lists:
    """trec_eval -J: only the usable rows, numbered anew; a list that keeps none stays, with no
    rows (scored as empty)."""
    list_of = lists.list_of_rows()
    lengths = np.bincount(list_of[usable], minlength=len(lists.starts)).astype(np.int64)
    starts = offsets(lengths)
    position = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(starts, lengths) + 1
    return Lists(lists.keys, starts, lengths, position, lists.source[usable])


def ideal_lists(judgments: pa.Table, gain: Doubles) -> tuple[Lists, Ints]:
    """Each judged query's judgments by gain descending (ties in any order: equal gains add the
    same terms at the same positions), and the order that puts the judgments' arrays in it."""
    query = judgments[QUERY_CODE].to_numpy(zero_copy_only=False)
    order = np.lexsort([-gain, query]).astype(np.int64)
    starts, lengths = _segments([query[order]], len(order))
    position = np.arange(len(order), dtype=np.int64) - np.repeat(starts, lengths) + 1
    keys_table = judgments.select([c.QUERY_ID, QUERY_CODE]).take(pa.array(order[starts]))
    return Lists(keys_table, starts, lengths, position, order), order
