"""The comparison of per-query rows held in memory (pandas, Polars, Arrow), on the embedded engine:
the pairing, the exact sums, the fixed-point differences and the draws as compare.py computes
them with Spark, each step the same integers, so that every row is the Spark engine's to the bit.
The draws are the arrays engine's own kernel (draw_arrays.DrawPartials), run on one batch of
every pair; the tails, the interval and Holm's correction are compare.py's. The same pairs give
the gate the queries that fell most (pairing.fell_most's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ndcg_spark import columns as c
from ndcg_spark.arrays import codes, shared_codes
from ndcg_spark.checks.kinds import require_baseline
from ndcg_spark.comparison.compare import comparison_rows
from ndcg_spark.comparison.draw_arrays import DrawPartials
from ndcg_spark.comparison.pairing import DRAWS, EXACT_DRAWS, INDEX, N_PAIRS, PERMS, cutoff_column
from ndcg_spark.comparison.resampled import resampled_sums
from ndcg_spark.comparison.resampling import fixed_scale, resampling_plan
from ndcg_spark.comparison.rows import ComparisonRow, Cutoff, Resampling
from ndcg_spark.measures import report_order
from ndcg_spark.scoring.embedded.summary import exact_total

Array = Any  # numpy arrays
Fell = dict[tuple[str, str, int | None], list[tuple[str, float, float]]]


def values_table(per_query: pa.Table) -> pa.Table:
    """per_query's columns the comparison reads: run_id, query_id (as text, as Spark's per_query
    holds it), measure, k and value (ndcg's, in a per_query published before the value column)."""
    valued = c.VALUE if c.VALUE in per_query.column_names else c.NDCG
    return pa.table(
        {
            c.RUN_ID: pc.cast(per_query[c.RUN_ID], pa.string()),
            c.QUERY_ID: pc.cast(per_query[c.QUERY_ID], pa.string()),
            c.MEASURE: per_query[c.MEASURE],
            c.K: per_query[c.K],
            c.VALUE: pc.cast(per_query[valued], pa.float64()),
        }
    )


def cutoffs_of_table(per_query: pa.Table) -> list[Cutoff]:
    """The (measure, k) of per_query's rows, in the reports' order."""
    pairs = per_query.select([c.MEASURE, c.K]).group_by([c.MEASURE, c.K]).aggregate([]).to_pylist()
    return sorted((Cutoff(row[c.MEASURE], row[c.K]) for row in pairs), key=lambda cut: report_order(cut.measure, cut.k))


class _Wide:
    """per_query's values as one array per cutoff: a row per (run, query) pair of the input, with
    its run's and query's codes (`run_codes`, `query_codes`: given, to share one code space with
    another table, or the table's own)."""

    def __init__(self, per_query: pa.Table, cutoffs: list[Cutoff], run_codes: Array, query_codes: Array) -> None:
        key = run_codes.astype(np.int64) * (int(query_codes.max(initial=0)) + 1) + query_codes
        _, first, row_of = np.unique(key, return_index=True, return_inverse=True)
        self.runs = per_query[c.RUN_ID].take(pa.array(first)).to_numpy(zero_copy_only=False).astype(object)
        self.run_codes = run_codes[first]
        self.queries = per_query[c.QUERY_ID].take(pa.array(first))
        self.query_codes = query_codes[first]
        measure = per_query[c.MEASURE].to_numpy(zero_copy_only=False)
        k = per_query[c.K].fill_null(-1).to_numpy(zero_copy_only=False)
        value = per_query[c.VALUE].fill_null(np.nan).to_numpy(zero_copy_only=False).astype(np.float64)
        self.values: dict[Cutoff, Array] = {}
        for cut in cutoffs:
            mine = (measure == cut.measure) & (k == (-1 if cut.k is None else cut.k))
            column = np.full(len(first), np.nan)
            column[row_of[mine]] = value[mine]
            self.values[cut] = column

    @classmethod
    def of(cls, per_query: pa.Table, cutoffs: list[Cutoff]) -> _Wide:
        return cls(per_query, cutoffs, codes(per_query[c.RUN_ID]), codes(per_query[c.QUERY_ID]))


@dataclass(frozen=True)
class _RunPairs:
    """One compared run's pairs: its rows of the wide table, and per cutoff the reference's
    values, the run's and their differences."""

    rows: Array
    values: dict[Cutoff, tuple[Array, Array, Array]]


@dataclass(frozen=True)
class Pairing:
    """Every compared run's values beside its reference's (pairing.paired's columns, held as
    arrays), over the queries both scored."""

    reference: str
    runs: list[str]
    cutoffs: list[Cutoff]
    wide: _Wide
    pairs: dict[str, _RunPairs]

    @classmethod
    def against_baseline(cls, per_query: pa.Table, baseline: str, cutoffs: list[Cutoff]) -> Pairing:
        """Every other run against the baseline run of the same rows (pairing.paired)."""
        wide = _Wide.of(per_query, cutoffs)
        runs = sorted(set(wide.runs.tolist()))
        require_baseline(baseline, runs)
        base = wide.runs == baseline
        row_of_query = np.full(int(wide.query_codes.max(initial=0)) + 1, -1, dtype=np.int64)
        row_of_query[wide.query_codes[base]] = np.flatnonzero(base)
        others = [run for run in runs if run != baseline]
        partners = {run: row_of_query[wide.query_codes[wide.runs == run]] for run in others}
        return cls(baseline, others, cutoffs, wide, _paired(wide, wide, partners))

    @classmethod
    def against_earlier(cls, per_query: pa.Table, earlier: pa.Table, name: str, cutoffs: list[Cutoff]) -> Pairing:
        """Each run against itself in an earlier report's rows (pairing.paired_with_earlier)."""
        now_runs, before_runs = shared_codes(per_query[c.RUN_ID], earlier[c.RUN_ID])
        now_queries, before_queries = shared_codes(per_query[c.QUERY_ID], earlier[c.QUERY_ID])
        wide = _Wide(per_query, cutoffs, now_runs, now_queries)
        before = _Wide(earlier, cutoffs, before_runs, before_queries)
        width = int(max(wide.query_codes.max(initial=0), before.query_codes.max(initial=0))) + 1
        found = pc.index_in(
            pa.array(wide.run_codes.astype(np.int64) * width + wide.query_codes),
            value_set=pa.array(before.run_codes.astype(np.int64) * width + before.query_codes),
        )
        partner = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
        runs = sorted(set(wide.runs.tolist()))
        partners = {run: partner[wide.runs == run] for run in runs}
        return cls(name, runs, cutoffs, wide, _paired(wide, before, partners))

    def compared(self, resampling: Resampling) -> list[ComparisonRow]:
        """compare_pairs' rows: one per run and cutoff, Holm's correction applied."""
        stats = {run: _stats(run, len(pairs.rows), pairs.values) for run, pairs in self.pairs.items()}
        resampled: dict[str, dict[str, Any]] = {}
        plans: dict[str, Any] = {}
        if stats:
            scale = fixed_scale(max(row[N_PAIRS] for row in stats.values()))
            plans = resampling_plan(stats, resampling)
            partials = DrawPartials(
                resampling.permutations,
                resampling.bootstrap,
                resampling.seed,
                tuple(cutoff_column("f", cut) for cut in self.cutoffs),
                tuple(cutoff_column("perm", cut) for cut in self.cutoffs),
                tuple(cutoff_column("boot", cut) for cut in self.cutoffs),
            )
            draws = pa.Table.from_batches(list(partials(iter([self._fixed_batch(plans, scale)]))))
            resampled = resampled_sums(draws, self.cutoffs, resampling, scale)
        return comparison_rows(self.reference, self.runs, self.cutoffs, stats, resampled, plans, resampling)

    def fell_most(self, limit: int) -> Fell:
        """(run, measure, k) -> its `limit` queries that fell most, (query_id, before, after), by
        difference then query id (pairing.fell_most)."""
        found: Fell = {}
        for run, pairs in self.pairs.items():
            queries = self.wide.queries.take(pa.array(pairs.rows)).to_pylist()
            for cut, (before, after, difference) in pairs.values.items():
                fell = sorted((float(difference[i]), queries[i], i) for i in np.flatnonzero(difference < 0))[:limit]
                if fell:
                    found[(run, cut.measure, cut.k)] = [(query, float(before[i]), float(after[i])) for _, query, i in fell]
        return found

    def _fixed_batch(self, plans: dict[str, Any], scale: int) -> pa.RecordBatch:
        """resampling.fixed_rows' rows of every pair, one batch: its run's plan, its query's place
        among the run's queries for an exact randomization test, the fixed-point differences."""
        runs, queries, exact, index, perms, draws = [], [], [], [], [], []
        fixed: dict[Cutoff, list[pa.Array]] = {cut: [] for cut in self.cutoffs}
        for run, pairs in self.pairs.items():
            plan, count = plans[run], len(pairs.rows)
            runs.append(np.full(count, run, dtype=object))
            queries.append(self.wide.queries.take(pa.array(pairs.rows)).combine_chunks())
            exact.append(np.full(count, bool(plan[EXACT_DRAWS])))
            place = np.argsort(np.argsort(self.wide.query_codes[pairs.rows], kind="stable"), kind="stable")
            index.append(place if plan[EXACT_DRAWS] else np.full(count, -1))
            perms.append(np.full(count, plan[PERMS], dtype=np.int64))
            draws.append(np.full(count, plan[DRAWS], dtype=np.int64))
            for cut in self.cutoffs:
                fixed[cut].append(_fixed(pairs.values[cut][2], scale))
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


def _paired(wide: _Wide, reference: _Wide, partners: dict[str, Array]) -> dict[str, _RunPairs]:
    """Each run's rows with a partner (its reference's row of the same query, -1 where none) and
    the values of both; a run with no such row has no pairs."""
    paired = {}
    for run, partner in partners.items():
        rows = np.flatnonzero(wide.runs == run)[partner >= 0]
        partner = partner[partner >= 0]
        if not len(rows):
            continue
        values = {}
        for cut in wide.values:
            before, after = reference.values[cut][partner], wide.values[cut][rows]
            values[cut] = (before, after, after - before)
        paired[run] = _RunPairs(rows, values)
    return paired


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
    """compare()'s rows of per_query's rows (values_table's columns): every other run against
    `baseline`, over the queries both were scored on, at every cutoff."""
    return Pairing.against_baseline(per_query, baseline, cutoffs_of_table(per_query)).compared(resampling)
