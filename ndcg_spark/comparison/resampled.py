"""The resampling tests' results on the driver, from the (run, draw) sums either engine gives
(resampling.draw_rows, draw_arrays.py): per run and cutoff, the draws at or below and at or above
the observed sum (the randomization test's tails) and the bootstrap interval's ends.

Those sums are a few thousand rows whatever the data (runs x draws), so they come to the driver
as Arrow and the counts and percentiles are taken in numpy: in Spark they cost a join with the
observed sums and another aggregation, about a second of a comparison. Imported only by a
comparison, as draw_arrays.py is."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa

from ndcg_spark import columns as c
from ndcg_spark.comparison.draws import OBSERVED_DRAW
from ndcg_spark.comparison.pairing import DRAW, WEIGHTS, cutoff_column
from ndcg_spark.comparison.rows import Cutoff, Resampling

CONFIDENCE = 0.95
LOWER, UPPER = (1 - CONFIDENCE) / 2, 1 - (1 - CONFIDENCE) / 2  # the interval's ends, as quantiles

Array = Any  # numpy arrays


def resampled_sums(table: pa.Table, cutoffs: list[Cutoff], resampling: Resampling, scale: int) -> dict[str, dict[str, Any]]:
    """Per run: draws at or below / at or above the observed sum (its OBSERVED_DRAW row), and the
    interval ends (None when no resample weighs anything). `table`: the draws' sums per (run,
    draw), draw_rows' columns, from either engine."""
    runs = np.asarray(table.column(c.RUN_ID).to_pylist(), dtype=object)
    draw = _longs(table, DRAW)[0]
    weights, weighed = _longs(table, WEIGHTS)
    drawn = draw != OBSERVED_DRAW
    resampled = drawn & (draw < resampling.bootstrap) & weighed & (weights > 0)
    columns = {cut: (_longs(table, cutoff_column("perm", cut)), _longs(table, cutoff_column("boot", cut))) for cut in cutoffs}
    result: dict[str, dict[str, Any]] = {}
    for run in dict.fromkeys(runs.tolist()):
        mine = runs == run
        row: dict[str, Any] = {c.RUN_ID: run}
        for cut, ((perm, permuted), (boot, booted)) in columns.items():
            observed = np.flatnonzero(mine & ~drawn & permuted)
            counted = mine & drawn & permuted
            # No value seen (no observed sum): every comparison is NULL and no draw counts.
            obs = perm[observed[0]] if observed.size else None
            row[cutoff_column("less", cut)] = 0 if obs is None else int(np.sum(counted & (perm <= obs)))
            row[cutoff_column("more", cut)] = 0 if obs is None else int(np.sum(counted & (perm >= obs)))
            kept = mine & resampled & booted
            means = boot[kept].astype(np.float64) / weights[kept].astype(np.float64) / float(scale)
            row[cutoff_column("ci", cut)] = percentiles(np.sort(means), (LOWER, UPPER)) if means.size else None
        result[run] = row
    return result


def _longs(table: Any, name: str) -> tuple[Array, Array]:
    """A long column of an Arrow table as numpy: its values (0 where NULL) and where it is not NULL."""
    column = table.column(name)
    return (
        np.asarray(column.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64),
        np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool),
    )


def percentiles(ordered: Array, points: tuple[float, ...]) -> list[float]:
    """Spark SQL's percentile() of sorted doubles, bit for bit: linear interpolation between the
    values at floor and ceil of (n - 1) p, as Spark 4.3 writes it (lower + (position - floor) x
    (higher - lower))."""
    out = []
    for point in points:
        position = float(len(ordered) - 1) * point
        lower, higher = math.floor(position), math.ceil(position)
        low, high = float(ordered[lower]), float(ordered[higher])
        out.append(low if higher == lower or high == low else low + (position - float(lower)) * (high - low))
    return out
