"""Parquet inputs read in this process with pyarrow (the embedded engine's), refused as io/parquet.py
refuses them on Spark: a path that is not Parquet, and files that disagree on a column's type,
named."""

from __future__ import annotations

import os
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from ndcg_spark.errors import InputError, first_line
from ndcg_spark.io.local_paths import local_path
from ndcg_spark.io.parquet import NotParquetError

_NOT_PARQUET = "magic bytes not found"


def data_files(folder: str) -> list[str]:
    """The data files of a folder as Spark lists them: hidden (., _) names skipped, recursively."""
    found = []
    for root, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if not name.startswith((".", "_")))
        found += [os.path.join(root, name) for name in sorted(names) if not name.startswith((".", "_"))]
    return found


def _schema_conflict(path: str) -> str | None:
    """The first column whose type differs between two files of a folder, and where."""
    seen: dict[str, tuple[pa.DataType, str]] = {}
    for file in data_files(path) if os.path.isdir(path) else []:
        for field in pq.read_schema(file):
            first = seen.setdefault(field.name, (field.type, file))
            if first[0] != field.type:
                return f"column '{field.name}' is {first[0]} in {first[1]} but {field.type} in {file}"
    return None


def read_parquet_table(path: str, label: str, columns: Sequence[str] = (), required: Sequence[str] = ()) -> pa.Table:
    """A local Parquet file or folder (hive partitions as columns, as Spark reads them). With
    `columns`, only those of them the input has are read, as long as it has all of `required`;
    otherwise every column, for the checks to name what is missing beside what is there."""
    local = local_path(path) or path
    try:
        conflict = _schema_conflict(local)
        if conflict is not None:
            raise InputError(f"{label} {path}: its files disagree on the schema: {conflict}")
        if columns:
            present = set(pq.ParquetDataset(local).schema.names)
            if set(required) <= present:
                return pq.read_table(local, columns=[name for name in dict.fromkeys(columns) if name in present])
        return pq.read_table(local)
    except FileNotFoundError:
        raise InputError(f"{label} {path}: no such file or folder") from None
    except (pa.ArrowException, OSError) as error:
        cause = first_line(error)
        if _NOT_PARQUET in cause:
            raise NotParquetError(f"{label} {path} is not Parquet ({cause})") from None
        raise InputError(f"{label} {path}: cannot read Parquet: {cause}") from None
