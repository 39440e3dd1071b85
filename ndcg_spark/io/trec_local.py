"""trec_eval's text formats read in-process, with pyarrow: what io/trec.py reads with Spark, line
for line the same (split on runs of ASCII whitespace, blank lines skipped, the same fields and
types, the same refusal of a malformed line naming its file and line number), for the embedded
engine. A file, a .gz file, or a folder of them (its files in name order, hidden ones skipped,
as Spark lists a folder)."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ndcg_spark.errors import InputError
from ndcg_spark.io.trec_formats import QRELS, LineFormat, malformed_message
from ndcg_spark.option_values import ColumnNames

_HIDDEN = ("_", ".")
_NEWLINE = ord("\n")


def _files(path: str, label: str) -> list[Path]:
    """The files a path names: itself, or a folder's visible files in name order."""
    given = Path(path)
    if given.is_dir():
        files = sorted(p for p in given.iterdir() if p.is_file() and not p.name.startswith(_HIDDEN))
        if not files:
            raise InputError(f"{label} {path}: the folder holds no files")
        return files
    if not given.exists():
        raise InputError(f"{label} {path}: no such file or folder")
    return [given]


def _bytes(file: Path, label: str, path: str) -> bytes:
    try:
        return gzip.decompress(file.read_bytes()) if file.suffix == ".gz" else file.read_bytes()
    except (OSError, EOFError) as error:
        raise InputError(f"{label} {path}: cannot read {file}: {error}") from None


def _lines(data: bytes, label: str, path: str, file: Path) -> pa.Array:
    """Each line of the text, its newline kept (trimmed later with the other whitespace): one
    string array over the file's own bytes, cut at its newlines (no Python string per line)."""
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == _NEWLINE) + 1
    offsets = np.concatenate([[0], ends, [len(data)] if not len(ends) or ends[-1] != len(data) else []]).astype(np.int64)
    lines = pa.LargeStringArray.from_buffers(len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data))
    try:
        lines.validate(full=True)
    except pa.ArrowInvalid:
        raise InputError(f"{label} {path}: {file} is not UTF-8 text") from None
    return lines


def _numbers(text: pa.Array, kind: pa.DataType) -> tuple[pa.Array, pa.Array]:
    """The fields as numbers of `kind`, and where a field is not one (NULL: not a number)."""
    try:
        return pc.cast(text, kind), pa.nulls(len(text), pa.bool_()).fill_null(False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        values: list[float | int | None] = []
        for item in text.to_pylist():
            try:
                values.append(float(item) if kind == pa.float64() else int(item))
            except (TypeError, ValueError):
                values.append(None)
        parsed = pa.array(values, kind)
        return parsed, pc.is_null(parsed)


def _fields(lines: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array]:
    """The non-blank lines' fields (a list each), their count, and each one's index in `lines`."""
    stripped = pc.ascii_trim_whitespace(lines)
    index = pc.indices_nonzero(pc.not_equal(stripped, ""))
    fields = pc.ascii_split_whitespace(pc.take(stripped, index))
    return fields, pc.list_value_length(fields), index


def _parsed(lines: pa.Array, line_format: LineFormat, names: ColumnNames) -> tuple[pa.Table, pa.Array, pa.Array]:
    """The lines' columns, whether each is malformed, and each one's index in `lines`."""
    fields, count, index = _fields(lines)
    enough = pc.greater_equal(count, line_format.fields)
    wrong = pc.invert(enough if line_format.extra_fields_ignored else pc.equal(count, line_format.fields))
    # A line short of fields takes empty ones (it is refused anyway), so that every index exists.
    padded = pc.if_else(enough, fields, pa.scalar([""] * line_format.fields, fields.type))

    def field(i: int) -> pa.Array:
        return pc.list_element(padded, i)

    if line_format is QRELS:
        relevance, bad_relevance = _numbers(field(3), pa.float64())
        columns = {names.query_id: field(0), names.doc_id: field(2), names.relevance: relevance}
        return pa.table(columns), pc.or_(wrong, bad_relevance), index
    rank, bad_rank = _numbers(field(3), pa.int64())
    score, bad_score = _numbers(field(4), pa.float64())
    columns = {
        names.query_id: field(0),
        names.doc_id: field(2),
        names.rank: rank,
        names.score: score,
        names.run_id: field(5),
    }
    return pa.table(columns), pc.or_(wrong, pc.or_(bad_rank, bad_score)), index


def read_trec_table(
    path: str, label: str, line_format: LineFormat, names: ColumnNames, *, hadoop_names: bool = False
) -> pa.Table:
    """A qrels or run file (or folder of them) as an Arrow table with the configured column names:
    qrels query_id, doc_id, relevance (double: "1.0" is read, "1.5" refused later as not whole);
    runs query_id, doc_id, rank, score, run_id. Malformed lines are counted over every file, the
    first one named; hadoop_names: its file as the Spark engine names it (file:/absolute/path)."""
    tables = []
    refused, first = 0, None
    for file in _files(path, label):
        lines = _lines(_bytes(file, label, path), label, path, file)
        table, bad, index = _parsed(lines, line_format, names)
        count = pc.sum(bad).as_py() or 0
        if count and first is None:
            line = int(index[pc.index(bad, True).as_py()].as_py())
            shown = f"file:{file.resolve()}" if hadoop_names else os.fspath(file)
            first = (line + 1, shown, lines[line].as_py().rstrip("\r\n"))
        refused += count
        tables.append(table)
    if first is not None:
        raise InputError(malformed_message(path, label, line_format, refused, *first))
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]
