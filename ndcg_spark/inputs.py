"""Reading the two inputs into canonical columns, and the row checks they must pass.

Schema problems (missing columns, wrong types, unreadable paths) are refused before any data is
read. Row problems (nulls, NaN, duplicates, ...) are counted during the main pass itself, after
the one shuffle, and enforced before anything is published (see validation.py), so that checking
costs no extra scan of the inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.config import (
    FORMAT_TREC,
    GAIN_EXPONENTIAL,
    ON_DUPLICATE_JUDGMENT_KEEP_MAX,
    ON_DUPLICATE_RESULT_KEEP_BEST,
    ORDER_BY_RANK,
    JobConfig,
)
from ndcg_spark.errors import InputError
from ndcg_spark.storage import FileSystem
from ndcg_spark.trec import QRELS, RUN, Layout, read_trec

JUDGMENTS = "judgments"
RESULTS = "results"
FILE = "_file"
_FILE_PATH = "_metadata.file_path"

# 2^rel overflows a double past 1023; far beyond any real grading scale.
MAX_EXPONENTIAL_RELEVANCE = 1000

_ID_TYPES = (T.StringType, T.IntegralType)
_FRACTIONAL_TYPES = (T.FloatType, T.DoubleType, T.DecimalType)


@dataclass(frozen=True)
class Check:
    """A condition on canonical columns that no row may meet, the input column it concerns and
    what it means."""

    column: str
    condition: Column
    problem: str


@dataclass(frozen=True)
class Duplicates:
    """What makes two rows copies (the same doc_id in one list), which copy is kept, and how to
    say it when copies are refused."""

    lists: tuple[str, ...]
    keep_first: tuple[Column, ...]
    lenient: bool
    refusal: str

    @property
    def keys(self) -> tuple[str, ...]:
        return (*self.lists, c.DOC_ID)


@dataclass(frozen=True)
class Input:
    """One input in canonical columns (all rows, bad ones included), with its row checks."""

    label: str
    path: str
    frame: DataFrame
    located: DataFrame  # frame plus the file each row came from, for error messages only
    checks: tuple[Check, ...]
    duplicates: Duplicates


def _root_cause(error: Exception) -> str:
    """The innermost Java exception's first line, or the Python error's."""
    cause = getattr(error, "java_exception", None)
    while cause is not None and cause.getCause() is not None:
        cause = cause.getCause()
    text = str(cause.toString()) if cause is not None else str(error)
    lines = text.strip().splitlines()
    return lines[0] if lines else type(error).__name__


def read_parquet(spark: SparkSession, path: str, label: str) -> DataFrame:
    """Every file's footer is read (mergeSchema), so files that disagree on a column's type are
    refused here, naming the column, rather than failing half-way through the main pass."""
    try:
        frame = spark.read.option("mergeSchema", "true").parquet(path)
        frame.schema  # noqa: B018 - resolves the schema now, so a bad path fails here
    except (PySparkException, Py4JJavaError) as error:
        cause = _root_cause(error)
        if "merg" in cause.lower():
            conflict = _schema_conflict(spark, path) or cause
            raise InputError(f"{label} {path}: its files disagree on the schema: {conflict}") from None
        raise InputError(f"{label} {path}: cannot read Parquet: {cause}") from None
    return frame


_CONFLICT_FILES_CHECKED = 1000


def _schema_conflict(spark: SparkSession, path: str) -> str | None:
    """The first column whose type differs between two files of the input, and where: read file
    by file, only after the merge failed (at most the first 1000 files)."""
    files = [
        info.path
        for info in FileSystem(spark, path).files(path)
        if not info.path.rsplit("/", 1)[1].startswith(("_", "."))
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


def read_input(spark: SparkSession, path: str, label: str, fmt: str, layout: Layout, config: JobConfig) -> DataFrame:
    """Parquet as it is, or trec_eval text parsed into the configured column names."""
    if fmt == FORMAT_TREC:
        return read_trec(spark, path, label, layout, config.columns)
    return read_parquet(spark, path, label)


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


def _check_id_type(frame: DataFrame, label: str, path: str, name: str) -> T.DataType:
    found = _column_type(frame, name)
    if not isinstance(found, _ID_TYPES):
        raise _wrong_type(label, path, name, found, "string or integer")
    return found


def shared_id_type(*found: T.DataType) -> T.DataType:
    """Ids are compared as strings, as trec_eval does, so '7' in one input matches 7 in the
    other. When both inputs store an id as integers, comparing the integers is the same thing
    and far cheaper to shuffle, sort and hash; only the tie-break order (doc_id in byte order)
    needs the string, and ranking_order casts for it."""
    return T.LongType() if all(isinstance(t, T.IntegralType) for t in found) else T.StringType()


def _id_column(name: str, canonical: str, id_type: T.DataType) -> Column:
    return F.col(name).cast(id_type).alias(canonical)


@dataclass(frozen=True)
class IdTypes:
    query_id: T.DataType
    doc_id: T.DataType


def _null_checks(pairs: Sequence[tuple[str, str]]) -> list[Check]:
    """(input column, canonical column) pairs whose values must not be null."""
    return [Check(name, F.col(canonical).isNull(), "are null") for name, canonical in pairs]


def _score_checks(name: str) -> list[Check]:
    score = F.col(c.SCORE)
    return [
        Check(name, score.isNull(), "are null"),
        Check(name, F.isnan(score), "are NaN"),
        Check(name, score.isin(float("inf"), float("-inf")), "are infinite"),
    ]


def _input(
    label: str, path: str, raw: DataFrame, columns: Sequence[Column], checks: Sequence[Check], duplicates: Duplicates
) -> Input:
    return Input(
        label=label,
        path=path,
        frame=raw.select(*columns),
        located=raw.select(*columns, F.col(_FILE_PATH).alias(FILE)),
        checks=tuple(checks),
        duplicates=duplicates,
    )


def read_inputs(spark: SparkSession, config: JobConfig) -> tuple[Input, Input]:
    """(judgments, results) in canonical columns; schema problems are refused here."""
    names = config.columns
    judgments = read_input(spark, config.judgments, JUDGMENTS, config.judgments_format, QRELS, config)
    _require(judgments, JUDGMENTS, config.judgments, [names.query_id, names.doc_id, names.relevance])
    results = read_input(spark, config.results, RESULTS, config.results_format, RUN, config)
    required = [names.query_id, names.doc_id, names.score]
    if config.order_by == ORDER_BY_RANK:
        required.append(names.rank)
    _require(results, RESULTS, config.results, required)
    id_types = IdTypes(
        *[
            shared_id_type(
                _check_id_type(judgments, JUDGMENTS, config.judgments, name),
                _check_id_type(results, RESULTS, config.results, name),
            )
            for name in (names.query_id, names.doc_id)
        ]
    )
    return _judgments(judgments, config, id_types), _results(results, config, id_types)


def _judgments(raw: DataFrame, config: JobConfig, id_types: IdTypes) -> Input:
    path, names = config.judgments, config.columns
    relevance_type = _column_type(raw, names.relevance)
    relevance = F.col(c.RELEVANCE)
    checks = _null_checks(
        [(names.query_id, c.QUERY_ID), (names.doc_id, c.DOC_ID), (names.relevance, c.RELEVANCE)]
    )
    if isinstance(relevance_type, _FRACTIONAL_TYPES):
        checks += [
            Check(names.relevance, F.isnan(relevance), "are NaN"),
            Check(names.relevance, relevance != F.floor(relevance), "are not whole numbers"),
        ]
    elif not isinstance(relevance_type, T.IntegralType):
        raise _wrong_type(JUDGMENTS, path, names.relevance, relevance_type, "integer")
    if config.gain == GAIN_EXPONENTIAL:
        checks.append(
            Check(
                names.relevance,
                relevance > MAX_EXPONENTIAL_RELEVANCE,
                f"exceed {MAX_EXPONENTIAL_RELEVANCE}, too large for exponential gain 2^rel - 1",
            )
        )
    columns = [
        _id_column(names.query_id, c.QUERY_ID, id_types.query_id),
        _id_column(names.doc_id, c.DOC_ID, id_types.doc_id),
        # A double carries every valid grade exactly, and lets a bad one (NaN, 2.5) be counted
        # after the shuffle instead of failing a cast.
        F.col(names.relevance).cast(T.DoubleType()).alias(c.RELEVANCE),
    ]
    duplicates = Duplicates(
        lists=(c.QUERY_ID,),
        keep_first=(F.col(c.RELEVANCE).desc(),),
        lenient=config.duplicate_judgments == ON_DUPLICATE_JUDGMENT_KEEP_MAX,
        refusal=(
            f"columns '{names.query_id}', '{names.doc_id}': {{keys}} (query, doc) pairs are judged"
            " more than once ({extra} extra rows); trec_eval refuses this, set [validation]"
            ' duplicate_judgments = "keep_max" to keep the highest grade'
        ),
    )
    return _input(JUDGMENTS, path, raw, columns, checks, duplicates)


def _results(raw: DataFrame, config: JobConfig, id_types: IdTypes) -> Input:
    path, names = config.results, config.columns
    score_type = _column_type(raw, names.score)
    if not isinstance(score_type, T.NumericType):
        raise _wrong_type(RESULTS, path, names.score, score_type, "a number (double)")
    checks = _null_checks([(names.query_id, c.QUERY_ID), (names.doc_id, c.DOC_ID)])
    checks += _score_checks(names.score)
    if names.run_id in raw.columns:
        _check_id_type(raw, RESULTS, path, names.run_id)
        run_id = _id_column(names.run_id, c.RUN_ID, T.StringType())
        checks += _null_checks([(names.run_id, c.RUN_ID)])
    else:
        run_id = F.lit(config.run_id).alias(c.RUN_ID)
    rank = F.lit(None).cast(T.LongType()).alias(c.RANK)
    if config.order_by == ORDER_BY_RANK:
        rank_type = _column_type(raw, names.rank)
        if not isinstance(rank_type, T.IntegralType):
            raise _wrong_type(RESULTS, path, names.rank, rank_type, "integer")
        checks += _null_checks([(names.rank, c.RANK)])
        rank = F.col(names.rank).cast(T.LongType()).alias(c.RANK)
    columns = [
        run_id,
        _id_column(names.query_id, c.QUERY_ID, id_types.query_id),
        _id_column(names.doc_id, c.DOC_ID, id_types.doc_id),
        F.col(names.score).cast(T.DoubleType()).alias(c.SCORE),
        rank,
    ]
    # Without a rank column every rank is NULL: sorting by it would cost without deciding anything.
    by_rank = (F.col(c.RANK).asc_nulls_last(),) if config.order_by == ORDER_BY_RANK else ()
    duplicates = Duplicates(
        lists=(c.QUERY_ID, c.RUN_ID),
        keep_first=(*by_rank, F.col(c.SCORE).desc()),
        lenient=config.duplicate_results == ON_DUPLICATE_RESULT_KEEP_BEST,
        refusal=(
            f"columns '{names.query_id}', '{names.doc_id}': {{keys}} documents are retrieved more"
            " than once for the same query and run ({extra} extra rows); trec_eval refuses this,"
            ' set [validation] duplicate_results = "keep_best" to keep the best-scored copy'
        ),
    )
    return _input(RESULTS, path, raw, columns, checks, duplicates)
