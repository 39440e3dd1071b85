"""The embedded engine's per-slice summaries (scoring/slices.py's, the same rows to the bit): the
slice values of each query from the query metadata or the results, checked as the Spark engine
checks them, and each (slice, value, run, measure, k)'s exact mean over its queries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ndcg_spark import columns as c
from ndcg_spark.arrays import codes
from ndcg_spark.errors import ConfigError, InputError
from ndcg_spark.measures import NDCG_MEASURES
from ndcg_spark.scoring.embedded.summary import exact_total
from ndcg_spark.scoring.exact_sums import mean_of_total
from ndcg_spark.scoring.slices import QUERY_METADATA, SLICE, SLICE_VALUE


def _text(column: pa.ChunkedArray, label: str, path: str, name: str) -> pa.ChunkedArray:
    """A slice or id column as Spark's CAST(... AS STRING) gives it: text, whole numbers and
    booleans alike; a floating-point column, whose text differs between the engines, is refused."""
    kind = column.type
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        raise ConfigError(
            f"{label} {path}: slice column '{name}' is {kind}: slices of non-whole numbers are computed on Spark only"
            " (--engine spark; config file: [evaluation] engine)"
        )
    return pc.cast(column, pa.string())


def query_slices(table: pa.Table, label: str, path: str, query_column: str, slices: Sequence[str]) -> dict[str, dict]:
    """Each query's value of each slice column (None where it has none), refusing a query with two
    values of a slice and, in query metadata, a query on two rows (scoring.slices.query_slices)."""
    missing = [name for name in (query_column, *slices) if name not in table.column_names]
    if missing:
        found = ", ".join(table.column_names)
        raise InputError(f"{label} {path}: missing slice column(s) {', '.join(repr(m) for m in missing)} (found: {found})")
    queries = _text(table[query_column], label, path, query_column)
    columns = {c.QUERY_ID: queries, **{f"_{i}": _text(table[name], label, path, name) for i, name in enumerate(slices)}}
    grouped = (
        pa.table(columns)
        .group_by(c.QUERY_ID)
        .aggregate(
            [(c.QUERY_ID, "count", pc.CountOptions(mode="all"))]
            + [(f"_{i}", "count_distinct", pc.CountOptions(mode="only_valid")) for i in range(len(slices))]
            + [(f"_{i}", "max") for i in range(len(slices))]
        )
    )
    for i, name in enumerate(slices):
        several = pc.sum(pc.greater(grouped[f"_{i}_count_distinct"], 1)).as_py() or 0
        if several:
            raise InputError(f"{label} {path}: column '{name}': {several} queries have more than one value")
    repeated = pc.sum(pc.greater(grouped[f"{c.QUERY_ID}_count"], 1)).as_py() or 0
    if label == QUERY_METADATA and repeated:
        raise InputError(f"{label} {path}: {repeated} queries appear on more than one row")
    ids = grouped[c.QUERY_ID].to_pylist()
    return {name: dict(zip(ids, grouped[f"_{i}_max"].to_pylist(), strict=True)) for i, name in enumerate(slices)}


def slice_rows(per_query: pa.Table, by_query: dict[str, Any], slices: Sequence[str]) -> list[dict[str, Any]]:
    """The slices' rows (scoring.slices.SLICE_SUMMARY_COLUMNS): per slice column, value, run,
    measure and k, the exact mean of the values, of the judged shares, and the count of queries.
    The rows are grouped by their codes in numpy: Python sees each group once, never each row."""
    query_codes = codes(per_query[c.QUERY_ID])
    _, first_of_code = np.unique(query_codes, return_index=True)  # codes are dense: 0, 1, ... in order
    query_of_code = pc.cast(per_query[c.QUERY_ID].take(pa.array(first_of_code)), pa.string()).to_pylist()
    pair = np.stack([codes(per_query[column]) for column in (c.RUN_ID, c.MEASURE)] + [codes(per_query[c.K].fill_null(-1))])
    values = per_query[c.VALUE].to_numpy(zero_copy_only=False).astype(np.float64)
    judged = per_query[c.JUDGED_AT_K].to_numpy(zero_copy_only=False).astype(np.float64)
    rows = []
    for name in slices:
        values_of = by_query[name]
        texts = [values_of.get(query) for query in query_of_code]  # each query once
        distinct = sorted({text for text in texts if text is not None})
        code_of = {text: i for i, text in enumerate(distinct)}
        value_code = np.array([code_of.get(text, len(distinct)) for text in texts], dtype=np.int64)[query_codes]
        _, first, group = np.unique(np.vstack([value_code, pair]), axis=1, return_index=True, return_inverse=True)
        order = np.argsort(group.ravel(), kind="stable")
        bounds = np.flatnonzero(np.diff(group.ravel()[order])) + 1
        keys = per_query.select([c.RUN_ID, c.MEASURE, c.K]).take(pa.array(first)).to_pylist()
        for start, key, members in zip(first, keys, np.split(order, bounds), strict=True):
            mean = mean_of_total(exact_total(values[members]), len(members))
            shares = judged[members]
            shares = shares[~np.isnan(shares)]
            measure = key[c.MEASURE]
            rows.append(
                {
                    SLICE: name,
                    SLICE_VALUE: texts[query_codes[start]],
                    c.RUN_ID: key[c.RUN_ID],
                    c.MEASURE: measure,
                    c.K: key[c.K],
                    c.NDCG: mean if measure in NDCG_MEASURES else None,
                    c.NUM_QUERIES: len(members),
                    c.JUDGED_AT_K: mean_of_total(exact_total(shares), len(shares)),
                    c.VALUE: mean,
                }
            )
    return rows
