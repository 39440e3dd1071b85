"""The two inputs in canonical columns, and the row checks they must pass.

Schema problems (missing columns, wrong types) are refused before any data is read. Row problems
(nulls, NaN, duplicates, ...) are counted during the main pass itself, after
the one shuffle, and enforced before anything is published (see observe.py), so that checking
costs no extra scan of the inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import reduce

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.checks.kinds import GIVEN, JUDGMENTS, MAX_EXPONENTIAL_RELEVANCE, RESULTS, require_baseline
from ndcg_spark.errors import ConfigError, InputError
from ndcg_spark.frames import sql_name
from ndcg_spark.options import (
    GAIN_EXPONENTIAL,
    ON_DUPLICATE_JUDGMENT_KEEP_MAX,
    ON_DUPLICATE_RESULT_KEEP_BEST,
    ORDER_BY_RANK,
    Options,
    spelling,
)
from ndcg_spark.remedies import Remedy, Setting

FILE = "_file"
_FILE_PATH = "_metadata.file_path"

# What a row check says of its rows, where a caller restates a refusal (the evaluator).
ARE_NAN = "are NaN"


_ID_TYPES = (T.StringType, T.IntegralType)
_FRACTIONAL_TYPES = (T.FloatType, T.DoubleType, T.DecimalType)


@dataclass(frozen=True)
class Check:
    """A condition on canonical columns that no row may meet (SQL text: one parse, where a Column
    costs a dozen Py4J calls), the input column it concerns and
    what it means."""

    column: str
    condition: str
    problem: str


@dataclass(frozen=True)
class Duplicates:
    """What makes two rows copies (the same doc_id in one list), which copy is kept, and how to
    say it when copies are refused."""

    lists: tuple[str, ...]
    keep_first: tuple[Column, ...]
    lenient: bool
    refusal: str
    remedy: Remedy | None = None

    @property
    def keys(self) -> tuple[str, ...]:
        return (*self.lists, c.DOC_ID)


@dataclass(frozen=True)
class Source:
    """An input as read, before any check: its frame, the path that names it in messages and,
    for one of several results inputs, its name (the run name of rows that carry none)."""

    frame: DataFrame
    path: str
    name: str | None = None

    @property
    def described(self) -> str:
        return self.path if self.name is None else f"{self.name}={self.path}"


@dataclass(frozen=True)
class Input:
    """One input in canonical columns (all rows, bad ones included), with its row checks. The
    results of several sources are one Input: their rows carry columns.INPUT, the source's index."""

    label: str
    path: str
    frame: DataFrame
    located: DataFrame  # frame plus the file each row came from, for error messages only
    checks: tuple[Check, ...]
    duplicates: Duplicates
    sources: tuple[str, ...] = field(default_factory=tuple)
    # Each canonical column's expression over the frame as given (one source only): what
    # labelled_inputs selects when both inputs are one frame.
    columns: Mapping[str, Column] = field(default_factory=dict)
    # Results only: some source names its runs in a column (known only once the data is read).
    run_column: bool = False


def _column_type(frame: DataFrame, name: str) -> T.DataType:
    return frame.schema[name].dataType


# The settings that name one input's columns: a missing column's remedy.
_NAME_JUDGMENTS, _NAME_RESULTS = spelling("judgments_columns"), spelling("results_columns")


def require_columns(
    frame: DataFrame, label: str, path: str, names: Sequence[str], renamed_by: Setting | None = None, what: str = "column(s)"
) -> None:
    """Refuse an input that lacks any of `names`, listing what it has and, when a setting names
    the input's columns, that setting."""
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise InputError(
            f"{label} {path}: missing {what} {', '.join(repr(m) for m in missing)} (found: {', '.join(frame.columns)})",
            naming=renamed_by,
        )


def _wrong_type(label: str, path: str, name: str, found: T.DataType, expected: str) -> InputError:
    return InputError(f"{label} {path}: column '{name}' has type {found.simpleString()}, expected {expected}")


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
    return F.col(name).cast(id_type.simpleString()).alias(canonical)


@dataclass(frozen=True)
class IdTypes:
    query_id: T.DataType
    doc_id: T.DataType


def _null_checks(pairs: Sequence[tuple[str, str]]) -> list[Check]:
    """(input column, canonical column) pairs whose values must not be null."""
    return [Check(name, f"{sql_name(canonical)} IS NULL", "are null") for name, canonical in pairs]


def _score_checks(name: str) -> list[Check]:
    score = sql_name(c.SCORE)
    return [
        Check(name, f"{score} IS NULL", "are null"),
        Check(name, f"isnan({score})", ARE_NAN),
        Check(name, f"{score} IN (CAST('Infinity' AS DOUBLE), CAST('-Infinity' AS DOUBLE))", "are infinite"),
    ]


def _input(
    label: str,
    path: str,
    raw: DataFrame,
    columns: Mapping[str, Column],
    checks: Sequence[Check],
    duplicates: Duplicates,
    located: bool,
) -> Input:
    file = F.col(_FILE_PATH) if located else F.lit(None).cast("string")
    return Input(
        label=label,
        path=path,
        frame=raw.select(*columns.values()),
        located=raw.select(*columns.values(), file.alias(FILE)),
        checks=tuple(checks),
        duplicates=duplicates,
        columns=columns,
    )


def canonical_inputs(judgments: Source, results: Sequence[Source], options: Options, located: bool) -> tuple[Input, Input]:
    """(judgments, results) in canonical columns; schema problems are refused here. Several
    results sources become one input, each source's rows tagged with its index (columns.INPUT).
    `located` says the frames carry Spark's file metadata (read from files), so a failed check
    can name the file holding the first bad row."""
    judged, names = options.judgment_names, options.result_names
    require_columns(
        judgments.frame, JUDGMENTS, judgments.path, [judged.query_id, judged.doc_id, judged.relevance], _NAME_JUDGMENTS
    )
    required = [names.query_id, names.doc_id, names.score]
    if options.order_by == ORDER_BY_RANK:
        required.append(names.rank)
    _distinct_names(results)
    for source in results:
        require_columns(source.frame, RESULTS, source.path, required, _NAME_RESULTS)
    id_types = IdTypes(
        *[
            shared_id_type(
                _check_id_type(judgments.frame, JUDGMENTS, judgments.path, getattr(judged, name)),
                *[_check_id_type(source.frame, RESULTS, source.path, getattr(names, name)) for source in results],
            )
            for name in (c.QUERY_ID, c.DOC_ID)
        ]
    )
    _known_runs(results, options)
    several = len(results) > 1
    retrieved = [_results(source, options, id_types, located, index if several else None) for index, source in enumerate(results)]
    return _judgments(judgments.frame, judgments.path, options, id_types, located), _merged(retrieved, results)


def labelled_inputs(frame: DataFrame, options: Options) -> tuple[Input, Input, DataFrame]:
    """One frame of labelled candidates (a row per query and document, its grade and its score
    side by side) as both inputs, judgments and results, and as one frame of their canonical
    columns, on which both inputs' checks are counted: no join of the frame with itself."""
    judged, retrieved = canonical_inputs(Source(frame, GIVEN), [Source(frame, GIVEN)], options, located=False)
    return judged, retrieved, frame.select(*{**retrieved.columns, **judged.columns}.values())


def _distinct_names(results: Sequence[Source]) -> None:
    if not results:
        raise ConfigError("results: at least one input is needed")
    if len(results) > 1 and any(source.name is None for source in results):
        raise ConfigError("several results inputs need a name each: NAME=PATH")
    seen: set[str] = set()
    for source in results:
        if source.name is not None and source.name in seen:
            raise ConfigError(f"results: two inputs are named {source.name!r}; each needs its own name")
        seen.add(source.name or "")


def _known_runs(results: Sequence[Source], options: Options) -> None:
    """When no results source has a run_id column, every run is known before any row is read:
    a baseline that names another is refused now."""
    if options.baseline is None or any(options.result_names.run_id in source.frame.columns for source in results):
        return
    require_baseline(options.baseline, [source.name or options.run_id for source in results])


def _merged(inputs: Sequence[Input], sources: Sequence[Source]) -> Input:
    """Several results inputs as one: their rows in one frame, each distinct check once."""
    if len(inputs) == 1:
        return inputs[0]
    checks: dict[tuple[str, str], Check] = {}
    for item in inputs:
        for check in item.checks:
            checks.setdefault((check.column, check.problem), check)
    return Input(
        label=RESULTS,
        path=", ".join(source.described for source in sources),
        frame=reduce(DataFrame.unionByName, [item.frame for item in inputs]),
        located=reduce(DataFrame.unionByName, [item.located for item in inputs]),
        checks=tuple(checks.values()),
        duplicates=inputs[0].duplicates,
        sources=tuple(source.described for source in sources),
        run_column=any(item.run_column for item in inputs),
    )


def _judgments(raw: DataFrame, path: str, options: Options, id_types: IdTypes, located: bool) -> Input:
    names = options.judgment_names
    relevance_type = _column_type(raw, names.relevance)
    relevance = sql_name(c.RELEVANCE)
    checks = _null_checks([(names.query_id, c.QUERY_ID), (names.doc_id, c.DOC_ID), (names.relevance, c.RELEVANCE)])
    if isinstance(relevance_type, _FRACTIONAL_TYPES):
        checks += [
            Check(names.relevance, f"isnan({relevance})", ARE_NAN),
            Check(names.relevance, f"{relevance} != floor({relevance})", "are not whole numbers"),
        ]
    elif not isinstance(relevance_type, T.IntegralType):
        raise _wrong_type(JUDGMENTS, path, names.relevance, relevance_type, "integer")
    if options.gain == GAIN_EXPONENTIAL:
        checks.append(
            Check(
                names.relevance,
                f"{relevance} > {MAX_EXPONENTIAL_RELEVANCE}",
                f"exceed {MAX_EXPONENTIAL_RELEVANCE}, too large for exponential gain 2^rel - 1",
            )
        )
    columns = {
        c.QUERY_ID: _id_column(names.query_id, c.QUERY_ID, id_types.query_id),
        c.DOC_ID: _id_column(names.doc_id, c.DOC_ID, id_types.doc_id),
        # A double carries every valid grade exactly, and lets a bad one (NaN, 2.5) be counted
        # after the shuffle instead of failing a cast.
        c.RELEVANCE: F.col(names.relevance).cast("double").alias(c.RELEVANCE),
    }
    duplicates = Duplicates(
        lists=(c.QUERY_ID,),
        keep_first=(F.col(c.RELEVANCE).desc(),),
        lenient=options.duplicate_judgments == ON_DUPLICATE_JUDGMENT_KEEP_MAX,
        refusal=(
            f"columns '{names.query_id}', '{names.doc_id}': {{keys}} (query, doc) pairs are judged"
            " more than once ({extra} extra rows); trec_eval refuses this"
        ),
        remedy=Remedy(spelling("duplicate_judgments"), ON_DUPLICATE_JUDGMENT_KEEP_MAX, "to keep the highest grade"),
    )
    return _input(JUDGMENTS, path, raw, columns, checks, duplicates, located)


def _results(source: Source, options: Options, id_types: IdTypes, located: bool, index: int | None) -> Input:
    """One results source in canonical columns; with an index (one of several), tagged INPUT."""
    raw, path, names = source.frame, source.path, options.result_names
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
        run_id = F.lit(source.name or options.run_id).alias(c.RUN_ID)
    rank = F.lit(None).cast("bigint").alias(c.RANK)
    if options.order_by == ORDER_BY_RANK:
        rank_type = _column_type(raw, names.rank)
        if not isinstance(rank_type, T.IntegralType):
            raise _wrong_type(RESULTS, path, names.rank, rank_type, "integer")
        checks += _null_checks([(names.rank, c.RANK)])
        rank = F.col(names.rank).cast("bigint").alias(c.RANK)
    columns = {
        c.RUN_ID: run_id,
        c.QUERY_ID: _id_column(names.query_id, c.QUERY_ID, id_types.query_id),
        c.DOC_ID: _id_column(names.doc_id, c.DOC_ID, id_types.doc_id),
        c.SCORE: F.col(names.score).cast("double").alias(c.SCORE),
        c.RANK: rank,
        **({} if index is None else {c.INPUT: F.lit(index).alias(c.INPUT)}),
    }
    # Without a rank column every rank is NULL: sorting by it would cost without deciding anything.
    by_rank = (F.col(c.RANK).asc_nulls_last(),) if options.order_by == ORDER_BY_RANK else ()
    duplicates = Duplicates(
        lists=(c.QUERY_ID, c.RUN_ID),
        keep_first=(*by_rank, F.col(c.SCORE).desc()),
        lenient=options.duplicate_results == ON_DUPLICATE_RESULT_KEEP_BEST,
        refusal=(
            f"columns '{names.query_id}', '{names.doc_id}': {{keys}} documents are retrieved more"
            " than once for the same query and run ({extra} extra rows); trec_eval refuses this"
        ),
        remedy=Remedy(spelling("duplicate_results"), ON_DUPLICATE_RESULT_KEEP_BEST, "to keep the best-scored copy"),
    )
    return replace(_input(RESULTS, path, raw, columns, checks, duplicates, located), run_column=names.run_id in raw.columns)
