"""The inputs of the embedded engine: what a notebook holds (a pandas or Polars DataFrame, an Arrow
table) as Arrow tables in canonical columns, with the Spark engine's checks and its one-line
messages (checks/inputs.py, checks/observe.py): missing columns, wrong types, nulls, NaN and
infinite scores, grades that are not whole numbers, and copies, refused or dropped as the options
say."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ndcg_spark import columns as c
from ndcg_spark.arrays import Codes, coded
from ndcg_spark.checks.kinds import GIVEN, JUDGMENTS, MAX_EXPONENTIAL_RELEVANCE, RESULTS, not_a_table, table_kind
from ndcg_spark.errors import InputError
from ndcg_spark.options import (
    GAIN_EXPONENTIAL,
    ON_DUPLICATE_JUDGMENT_KEEP_MAX,
    ON_DUPLICATE_RESULT_KEEP_BEST,
    ORDER_BY_RANK,
    Options,
    spelling,
)
from ndcg_spark.remedies import Remedy


def as_arrow(frame: object, label: str) -> pa.Table:
    """An input as an Arrow table (pandas' index dropped; Polars through its own Arrow)."""
    kind = table_kind(frame)
    if kind == "pyarrow" and isinstance(frame, pa.Table):
        return frame
    if kind == "pandas":
        return pa.Table.from_pandas(frame, preserve_index=False)
    if kind == "polars":
        return frame.to_arrow()  # type: ignore[attr-defined]
    raise not_a_table(frame, label)


@dataclass(frozen=True)
class IdCodes:
    """The codes of both inputs' ids (arrays.coded), row for row with Checked's tables: the checks
    compute them for their duplicate keys, and the scoring starts from them."""

    judged_query: Codes
    judged_doc: Codes
    run: Codes
    query: Codes
    doc: Codes


@dataclass(frozen=True)
class Checked:
    """Both inputs in canonical columns, checked, and their counts."""

    judgments: pa.Table
    results: pa.Table
    judgment_rows: int
    result_rows: int
    duplicate_judgments_dropped: int
    duplicate_results_dropped: int
    codes: IdCodes


def checked(
    judgments: object, results: object | Mapping[str, object], options: Options, where: tuple[str, str] = (GIVEN, GIVEN)
) -> Checked:
    """Both inputs as the Spark engine's checks see them; results may map run names to tables.
    where: how messages name the judgments and the results (their paths, when read from files)."""
    sources: list[tuple[pa.Table, str | None]]
    if isinstance(results, Mapping):
        sources = [(as_arrow(frame, RESULTS), str(name)) for name, frame in results.items()]
    else:
        sources = [(as_arrow(results, RESULTS), None)]
    judged, judgment_rows, judgments_dropped, judged_ids = _judgments(
        as_arrow(judgments, JUDGMENTS), options, f"{JUDGMENTS} {where[0]}"
    )
    tables, result_rows = [], 0
    for table, name in sources:
        canonical, rows = _results(table, name, options, where[1])
        tables.append(canonical)
        result_rows += rows
    _one_input_per_run(tables, [name for _, name in sources])
    retrieved, results_dropped, ids = _deduplicated_results(_concatenated(tables), options, f"{RESULTS} {where[1]}")
    codes = IdCodes(*judged_ids, *ids)
    return Checked(judged, retrieved, judgment_rows, result_rows, judgments_dropped, results_dropped, codes)


def _one_input_per_run(tables: Sequence[pa.Table], names: Sequence[str | None]) -> None:
    """A run in two of several results tables is refused, as the Spark engine refuses it."""
    seen: dict[str, str | None] = {}
    for table, name in zip(tables, names, strict=True):
        for run in pc.unique(table[c.RUN_ID]).to_pylist():
            if run in seen:
                raise InputError(
                    f"{RESULTS}: run {run!r} comes from two inputs, {seen[run]}={GIVEN} and {name}={GIVEN};"
                    " each run must come from one input"
                )
            seen[run] = name


def _concatenated(tables: Sequence[pa.Table]) -> pa.Table:
    """Several results tables as one; ids of different types in them compared as text."""
    if len({table.schema for table in tables}) > 1:
        tables = [table.set_column(1, c.QUERY_ID, pc.cast(table[c.QUERY_ID], pa.string())) for table in tables]
        tables = [table.set_column(2, c.DOC_ID, pc.cast(table[c.DOC_ID], pa.string())) for table in tables]
    return pa.concat_tables(tables)


def _require(table: pa.Table, label: str, names: Sequence[str], setting: str) -> None:
    missing = [name for name in names if name not in table.column_names]
    if missing:
        raise InputError(
            f"{label}: missing column(s) {', '.join(repr(m) for m in missing)} (found: {', '.join(table.column_names)})",
            naming=spelling(setting),
        )


def _refuse(label: str, column: str, bad: int, rows: int, problem: str) -> None:
    if bad:
        raise InputError(
            f"{label}: column '{column}': {bad} of {rows} rows {problem}",
            column=column,
            problem=problem,
            bad=bad,
            rows=rows,
        )


def _id(table: pa.Table, label: str, name: str) -> pa.ChunkedArray:
    """An id column, strings or whole numbers (compared as their text by the scoring, as
    trec_eval's ids: arrays.codes), its nulls refused."""
    column = table[name]
    if pa.types.is_large_string(column.type):  # pandas' and Polars' strings, in Arrow
        column = pc.cast(column, pa.string())
    if not (pa.types.is_string(column.type) or pa.types.is_integer(column.type)):
        raise InputError(f"{label}: column '{name}' has type {column.type}, expected string or integer")
    _refuse(label, name, column.null_count, len(table), "are null")
    return column


def _number(table: pa.Table, label: str, name: str, expected: str) -> np.ndarray:
    column = table[name]
    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type) or pa.types.is_decimal(column.type)):
        raise InputError(f"{label}: column '{name}' has type {column.type}, expected {expected}")
    _refuse(label, name, column.null_count, len(table), "are null")
    return pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)


def _judgments(table: pa.Table, options: Options, label: str) -> tuple[pa.Table, int, int, tuple[Codes, Codes]]:
    """label: how messages name the judgments ("judgments DataFrame", "judgments PATH"); the
    checked table, its rows, the copies dropped, and its query and doc codes."""
    names = options.judgment_names
    _require(table, label, [names.query_id, names.doc_id, names.relevance], "judgments_columns")
    rows = len(table)
    if rows == 0:
        raise InputError(f"{label}: no rows")
    query, doc = _id(table, label, names.query_id), _id(table, label, names.doc_id)
    relevance = _number(table, label, names.relevance, "integer")
    _refuse(label, names.relevance, int(np.isnan(relevance).sum()), rows, "are NaN")
    _refuse(
        label,
        names.relevance,
        int((relevance != np.floor(relevance)).sum() - np.isnan(relevance).sum()),
        rows,
        "are not whole numbers",
    )
    if options.gain == GAIN_EXPONENTIAL:
        too_large = int((relevance > MAX_EXPONENTIAL_RELEVANCE).sum())
        _refuse(
            label,
            names.relevance,
            too_large,
            rows,
            f"exceed {MAX_EXPONENTIAL_RELEVANCE}, too large for exponential gain 2^rel - 1",
        )
    canonical = pa.table({c.QUERY_ID: query, c.DOC_ID: doc, c.RELEVANCE: relevance})
    ids = coded(query), coded(doc)
    keys = _keys([ids[0].codes, ids[1].codes])
    copies = _copies(keys)
    if not copies.extra:
        return canonical, rows, 0, ids
    if options.duplicate_judgments != ON_DUPLICATE_JUDGMENT_KEEP_MAX:
        raise InputError(
            f"{label}: columns '{names.query_id}', '{names.doc_id}': {copies.keys} (query, doc) pairs are judged"
            f" more than once ({copies.extra} extra rows); trec_eval refuses this",
            remedy=Remedy(spelling("duplicate_judgments"), ON_DUPLICATE_JUDGMENT_KEEP_MAX, "to keep the highest grade"),
        )
    kept = _first_of_each(keys, [-relevance])
    return canonical.take(pa.array(kept)), rows, copies.extra, (ids[0].take(kept), ids[1].take(kept))


def _results(table: pa.Table, name: str | None, options: Options, where: str) -> tuple[pa.Table, int]:
    names = options.result_names
    required = [names.query_id, names.doc_id, names.score, *([names.rank] if options.order_by == ORDER_BY_RANK else [])]
    label, named = f"{RESULTS} {where}", f"{RESULTS} {where}" if name is None else f"{RESULTS} {name} {where}"
    _require(table, label, required, "results_columns")
    rows = len(table)
    if rows == 0:
        raise InputError(f"{label}: no rows")
    query, doc = _id(table, named, names.query_id), _id(table, named, names.doc_id)
    score = _number(table, label, names.score, "a number (double)")
    _refuse(label, names.score, int(np.isnan(score).sum()), rows, "are NaN")
    _refuse(label, names.score, int(np.isinf(score).sum()), rows, "are infinite")
    if names.run_id in table.column_names:
        run = pc.cast(_id(table, label, names.run_id), pa.string())  # run names are text in every report
    else:
        run = pa.chunked_array([pa.repeat(pa.scalar(name or options.run_id, pa.string()), rows)])
    columns: dict[str, Any] = {c.RUN_ID: run, c.QUERY_ID: query, c.DOC_ID: doc, c.SCORE: score}
    if options.order_by == ORDER_BY_RANK:
        rank = table[names.rank]
        if not pa.types.is_integer(rank.type):
            raise InputError(f"{label}: column '{names.rank}' has type {rank.type}, expected integer")
        _refuse(label, names.rank, rank.null_count, rows, "are null")
        columns[c.RANK] = pc.cast(rank, pa.int64())
    return pa.table(columns), rows


def _deduplicated_results(table: pa.Table, options: Options, label: str) -> tuple[pa.Table, int, tuple[Codes, ...]]:
    """Copies of a document in one (run, query) list: refused, or the best-ranked kept. The
    table, the copies dropped, and its run, query and doc codes."""
    names = options.result_names
    ids = tuple(coded(table[name]) for name in (c.RUN_ID, c.QUERY_ID, c.DOC_ID))
    keys = _keys([part.codes for part in ids])
    copies = _copies(keys)
    if not copies.extra:
        return table, 0, ids
    if options.duplicate_results != ON_DUPLICATE_RESULT_KEEP_BEST:
        raise InputError(
            f"{label}: columns '{names.query_id}', '{names.doc_id}': {copies.keys} documents are retrieved more"
            f" than once for the same query and run ({copies.extra} extra rows); trec_eval refuses this",
            remedy=Remedy(spelling("duplicate_results"), ON_DUPLICATE_RESULT_KEEP_BEST, "to keep the best-scored copy"),
        )
    score = table[c.SCORE].to_numpy(zero_copy_only=False)
    by_rank = [table[c.RANK].to_numpy(zero_copy_only=False)] if c.RANK in table.column_names else []
    kept = _first_of_each(keys, [*by_rank, -score])
    return table.take(pa.array(kept)), copies.extra, tuple(part.take(kept) for part in ids)


def _keys(columns: list[np.ndarray]) -> np.ndarray:
    """One int64 per row, equal where all the code columns are (codes count from 0)."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:
        size = int(column.max()) + 1 if len(column) else 1
        key = key * size + column
    return key


@dataclass(frozen=True)
class _Copies:
    keys: int  # keys held by more than one row
    extra: int  # rows beyond the first of each key


def _copies(keys: np.ndarray) -> _Copies:
    ordered = np.sort(keys)
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return _Copies(0, 0)
    firsts_of_copies = same & np.concatenate([[True], ~same[:-1]])
    return _Copies(int(firsts_of_copies.sum()), int(same.sum()))


def _first_of_each(keys: np.ndarray, preference: list[np.ndarray]) -> np.ndarray:
    """The row kept of each key: the first by `preference` (ascending sort keys, most important first)."""
    order = np.lexsort([*reversed(preference), keys])
    ordered = keys[order]
    first = np.concatenate([[True], ordered[1:] != ordered[:-1]])
    return np.sort(order[first])
