"""Row checks counted during the main pass, then enforced before anything is published.

Each input is shuffled by query_id once; right after that shuffle every check is counted by an
Observation, and the rows of each key (a document in one list, a judged document) are gathered
by a hash aggregation, which keeps one copy and counts the others: no sort. The counters sit in
the last stage of the main pass, whose tasks Spark counts once each even when they are retried,
so the counts are exact. No extra scan of the inputs is needed; only when a check fails is the
input scanned again, to name the first file holding such a row.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F

from ndcg_spark.errors import InputError
from ndcg_spark.inputs import FILE, Input
from ndcg_spark.metrics import copartition, indicator

ROWS = "rows"
COPIES = "_copies"
EXTRA_COPIES = "extra_copies"
COPIED_KEYS = "copied_keys"


def _check_name(index: int) -> str:
    return f"check_{index}"


@dataclass(frozen=True)
class Observed:
    """An input after its one shuffle, one row per key, with the observations of its checks."""

    source: Input
    frame: DataFrame
    checks: Observation
    copies: Observation


def _count(condition: Column) -> Column:
    return F.sum(indicator(condition))


def observe(source: Input) -> Observed:
    """Shuffle by query_id, count every check, then one row per key: the copy to keep, and how
    many rows the key had. The aggregation needs no other shuffle (query_id is among its keys)."""
    checks, copies = Observation(f"{source.label}_checks"), Observation(f"{source.label}_copies")
    frame = (
        copartition(source.frame)
        .observe(
            checks,
            F.count(F.lit(1)).alias(ROWS),
            *[_count(check.condition).alias(_check_name(i)) for i, check in enumerate(source.checks)],
        )
        .groupBy(*source.duplicates.keys)
        .agg(F.count(F.lit(1)).alias(COPIES), *source.duplicates.kept)
        .observe(
            copies,
            F.sum(F.col(COPIES) - F.lit(1)).alias(EXTRA_COPIES),
            _count(F.col(COPIES) > 1).alias(COPIED_KEYS),
        )
        .select(*source.frame.columns)
    )
    return Observed(source, frame, checks, copies)


@dataclass(frozen=True)
class InputCounts:
    rows_read: int
    duplicates_dropped: int


def _first_file(source: Input, index: int) -> str | None:
    condition = source.checks[index].condition
    rows = source.located.filter(condition).select(FILE).limit(1).collect()
    return rows[0][0] if rows else None


def enforce(observed: Observed) -> InputCounts:
    """Raise InputError for the first check that failed (naming its file), else return the counts.
    Call only after the action that computed the observed frame."""
    source, counts, copies = observed.source, observed.checks.get, observed.copies.get
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
    extra = int(copies[EXTRA_COPIES] or 0)
    if extra and not source.duplicates.lenient:
        keys = int(copies[COPIED_KEYS] or 0)
        refusal = source.duplicates.refusal.replace("{keys}", str(keys)).replace("{extra}", str(extra))
        raise InputError(f"{prefix}: {refusal}")
    return InputCounts(rows_read=rows, duplicates_dropped=extra)
