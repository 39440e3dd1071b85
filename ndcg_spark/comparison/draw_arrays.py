"""The resampling's draws as arrays: each partition turns its (run, query) rows into every draw's
partial sums in a few vectorized steps (Arrow batches, numpy), and Spark adds the partials up.

The same numbers as resampling.draw_rows, which makes a row per (query, draw): the same hashes
(xxhash.py is Spark's xxhash64), the same Poisson inversion, the same fixed-point values, and
integer sums, so neither the order of the partials nor the partitioning moves a bit. The
products are summed by BLAS on doubles, exactly: the values are split into 24-bit limbs, so
every product and every partial sum is an integer below 2^53."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from threading import Thread
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.comparison import xxhash
from ndcg_spark.comparison.draws import BOOTSTRAP_TAG, OBSERVED_DRAW, POISSON_CDF, RANDOMIZATION_TAG, UNIFORM_BITS
from ndcg_spark.comparison.pairing import DRAW, DRAWS, EXACT_DRAWS, INDEX, PERMS, WEIGHTS

Array = Any  # numpy arrays; their dtypes' stubs are noise here

_LIMB_BITS = 24
_LIMB = (1 << _LIMB_BITS) - 1
_CELLS = 1 << 16  # queries x draws hashed at a time: some 16 MB per array
# u < cdf, for u = bits / 2^53, is bits < ceil(cdf * 2^53): the inversion on the integer bits.
_THRESHOLDS = np.asarray([math.ceil(p * 2**UNIFORM_BITS) for p in POISSON_CDF], dtype=np.uint64)


def exact_products(left: Array, values: Array) -> Array:
    """left.T @ values, exactly, in int64: left holds small non-negative integers (a sign bit, a
    Poisson count) as doubles, values int64; each 24-bit limb of the values goes through BLAS."""
    total = np.zeros((left.shape[1], values.shape[1]), dtype=np.int64)
    if not values.size:
        return total
    rest, shift = values, 0
    while True:
        last = bool(np.all((rest >= -(1 << _LIMB_BITS)) & (rest <= _LIMB)))
        limb = rest if last else rest & _LIMB
        total += np.rint(left.T @ limb.astype(np.float64)).astype(np.int64) << shift
        if last:
            return total
        rest, shift = rest >> _LIMB_BITS, shift + _LIMB_BITS


@dataclass
class _RunSums:
    """One run's partial sums in one partition, for draws 0 .. draws - 1."""

    perms: int
    draws: int
    exact: bool
    observed: Array  # the values' sums, no sign flipped
    perm: Array
    boot: Array
    weights: Array
    seen: Array  # per value column: was any value not null

    @classmethod
    def empty(cls, perms: int, draws: int, exact: bool, bootstrap: int, width: int) -> _RunSums:
        return cls(
            perms,
            draws,
            exact,
            np.zeros(width, dtype=np.int64),
            np.zeros((perms, width), dtype=np.int64),
            np.zeros((bootstrap, width), dtype=np.int64),
            np.zeros(bootstrap, dtype=np.int64),
            np.zeros(width, dtype=bool),
        )


def _poisson(bits: Array) -> Array:
    """resampling._poisson on the integer bits: the count of thresholds at or below them. A
    count above 9 has odds of 1 in 10^7, so the passes stop when none is left."""
    counts = np.zeros(bits.shape, dtype=np.float64)
    for threshold in _THRESHOLDS:
        above = bits >= threshold
        if not above.any():
            break
        counts += above
    return counts


def _query_keys(queries: pa.Array) -> tuple[Array, pa.Array]:
    """Each row's index into the batch's distinct query ids, and those ids."""
    if pa.types.is_integer(queries.type):
        distinct, inverse = np.unique(queries.to_numpy(), return_inverse=True)
        return inverse.reshape(-1), pa.array(distinct, type=pa.int64())
    encoded = queries.dictionary_encode()
    return encoded.indices.to_numpy().astype(np.int64), encoded.dictionary


def _hashes(ids: pa.Array, seeds: Array) -> Array:
    """xxhash64(tag, seed, draw, query_id) for every id (rows) and draw (the seeds, columns)."""
    row = seeds.reshape(1, -1)
    if pa.types.is_integer(ids.type):
        return xxhash.hash_long(ids.to_numpy().reshape(-1, 1), row)
    text = ids.cast(pa.large_string())
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + len(text) + 1]
    data = np.frombuffer(text.buffers()[2], dtype=np.uint8) if len(text) else np.zeros(0, dtype=np.uint8)
    lengths = np.diff(offsets)
    out = np.empty((len(text), row.shape[1]), dtype=np.uint64)
    for length in np.unique(lengths):
        where = np.flatnonzero(lengths == length)
        block = data[offsets[where].reshape(-1, 1) + np.arange(int(length))] if length else np.zeros((len(where), 0), np.uint8)
        out[where] = xxhash.hash_bytes(block, int(length), row)
    return out


def _started(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Nothing: a task that makes a Python worker import this module, numpy and pyarrow."""
    yield from batches


def warm_up(spark: SparkSession, workers: int = 2) -> Thread:
    """Start the executors' Python workers while the driver is busy with the comparison's other
    jobs (the observed sums, the plan): the first Arrow task of a session waits some 2.5 s for its
    worker and Spark's Arrow classes. A failure is left to the draws to report."""

    def start() -> None:
        with suppress(Exception):
            spark.range(workers, numPartitions=workers).mapInArrow(_started, "id long").collect()

    thread = Thread(target=start, name="ndcg-spark-python-workers", daemon=True)
    thread.start()
    return thread


@dataclass
class DrawPartials:
    """The function mapInArrow runs on each partition: in, the fixed-point rows of resampling's
    `fixed` frame; out, one row per (run, draw) of partial sums, draw_rows' columns."""

    permutations: int
    bootstrap: int
    seed: int
    values: tuple[str, ...]  # the fixed-point value columns, one per cutoff
    perm_names: tuple[str, ...]
    boot_names: tuple[str, ...]

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        sums: dict[str, _RunSums] = {}  # the partition's, per run
        flips = xxhash.draw_seeds(RANDOMIZATION_TAG, self.seed, self.permutations)
        counts = xxhash.draw_seeds(BOOTSTRAP_TAG, self.seed, self.bootstrap)
        for batch in batches:
            if batch.num_rows:
                self._add(sums, batch, flips, counts)
        if sums:
            yield self._output(sums)

    def _add(self, partition: dict[str, _RunSums], batch: pa.RecordBatch, flips: Array, counts: Array) -> None:
        runs = batch.column(c.RUN_ID).to_numpy(zero_copy_only=False)
        exact = batch.column(EXACT_DRAWS).to_numpy(zero_copy_only=False).astype(bool)
        index = batch.column(INDEX).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        perms = batch.column(PERMS).to_numpy(zero_copy_only=False)
        draws = batch.column(DRAWS).to_numpy(zero_copy_only=False)
        columns = [batch.column(name) for name in self.values]
        values = np.column_stack([column.fill_null(0).to_numpy(zero_copy_only=False) for column in columns])
        valid = np.column_stack([column.is_valid().to_numpy(zero_copy_only=False) for column in columns])
        keys, ids = _query_keys(batch.column(c.QUERY_ID))
        order = np.argsort(keys, kind="stable")
        bounds = np.searchsorted(keys[order], np.arange(len(ids) + 1))
        step = max(1, _CELLS // max(self.permutations, self.bootstrap, 1))
        for start in range(0, len(ids), step):
            stop = min(start + step, len(ids))
            rows = order[bounds[start] : bounds[stop]]
            chunk = ids.slice(start, stop - start)
            hashed = ~exact[rows]
            signs = (_hashes(chunk, flips) & np.uint64(1)).astype(np.float64) if hashed.any() else None
            bits = _hashes(chunk, counts) >> np.uint64(64 - UNIFORM_BITS)
            weights = _poisson(bits)
            for run in np.unique(runs[rows]):
                mine = rows[runs[rows] == run]
                local = keys[mine] - start
                sums = partition.get(run)
                if sums is None:
                    first = mine[0]
                    sums = _RunSums.empty(int(perms[first]), int(draws[first]), bool(exact[first]), self.bootstrap, len(columns))
                    partition[run] = sums
                part = values[mine]
                if sums.exact:
                    draw = np.arange(sums.perms, dtype=np.int64).reshape(1, -1)
                    flipped = ((draw >> index[mine].reshape(-1, 1)) & 1).astype(np.float64)
                else:
                    assert signs is not None
                    flipped = signs[local]
                total = part.sum(axis=0)
                sums.observed += total
                sums.perm += total - 2 * exact_products(flipped, part)
                sums.boot += exact_products(weights[local], part)
                sums.weights += np.rint(weights[local].sum(axis=0)).astype(np.int64)
                sums.seen |= valid[mine].any(axis=0)

    def _output(self, partition: dict[str, _RunSums]) -> pa.RecordBatch:
        names, draws = [], []
        weights: list[tuple[Array, Array]] = []
        perm: list[list[tuple[Array, Array]]] = [[] for _ in self.values]
        boot: list[list[tuple[Array, Array]]] = [[] for _ in self.values]
        for run, sums in partition.items():  # each run's OBSERVED_DRAW row, then its draws
            names.append(np.full(sums.draws + 1, run, dtype=object))
            draws.append(np.arange(OBSERVED_DRAW, sums.draws, dtype=np.int64))
            weights.append(_padded(sums.weights, sums.draws, True, None))
            for i in range(len(self.values)):
                seen = bool(sums.seen[i])
                perm[i].append(_padded(sums.perm[:, i], sums.draws, seen, sums.observed[i]))
                boot[i].append(_padded(sums.boot[:, i], sums.draws, seen, None))
        arrays = [pa.array(np.concatenate(names), pa.string()), pa.array(np.concatenate(draws), pa.int64())]
        arrays += [_column(parts) for parts in (weights, *perm, *boot)]
        return pa.RecordBatch.from_arrays(arrays, names=[c.RUN_ID, DRAW, WEIGHTS, *self.perm_names, *self.boot_names])


def _padded(values: Array, draws: int, seen: bool, observed: Any) -> tuple[Array, Array]:
    """The OBSERVED_DRAW row's value (null for None), then values for the first len(values)
    draws and null for the rest: all null if no value was seen."""
    out, missing = np.zeros(draws + 1, dtype=np.int64), np.ones(draws + 1, dtype=bool)
    if seen:
        out[1 : len(values) + 1], missing[1 : len(values) + 1] = values, False
        if observed is not None:
            out[0], missing[0] = observed, False
    return out, missing


def _column(parts: Sequence[tuple[Array, Array]]) -> pa.Array:
    return pa.array(np.concatenate([v for v, _ in parts]), type=pa.int64(), mask=np.concatenate([m for _, m in parts]))
