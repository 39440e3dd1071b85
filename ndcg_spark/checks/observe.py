"""Row checks counted during the main pass, then enforced before anything is published.

Each input is shuffled by query_id once; right after that shuffle every check is counted by an
Observation, then the copies of a key (a document retrieved twice, judged twice) are flagged and
counted by another. The counters sit in the last stage of the main pass, whose tasks Spark counts
once each even when they are retried, so the counts are exact. No extra scan of the inputs is
needed; only when a check fails is the input scanned again, to name the first file holding such
a row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import and_

from pyspark.sql import Column, DataFrame, Observation, Window
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.checks.inputs import FILE, Duplicates, Input
from ndcg_spark.errors import InputError
from ndcg_spark.frames import copartition, sql_name

COPY = "_copy"
ROWS = "rows"
EXTRA_COPIES = "extra_copies"


def _check_name(index: int) -> str:
    return f"check_{index}"


@dataclass(frozen=True)
class Observed:
    """An input after its one shuffle: every row with its checks counted (`checked`), and the
    rows kept once copies are dropped (`frame`), with the copies counted."""

    source: Input
    checked: DataFrame
    frame: DataFrame
    checks: Observation
    copies: Observation


def _count(condition: str, name: str) -> Column:
    """How many rows meet the condition (SQL text; a NULL condition is not met), as `name`."""
    return F.expr(f"count_if({condition}) AS {sql_name(name)}")


def observe(source: Input) -> Observed:
    """Shuffle by query_id and count every check; then flag the copies of each key, count them
    and keep first copies. Two observations: a branch of the plan that reads `checked` (the
    ideal side) still counts the checks when Spark prunes the other (empty results)."""
    copies = _copies_observation(source)
    checked, checks = _checks_counted(source, copartition(source.frame))
    frame = (
        checked.withColumn(COPY, _is_copy(source.duplicates))
        .observe(copies, _count(sql_name(COPY), EXTRA_COPIES))
        .filter(~F.col(COPY))
        .drop(COPY)
    )
    return Observed(source, checked, frame, checks, copies)


def _checks_counted(source: Input, frame: DataFrame) -> tuple[DataFrame, Observation]:
    """`frame` (rows of the source's canonical columns) with the source's checks counted."""
    checks = Observation(f"{source.label}_checks")
    counted = frame.observe(
        checks,
        F.expr(f"count(1) AS {sql_name(ROWS)}"),
        *[_count(check.condition, _check_name(i)) for i, check in enumerate(source.checks)],
    )
    return counted, checks


def _copies_observation(source: Input) -> Observation:
    return Observation(f"{source.label}_copies")


@dataclass(frozen=True)
class ObservedTogether:
    """Both inputs as one frame (the evaluator's labelled candidates: a judgment and a result a
    row), after its one shuffle, both inputs' checks counted on it: `rows`. Each input's copies
    are counted later, per list (count_copies)."""

    rows: DataFrame
    judgments: Observed
    results: Observed


def observe_together(judgments: Input, results: Input, rows: DataFrame) -> ObservedTogether:
    """Shuffle `rows` (both inputs' canonical columns) by query_id and count both inputs' checks."""
    checked, judged_checks = _checks_counted(judgments, copartition(rows))
    checked, retrieved_checks = _checks_counted(results, checked)
    copies = _copies_observation(judgments)  # one count serves both: each row is both
    return ObservedTogether(
        checked,
        Observed(judgments, checked, checked, judged_checks, copies),
        Observed(results, checked, checked, retrieved_checks, copies),
    )


def count_copies(together: ObservedTogether, lists: DataFrame, extra: Column) -> DataFrame:
    """`lists` (a row per list of `together.rows`) with the copies each holds (`extra`: its rows
    that repeat a document) counted, as both inputs' copies: each row is a judgment and a result."""
    return lists.observe(together.judgments.copies, F.sum(extra).alias(EXTRA_COPIES))


def _is_copy(duplicates: Duplicates) -> Column:
    """Whether a row repeats the key of the row before it, in the order (doc_id, run_id,
    preference): the first row of each key is the copy to keep.

    A window per query, not per key: copies are adjacent, and groups of a query's rows cost Spark
    far less than millions of one-row groups. Its sort by (query_id, doc_id, ...) is also the
    order the merge join with the judgments needs. One lag per key column, at offset 1 only (how
    many keys have copies is counted on the failure path)."""
    query, *rest = duplicates.lists
    keys = [c.DOC_ID, *rest]
    spec = Window.partitionBy(query).orderBy(*[F.col(key).asc() for key in keys], *duplicates.keep_first)
    return F.coalesce(reduce(and_, [F.lag(key, 1).over(spec).eqNullSafe(F.col(key)) for key in keys]), F.lit(False))


def _copied_keys(source: Input) -> int:
    """How many keys have copies: for the refusal's message only, so a failure path's scan."""
    per_key = source.frame.groupBy(*source.duplicates.keys).agg(F.count(F.lit(1)).alias(ROWS))
    return per_key.filter(F.col(ROWS) > 1).count()


@dataclass(frozen=True)
class InputCounts:
    rows_read: int
    duplicates_dropped: int


def _first_file(source: Input, index: int) -> str | None:
    condition = source.checks[index].condition
    rows = source.located.filter(condition).select(FILE).limit(1).collect()
    return rows[0][0] if rows else None


def no_rows(source: Input) -> InputError:
    return InputError(f"{source.label} {source.path}: no rows")


def enforce(observed: Observed) -> InputCounts:
    """Raise InputError for the first check that failed (naming its file), else return the counts.
    Call only after the action that computed the observed frame."""
    source, counts = observed.source, observed.checks.get
    rows = int(counts[ROWS] or 0)
    prefix = f"{source.label} {source.path}"
    if rows == 0:
        raise no_rows(source)
    for i, check in enumerate(source.checks):
        bad = int(counts[_check_name(i)] or 0)
        if bad:
            where = _first_file(source, i)
            raise InputError(
                f"{prefix}: column '{check.column}': {bad} of {rows} rows {check.problem}"
                + (f" (first in {where})" if where else ""),
                column=check.column,
                problem=check.problem,
                bad=bad,
                rows=rows,
            )
    # Unset when Spark pruned the branch that counts copies (the other input was empty).
    extra = int(observed.copies.get[EXTRA_COPIES] or 0)
    if extra and not source.duplicates.lenient:
        keys = _copied_keys(source)
        refusal = source.duplicates.refusal.replace("{keys}", str(keys)).replace("{extra}", str(extra))
        raise InputError(f"{prefix}: {refusal}", remedy=source.duplicates.remedy)
    return InputCounts(rows_read=rows, duplicates_dropped=extra)
