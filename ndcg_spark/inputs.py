"""Reading and validating the two inputs: everything past this module sees clean, canonical columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T
from py4j.protocol import Py4JJavaError

from ndcg_spark import columns as c
from ndcg_spark.config import (
    GAIN_EXPONENTIAL,
    ON_DUPLICATE_JUDGMENT_KEEP_MAX,
    ON_DUPLICATE_RESULT_KEEP_BEST,
    ORDER_BY_RANK,
    JobConfig,
)
from ndcg_spark.errors import InputError

JUDGMENTS = "judgments"
RESULTS = "results"
_FILE_PATH = "_metadata.file_path"

# 2^rel overflows a double past 1023; far beyond any real grading scale.
MAX_EXPONENTIAL_RELEVANCE = 1000

_ID_TYPES = (T.StringType, T.IntegralType)
_FRACTIONAL_TYPES = (T.FloatType, T.DoubleType, T.DecimalType)


@dataclass(frozen=True)
class LoadedInput:
    """A validated input in canonical columns, with the counts the summary reports."""

    frame: DataFrame
    rows_read: int
    duplicates_dropped: int


@dataclass(frozen=True)
class _Check:
    """A condition that no row may meet, with the column it concerns and what it means."""

    column: str
    condition: Column
    problem: str


def read_parquet(spark: SparkSession, path: str, label: str) -> DataFrame:
    try:
        frame = spark.read.parquet(path)
        frame.schema  # noqa: B018 - resolves the schema now, so a bad path fails here
    except (PySparkException, Py4JJavaError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InputError(f"{label} {path}: cannot read Parquet: {first_line}") from None
    return frame


def _column_type(frame: DataFrame, name: str) -> T.DataType:
    return frame.schema[name].dataType


def _require(frame: DataFrame, label: str, path: str, names: Sequence[str]) -> None:
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise InputError(
            f"{label} {path}: missing column(s) {', '.join(repr(m) for m in missing)}"
            f" (found: {', '.join(frame.columns)})"
        )


def _wrong_type(label: str, path: str, name: str, found: T.DataType, expected: str) -> InputError:
    return InputError(
        f"{label} {path}: column '{name}' has type {found.simpleString()}, expected {expected}"
    )


def _id_column(frame: DataFrame, label: str, path: str, name: str, canonical: str) -> Column:
    """Ids are compared as strings, as trec_eval does, so '7' in one input matches 7 in the other."""
    found = _column_type(frame, name)
    if not isinstance(found, _ID_TYPES):
        raise _wrong_type(label, path, name, found, "string or integer")
    return F.col(name).cast(T.StringType()).alias(canonical)


def _first_file(frame: DataFrame, condition: Column) -> str | None:
    rows = frame.filter(condition).select(F.col(_FILE_PATH)).limit(1).collect()
    return rows[0][0] if rows else None


def _enforce(frame: DataFrame, label: str, path: str, checks: Sequence[_Check]) -> int:
    """Run every check in one aggregation; raise on the first that fails, naming its file."""
    counts = frame.agg(
        F.count(F.lit(1)).alias("rows"),
        *[
            F.sum(F.when(check.condition, 1).otherwise(0)).alias(f"check_{i}")
            for i, check in enumerate(checks)
        ],
    ).first()
    rows = int(counts["rows"])
    if rows == 0:
        raise InputError(f"{label} {path}: no rows")
    for i, check in enumerate(checks):
        bad = int(counts[f"check_{i}"])
        if bad:
            where = _first_file(frame, check.condition)
            raise InputError(
                f"{label} {path}: column '{check.column}': {bad} of {rows} rows {check.problem}"
                + (f" (first in {where})" if where else "")
            )
    return rows


def _score_checks(name: str) -> list[_Check]:
    score = F.col(name).cast(T.DoubleType())
    return [
        _Check(name, F.col(name).isNull(), "are null"),
        _Check(name, F.isnan(score), "are NaN"),
        _Check(name, score.isin(float("inf"), float("-inf")), "are infinite"),
    ]


def _null_checks(names: Sequence[str]) -> list[_Check]:
    return [_Check(name, F.col(name).isNull(), "are null") for name in names]


def _duplicates(frame: DataFrame, keys: Sequence[str]) -> tuple[int, int]:
    """(keys that occur more than once, rows beyond the first of each)."""
    row = (
        frame.groupBy(*keys)
        .count()
        .filter(F.col("count") > 1)
        .agg(F.count(F.lit(1)).alias("keys"), F.sum(F.col("count") - 1).alias("extra"))
        .first()
    )
    return int(row["keys"]), int(row["extra"] or 0)


def load_judgments(spark: SparkSession, config: JobConfig) -> LoadedInput:
    path, names = config.judgments, config.columns
    raw = read_parquet(spark, path, JUDGMENTS)
    _require(raw, JUDGMENTS, path, [names.query_id, names.doc_id, names.relevance])
    relevance_type = _column_type(raw, names.relevance)
    checks = _null_checks([names.query_id, names.doc_id, names.relevance])
    if isinstance(relevance_type, _FRACTIONAL_TYPES):
        relevance = F.col(names.relevance)
        checks += [
            _Check(names.relevance, F.isnan(relevance.cast(T.DoubleType())), "are NaN"),
            _Check(names.relevance, relevance != F.floor(relevance), "are not whole numbers"),
        ]
    elif not isinstance(relevance_type, T.IntegralType):
        raise _wrong_type(JUDGMENTS, path, names.relevance, relevance_type, "integer")
    frame = raw.select(
        _id_column(raw, JUDGMENTS, path, names.query_id, c.QUERY_ID),
        _id_column(raw, JUDGMENTS, path, names.doc_id, c.DOC_ID),
        F.col(names.relevance).cast(T.LongType()).alias(c.RELEVANCE),
    )
    if config.gain == GAIN_EXPONENTIAL:
        checks.append(
            _Check(
                names.relevance,
                F.col(names.relevance) > MAX_EXPONENTIAL_RELEVANCE,
                f"exceed {MAX_EXPONENTIAL_RELEVANCE}, too large for exponential gain 2^rel - 1",
            )
        )
    rows = _enforce(raw, JUDGMENTS, path, checks)
    keys, extra = _duplicates(frame, [c.QUERY_ID, c.DOC_ID])
    if extra and config.duplicate_judgments != ON_DUPLICATE_JUDGMENT_KEEP_MAX:
        raise InputError(
            f"{JUDGMENTS} {path}: columns '{names.query_id}', '{names.doc_id}': {keys} (query, doc)"
            f" pairs are judged more than once ({extra} extra rows); trec_eval refuses this,"
            " set [validation] duplicate_judgments = \"keep_max\" to keep the highest grade"
        )
    if extra:
        frame = frame.groupBy(c.QUERY_ID, c.DOC_ID).agg(F.max(c.RELEVANCE).alias(c.RELEVANCE))
    return LoadedInput(frame.select(c.QUERY_ID, c.DOC_ID, c.RELEVANCE), rows, extra)


def load_results(spark: SparkSession, config: JobConfig) -> LoadedInput:
    path, names = config.results, config.columns
    raw = read_parquet(spark, path, RESULTS)
    required = [names.query_id, names.doc_id, names.score]
    if config.order_by == ORDER_BY_RANK:
        required.append(names.rank)
    _require(raw, RESULTS, path, required)
    score_type = _column_type(raw, names.score)
    if not isinstance(score_type, T.NumericType):
        raise _wrong_type(RESULTS, path, names.score, score_type, "a number (double)")
    checks = _null_checks([names.query_id, names.doc_id]) + _score_checks(names.score)
    has_run = names.run_id in raw.columns
    if has_run:
        run_id = _id_column(raw, RESULTS, path, names.run_id, c.RUN_ID)
        checks += _null_checks([names.run_id])
    else:
        run_id = F.lit(config.run_id).alias(c.RUN_ID)
    rank = F.lit(None).cast(T.LongType()).alias(c.RANK)
    if config.order_by == ORDER_BY_RANK:
        rank_type = _column_type(raw, names.rank)
        if not isinstance(rank_type, T.IntegralType):
            raise _wrong_type(RESULTS, path, names.rank, rank_type, "integer")
        checks += _null_checks([names.rank])
        rank = F.col(names.rank).cast(T.LongType()).alias(c.RANK)
    frame = raw.select(
        run_id,
        _id_column(raw, RESULTS, path, names.query_id, c.QUERY_ID),
        _id_column(raw, RESULTS, path, names.doc_id, c.DOC_ID),
        F.col(names.score).cast(T.DoubleType()).alias(c.SCORE),
        rank,
    )
    rows = _enforce(raw, RESULTS, path, checks)
    keys, extra = _duplicates(frame, [c.RUN_ID, c.QUERY_ID, c.DOC_ID])
    if extra and config.duplicate_results != ON_DUPLICATE_RESULT_KEEP_BEST:
        raise InputError(
            f"{RESULTS} {path}: columns '{names.query_id}', '{names.doc_id}': {keys} documents are"
            f" retrieved more than once for the same query and run ({extra} extra rows);"
            " trec_eval refuses this, set [validation] duplicate_results = \"keep_best\""
            " to keep the best-scored copy"
        )
    if extra:
        frame = keep_best_duplicate(frame)
    return LoadedInput(frame, rows, extra)


def keep_best_duplicate(results: DataFrame) -> DataFrame:
    """Of each (run, query, doc) keep the copy that ranks highest; the order is total."""
    window = Window.partitionBy(c.RUN_ID, c.QUERY_ID, c.DOC_ID).orderBy(
        F.col(c.RANK).asc_nulls_last(), F.col(c.SCORE).desc()
    )
    return (
        results.withColumn("_copy", F.row_number().over(window))
        .filter(F.col("_copy") == 1)
        .select(c.RUN_ID, c.QUERY_ID, c.DOC_ID, c.SCORE, c.RANK)
    )
