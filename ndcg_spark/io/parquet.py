"""Parquet inputs: read with every file's schema merged, so disagreeing files are refused up front."""

from __future__ import annotations

from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from ndcg_spark.errors import InputError, first_line
from ndcg_spark.io.storage import file_system


def read_parquet(spark: SparkSession, path: str, label: str) -> DataFrame:
    """Every file's footer is read (mergeSchema), so files that disagree on a column's type are
    refused here, naming the column, rather than failing half-way through the main pass."""
    try:
        frame = spark.read.option("mergeSchema", "true").parquet(path)
        frame.schema  # noqa: B018 - resolves the schema now, so a bad path fails here
    except (PySparkException, Py4JJavaError) as error:
        cause = first_line(error, innermost=True)
        if "merg" in cause.lower():
            conflict = _schema_conflict(spark, path) or cause
            raise InputError(f"{label} {path}: its files disagree on the schema: {conflict}") from None
        if _NOT_PARQUET in cause:
            raise NotParquetError(f"{label} {path} is not Parquet ({cause})") from None
        raise InputError(f"{label} {path}: cannot read Parquet: {cause}") from None
    return frame


# Parquet's reader, on a file without Parquet's magic bytes (trec_eval text, plain or gzip).
_NOT_PARQUET = "is not a Parquet file"


class NotParquetError(InputError):
    """An input that is not Parquet at all: most often trec_eval text given without its format,
    which the caller names in its own words (the job: its --judgments-format flag)."""


_CONFLICT_FILES_CHECKED = 1000


def _schema_conflict(spark: SparkSession, path: str) -> str | None:
    """The first column whose type differs between two files of the input, and where: read file
    by file, only after the merge failed (at most the first 1000 files)."""
    files = [
        info.path for info in file_system(spark, path).files(path) if not info.path.rsplit("/", 1)[1].startswith(("_", "."))
    ][:_CONFLICT_FILES_CHECKED]
    seen: dict[str, tuple[T.DataType, str]] = {}
    for file in files:
        for column in spark.read.parquet(file).schema:
            first = seen.setdefault(column.name, (column.dataType, file))
            if first[0] != column.dataType:
                return (
                    f"column '{column.name}' is {first[0].simpleString()} in {first[1]}"
                    f" but {column.dataType.simpleString()} in {file}"
                )
    return None
