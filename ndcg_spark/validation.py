"""Row checks counted during the main pass, then enforced before anything is published.

Each input is shuffled by query_id once; right after that shuffle an Observation counts every
check. The counters sit in the last stage of the main pass, whose tasks Spark counts once each
even when they are retried, so the counts are exact. Duplicates are counted by the ranking and
ideal windows (metrics.py) unless a lenient policy must drop copies first. No extra scan of the
inputs is needed; only when a check fails is the input scanned again, to name the first file
holding such a row or to count the duplicated keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import and_

from pyspark.sql import Column, DataFrame, Observation, Window
from pyspark.sql import functions as F

from ndcg_spark.errors import InputError
from ndcg_spark.inputs import FILE, Duplicates, Input
from ndcg_spark.metrics import copartition

COPY = "_copy"
PREVIOUS_COPY = "_previous_copy"
ROWS = "rows"
EXTRA_COPIES = "extra_copies"
COPIED_KEYS = "copied_keys"


def _check_name(index: int) -> str:
    return f"check_{index}"


@dataclass(frozen=True)
class Observed:
    """An input after its one shuffle, duplicates dropped, with the observation of its checks."""

    source: Input
    frame: DataFrame
    observation: Observation


def _count_if(condition) -> Column:
    return F.sum(F.when(condition, F.lit(1)).otherwise(F.lit(0)))


def observe(source: Input) -> Observed:
    """Shuffle by query_id and count every check. Under a lenient duplicate policy, also flag
    the copies of each key, count them and keep the preferred copy; under the strict default,
    duplicates are counted later, in the ranking and ideal windows (metrics.py), for free."""
    observation = Observation(f"{source.label}_checks")
    frame = copartition(source.frame)
    counters = [
        F.count(F.lit(1)).alias(ROWS),
        *[_count_if(check.condition).alias(_check_name(i)) for i, check in enumerate(source.checks)],
    ]
    if source.duplicates.lenient:
        frame = frame.withColumns(_copy_flags(source.duplicates))
        counters += [
            _count_if(F.col(COPY)).alias(EXTRA_COPIES),
            _count_if(F.col(COPY) & ~F.col(PREVIOUS_COPY)).alias(COPIED_KEYS),
        ]
    frame = frame.observe(observation, *counters)
    if source.duplicates.lenient:
        frame = frame.filter(~F.col(COPY)).drop(COPY, PREVIOUS_COPY)
    return Observed(source, frame, observation)


def _copy_flags(duplicates: Duplicates) -> dict[str, Column]:
    """Whether a row repeats the key of the row before it, and whether that row did too, in the
    order (keys, preference): the first row of each key is the copy to keep.

    A window per query, not per key, ordered by the remaining keys: copies are adjacent, and
    groups of a query's rows cost Spark far less than millions of one-row groups. Its sort by
    (query_id, doc_id, ...) is also the order the merge join with the judgments needs."""
    query, *rest = duplicates.keys
    spec = Window.partitionBy(query).orderBy(*[F.col(key).asc() for key in rest], *duplicates.keep_first)

    def same_as(offset: int) -> Column:
        return F.coalesce(
            reduce(and_, [F.lag(key, offset).over(spec).eqNullSafe(F.col(key)) for key in rest]),
            F.lit(False),
        )

    return {COPY: same_as(1), PREVIOUS_COPY: same_as(2)}


@dataclass(frozen=True)
class InputCounts:
    rows_read: int
    duplicates_dropped: int


def _first_file(source: Input, index: int) -> str | None:
    condition = source.checks[index].condition
    rows = source.located.filter(condition).select(FILE).limit(1).collect()
    return rows[0][0] if rows else None


def _copies(source: Input) -> tuple[int, int]:
    """(keys that occur more than once, rows beyond the first of each): a scan of the input,
    made only when duplicates were found and are refused, for an exact message."""
    row = (
        source.frame.groupBy(*source.duplicates.keys)
        .count()
        .filter(F.col("count") > 1)
        .agg(F.count(F.lit(1)).alias("keys"), F.sum(F.col("count") - 1).alias("extra"))
        .first()
    )
    return int(row["keys"]), int(row["extra"] or 0)


def enforce(observed: Observed, duplicates_found: bool) -> InputCounts:
    """Raise InputError for the first check that failed (naming its file), else return the counts.
    Call only after the action that computed the observed frame; duplicates_found tells whether
    the main pass saw a doc_id twice in one list (strict policy)."""
    source, counts = observed.source, observed.observation.get
    rows = int(counts[ROWS] or 0)
    prefix = f"{source.label} {source.path}"
    if rows == 0:
        raise InputError(f"{prefix}: no rows")
    for i, check in enumerate(source.checks):
        bad = int(counts[_check_name(i)] or 0)
        if bad:
            where = _first_file(source, i)
            raise InputError(
                f"{prefix}: column '{check.column}': {bad} of {rows} rows {check.problem}"
                + (f" (first in {where})" if where else "")
            )
    if source.duplicates.lenient:
        return InputCounts(rows_read=rows, duplicates_dropped=int(counts[EXTRA_COPIES] or 0))
    if duplicates_found:
        keys, extra = _copies(source)
        refusal = source.duplicates.refusal.replace("{keys}", str(keys)).replace("{extra}", str(extra))
        raise InputError(f"{prefix}: {refusal}")
    return InputCounts(rows_read=rows, duplicates_dropped=0)
