"""The comparison of per-query rows held in memory (pandas, Polars, Arrow), on the embedded engine:
the pairing, the exact sums, the fixed-point differences and the draws as compare.py computes
them with Spark, each step the same integers, so that every row is the Spark engine's to the bit.
The draws are the arrays engine's own kernel (draw_arrays.DrawPartials), run on one batch of
every pair; the tails, the interval and Holm's correction are compare.py's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ndcg_spark import columns as c
from ndcg_spark.arrays import codes
from ndcg_spark.comparison.compare import comparison_rows, require_baseline
from ndcg_spark.comparison.draw_arrays import DrawPartials
from ndcg_spark.comparison.pairing import DRAWS, EXACT_DRAWS, INDEX, N_PAIRS, PERMS, cutoff_column
from ndcg_spark.comparison.resampled import resampled_sums
from ndcg_spark.comparison.resampling import fixed_scale, resampling_plan
from ndcg_spark.comparison.rows import ComparisonRow, Cutoff, Resampling
from ndcg_spark.measures import report_order
from ndcg_spark.scoring.embedded.summary import exact_total

Array = Any  # numpy arrays


class _Wide:
    """per_query's values as one array per cutoff: a row per (run, query) pair of the input, its
    run's and query's codes (byte order of their text) beside it."""

    def __init__(self, per_query: pa.Table, cutoffs: list[Cutoff]) -> None:
        run_codes, query_codes = codes(per_query[c.RUN_ID]), codes(per_query[c.QUERY_ID])
        key = run_codes.astype(np.int64) * (int(query_codes.max(initial=0)) + 1) + query_codes
        keys, first, row_of = np.unique(key, return_index=True, return_inverse=True)
        self.runs = per_query[c.RUN_ID].take(pa.array(first)).to_numpy(zero_copy_only=False).astype(object)
        self.queries = per_query[c.QUERY_ID].take(pa.array(first))
        self.query_codes = query_codes[first]
        measure = per_query[c.MEASURE].to_numpy(zero_copy_only=False)
        k = per_query[c.K].fill_null(-1).to_numpy(zero_copy_only=False)
        value = per_query[c.VALUE].fill_null(np.nan).to_numpy(zero_copy_only=False).astype(np.float64)
        self.values: dict[Cutoff, Array] = {}
        for cut in cutoffs:
            mine = (measure == cut.measure) & (k == (-1 if cut.k is None else cut.k))
            column = np.full(len(keys), np.nan)
            column[row_of[mine]] = value[mine]
            self.values[cut] = column


def _cutoffs(per_query: pa.Table) -> list[Cutoff]:
    pairs = per_query.select([c.MEASURE, c.K]).group_by([c.MEASURE, c.K]).aggregate([]).to_pylist()
    return sorted((Cutoff(row[c.MEASURE], row[c.K]) for row in pairs), key=lambda cut: report_order(cut.measure, cut.k))


def _stats(run: str, n: int, pairs: dict[Cutoff, tuple[Array, Array, Array]]) -> dict[str, Any]:
    """pairing.pair_stats' row of a run: its pairs' count, and per cutoff the exact sums of the
    baseline's values, the run's, the differences and their squares, wins, ties and losses."""
    stats: dict[str, Any] = {c.RUN_ID: run, N_PAIRS: n}
    for cut, (before, after, difference) in pairs.items():
        for name, values in (("sb", before), ("sr", after), ("sd", difference), ("sdd", difference * difference)):
            present = values[~np.isnan(values)]  # a missing value (NULL on Spark) is not summed
            stats[cutoff_column(name, cut)] = exact_total(present) if len(present) else None
        stats[cutoff_column("w", cut)] = int(np.sum(difference > 0))
        stats[cutoff_column("t", cut)] = int(np.sum(difference == 0))
        stats[cutoff_column("l", cut)] = int(np.sum(difference < 0))
    return stats


def _fixed(difference: Array, scale: int) -> pa.Array:
    """resampling.fixed_point: value x scale rounded half away from zero, as a long (NULL where
    the difference is missing)."""
    scaled = difference * float(scale)
    missing = np.isnan(scaled)
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    return pa.array(np.where(missing, 0.0, rounded).astype(np.int64), pa.int64(), mask=missing)


def compare_table(per_query: pa.Table, baseline: str, resampling: Resampling) -> list[ComparisonRow]:
    """compare()'s rows of per_query's rows (run_id, query_id as text, measure, k, value): every
    other run against `baseline`, over the queries both were scored on, at every cutoff."""
    cutoffs = _cutoffs(per_query)
    wide = _Wide(per_query, cutoffs)
    runs = sorted(set(wide.runs.tolist()))
    require_baseline(baseline, runs)
    base = wide.runs == baseline
    index_of_query = np.full(int(wide.query_codes.max(initial=0)) + 1, -1, dtype=np.int64)
    index_of_query[wide.query_codes[base]] = np.flatnonzero(base)
    others = [run for run in runs if run != baseline]
    stats: dict[str, dict[str, Any]] = {}
    kept: dict[str, tuple[Array, dict[Cutoff, tuple[Array, Array, Array]]]] = {}
    for run in others:
        mine = np.flatnonzero(wide.runs == run)
        partner = index_of_query[wide.query_codes[mine]]
        rows, partner = mine[partner >= 0], partner[partner >= 0]
        if not len(rows):
            continue
        pairs = {}
        for cut in cutoffs:
            before, after = wide.values[cut][partner], wide.values[cut][rows]
            pairs[cut] = (before, after, after - before)
        stats[run] = _stats(run, len(rows), pairs)
        kept[run] = (rows, pairs)
    resampled: dict[str, dict[str, Any]] = {}
    plans: dict[str, Any] = {}
    if stats:
        scale = fixed_scale(max(row[N_PAIRS] for row in stats.values()))
        plans = resampling_plan(stats, resampling)
        batch = _fixed_batch(wide, kept, plans, cutoffs, scale)
        partials = DrawPartials(
            resampling.permutations,
            resampling.bootstrap,
            resampling.seed,
            tuple(cutoff_column("f", cut) for cut in cutoffs),
            tuple(cutoff_column("perm", cut) for cut in cutoffs),
            tuple(cutoff_column("boot", cut) for cut in cutoffs),
        )
        draws = pa.Table.from_batches(list(partials(iter([batch]))))
        resampled = resampled_sums(draws, cutoffs, resampling, scale)
    return comparison_rows(baseline, others, cutoffs, stats, resampled, plans, resampling)


def _fixed_batch(
    wide: _Wide,
    kept: dict[str, tuple[Array, dict[Cutoff, tuple[Array, Array, Array]]]],
    plans: dict[str, Any],
    cutoffs: list[Cutoff],
    scale: int,
) -> pa.RecordBatch:
    """resampling.fixed_rows' rows of every pair, one batch: its run's plan, its query's place
    among the run's queries for an exact randomization test, the fixed-point differences."""
    runs, queries, exact, index, perms, draws = [], [], [], [], [], []
    fixed: dict[Cutoff, list[pa.Array]] = {cut: [] for cut in cutoffs}
    for run, (rows, pairs) in kept.items():
        plan = plans[run]
        count = len(rows)
        runs.append(np.full(count, run, dtype=object))
        queries.append(wide.queries.take(pa.array(rows)).combine_chunks())
        exact.append(np.full(count, bool(plan[EXACT_DRAWS])))
        place = np.argsort(np.argsort(wide.query_codes[rows], kind="stable"), kind="stable")
        index.append(place if plan[EXACT_DRAWS] else np.full(count, -1))
        perms.append(np.full(count, plan[PERMS], dtype=np.int64))
        draws.append(np.full(count, plan[DRAWS], dtype=np.int64))
        for cut in cutoffs:
            fixed[cut].append(_fixed(pairs[cut][2], scale))
    places = np.concatenate(index)
    columns = {
        c.RUN_ID: pa.array(np.concatenate(runs), pa.string()),
        c.QUERY_ID: pc.cast(pa.concat_arrays(queries), pa.string()),
        EXACT_DRAWS: pa.array(np.concatenate(exact)),
        INDEX: pa.array(places, pa.int32(), mask=places < 0),
        PERMS: pa.array(np.concatenate(perms)),
        DRAWS: pa.array(np.concatenate(draws)),
        **{cutoff_column("f", cut): pa.concat_arrays(parts) for cut, parts in fixed.items()},
    }
    return pa.RecordBatch.from_pydict(columns)
