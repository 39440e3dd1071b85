"""Per-slice summaries: the overall mean broken down by columns that describe a query (locale,
device, traffic segment), read from the results or from a query-metadata Parquet.

A slice value belongs to a query, not to a row: a query with two values of a slice column would
be counted in two slices, so it is refused. A query without a value is summarized under NULL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.checks.inputs import require_columns
from ndcg_spark.errors import InputError
from ndcg_spark.frames import sql_name
from ndcg_spark.scoring.summary import exact_mean, ndcg_of

QUERY_METADATA = "query_metadata"
SLICE = "slice"
SLICE_VALUE = "slice_value"
SLICE_SUMMARY_COLUMNS = (SLICE, SLICE_VALUE, c.RUN_ID, c.MEASURE, c.K, c.NDCG, c.NUM_QUERIES, c.JUDGED_AT_K, c.VALUE)
SLICE_SUMMARY_SCHEMA = T.StructType(
    [
        T.StructField(name, kind)
        for name, kind in zip(
            SLICE_SUMMARY_COLUMNS,
            (
                T.StringType(),
                T.StringType(),
                T.StringType(),
                T.StringType(),
                T.IntegerType(),
                T.DoubleType(),
                T.LongType(),
                T.DoubleType(),
                T.DoubleType(),
            ),
            strict=True,
        )
    ]
)
_VALUES = "_values"
_ROWS = "_rows"


@dataclass(frozen=True)
class SliceSource:
    """Where the slice columns come from (label and path name it in messages), in canonical query_id."""

    label: str
    path: str
    frame: DataFrame


def slice_source(label: str, path: str, frame: DataFrame, query_column: str, slices: Sequence[str]) -> SliceSource:
    """The query id and the slice columns of `frame` (under internal names, so that a slice
    column named like the query id or a report column cannot clash); a missing column is refused
    now, before the main pass."""
    require_columns(frame, label, path, [query_column, *slices], what="slice column(s)")
    selected = frame.select(
        F.col(query_column).cast("string").alias(c.QUERY_ID),
        *[F.col(name).cast("string").alias(_slice_column(i)) for i, name in enumerate(slices)],
    )
    return SliceSource(label, path, selected)


def query_slices(source: SliceSource, slices: Sequence[str]) -> DataFrame:
    """One row per query with its slice values; refuses a query with two values of a slice (or,
    in query metadata, two rows)."""
    label, path = source.label, source.path
    per_query = source.frame.groupBy(c.QUERY_ID).agg(
        F.count(F.lit(1)).alias(_ROWS),
        *[F.count_distinct(F.col(_slice_column(i))).alias(f"{_VALUES}_{i}") for i in range(len(slices))],
        *[F.max(F.col(_slice_column(i))).alias(_slice_column(i)) for i in range(len(slices))],
    )
    checks = [F.sum(F.when(F.col(f"{_VALUES}_{i}") > 1, 1).otherwise(0)) for i in range(len(slices))]
    checks.append(F.sum(F.when(F.col(_ROWS) > 1, 1).otherwise(0)))
    counts = per_query.agg(*[check.alias(f"check_{i}") for i, check in enumerate(checks)]).collect()[0]
    for i, name in enumerate(slices):
        if counts[i]:
            raise InputError(f"{label} {path}: column '{name}': {counts[i]} queries have more than one value")
    if label == QUERY_METADATA and counts[len(slices)]:
        raise InputError(f"{label} {path}: {counts[len(slices)]} queries appear on more than one row")
    return per_query.select(c.QUERY_ID, *[_slice_column(i) for i in range(len(slices))])


def _slice_column(index: int) -> str:
    """Slice values under internal names, so that a slice column named like the query id or a
    report column (k, measure, ...) cannot clash."""
    return f"_slice_{index}"


def slice_summary(per_query: DataFrame, query_slices_frame: DataFrame, slices: Sequence[str]) -> DataFrame:
    """The summary's means per (slice column, value, run, measure, cutoff)."""
    pairs = F.array(
        *[F.struct(F.lit(name).alias(SLICE), F.col(_slice_column(i)).alias(SLICE_VALUE)) for i, name in enumerate(slices)]
    )
    return (
        per_query.join(query_slices_frame, on=c.QUERY_ID, how="left")
        .select(c.RUN_ID, c.MEASURE, c.K, c.JUDGED_AT_K, c.VALUE, F.explode(pairs).alias("_slice"))
        .select("*", "_slice.*")
        .groupBy(SLICE, SLICE_VALUE, c.RUN_ID, c.MEASURE, c.K)
        .agg(
            ndcg_of(exact_mean(sql_name(c.VALUE))).alias(c.NDCG),
            F.count(F.lit(1)).alias(c.NUM_QUERIES),
            exact_mean(sql_name(c.JUDGED_AT_K)).alias(c.JUDGED_AT_K),
            exact_mean(sql_name(c.VALUE)).alias(c.VALUE),
        )
        .select(*SLICE_SUMMARY_COLUMNS)
    )
