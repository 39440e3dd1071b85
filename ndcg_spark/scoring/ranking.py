"""The ranking SQL: gains, the total order of a list, the windows, the running DCG and the rows
each cutoff reads.

DCG is a running sum over the ranked list (a window in rank order), and DCG@k is that sum at
position min(k, list length). Summing in rank order, as trec_eval does, never in the order Spark
happens to feed rows, makes every value independent of partitioning."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.frames import sql_name
from ndcg_spark.option_values import GainTable
from ndcg_spark.options import (
    GAIN_EXPONENTIAL,
    GAIN_LINEAR,
    ORDER_BY_RANK,
    Gain,
    OrderBy,
)

# Running sums of the ranked list and of the ideal list.
CUM_JUDGED = "cum_judged"
CUM_RELEVANT = "cum_relevant"
LIST_LENGTH = "list_length"
# With judged_only: the row is a judged document graded >= 0, the ones trec_eval -J keeps.
USABLE = "_usable"
# The row's number in the whole ordered list, before judged_only condenses it.
ORDINAL = "_ordinal"
# With several result inputs (rows carry columns.INPUT): per (run, query) the lowest and highest
# index among its rows; they differ when two inputs name a run alike.
FIRST_INPUT = "_first_input"
LAST_INPUT = "_last_input"


def gain(relevance: Column, kind: Gain, table: GainTable = ()) -> Column:
    """Relevance <= 0 (non-relevant, or trec_eval's judged-but-unusable negatives) gains 0; a
    grade in `table` gains what the table says (grade 0 included), any other grade the kind's."""
    if kind == GAIN_LINEAR:
        value = relevance.cast("double")
    elif kind == GAIN_EXPONENTIAL:
        value = F.pow(F.lit(2.0), relevance.cast("double")) - F.lit(1.0)
    else:
        raise ValueError(f"unknown gain {kind!r}")
    default = F.when(relevance > 0, value).otherwise(F.lit(0.0))
    if not table:
        return default
    custom = F.when(relevance < 0, F.lit(0.0))
    for grade, grade_gain in table:
        custom = custom.when(relevance == F.lit(float(grade)), F.lit(float(grade_gain)))
    return custom.otherwise(default)


def discounted(gain_value: str, position: str) -> str:
    """SQL text of gain / log2(position + 1); position 1 is the top."""
    return f"{gain_value} / log2(CAST({position} AS DOUBLE) + 1.0D)"


TIE_BREAK = "_tie_break"


def tie_break() -> Column:
    """doc_id as a string: trec_eval breaks score ties in byte order ("10" before "9"), which
    integer ids do not follow. A column, not an expression in the window's order: Spark then
    sees that both windows of with_running_dcg share one order, and sorts once."""
    return F.col(c.DOC_ID).cast("string").alias(TIE_BREAK)


def with_tie_break(frame: DataFrame) -> DataFrame:
    return frame.withColumn(TIE_BREAK, tie_break())


def ranking_order(order_by: OrderBy) -> list[str]:
    """trec_eval's order, as SQL sort keys: score descending, ties by doc_id descending in byte
    order (on a frame from with_tie_break)."""
    by_score = [f"{sql_name(c.SCORE)} DESC", f"{sql_name(TIE_BREAK)} DESC"]
    return [f"{sql_name(c.RANK)} ASC", *by_score] if order_by == ORDER_BY_RANK else by_score


def window(partition: Sequence[str], order: Sequence[str]) -> str:
    """SQL text of a window over the lists of `partition`, each in `order` (SQL sort keys)."""
    return f"PARTITION BY {', '.join(sql_name(name) for name in partition)} ORDER BY {', '.join(order)}"


RUNNING = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
# The whole list, in the same window as the running sums, so Spark computes both in one
# WindowExec over one sort.
WHOLE = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"


def counted(condition: str) -> str:
    """SQL text: 1 on a row that meets the condition, else 0 (a term of a running count)."""
    return f"CASE WHEN {condition} THEN 1 ELSE 0 END"


def with_running_dcg(
    frame: DataFrame,
    partition: Sequence[str],
    order: Sequence[str],
    position: str,
    running: str,
    ks: Sequence[int],
    judged: str | None = None,
    *,
    kept: str | None = None,
    max_depth: int | None = None,
    whole: Mapping[str, str] | None = None,
    counts: Mapping[str, str] | None = None,
    keep: str | None = None,
) -> DataFrame:
    """The rows some cutoff reads (see at_cutoffs) with their position in the (total) order, the
    DCG of the list down to them, the running counts of relevant (and judged) rows, and the
    list's length. `order` holds SQL sort keys; `judged` and `kept` name boolean columns.

    Two windows over one sort: the first numbers every row; only rows that can change a running
    value (gain > 0, or judged) or that a cutoff reads go on to the second, which sums in rank
    order. Rows left out add 0 to every sum, so the sums are those of the whole list.

    max_depth cuts the list after its first max_depth rows (trec_eval -M); then `kept`, when
    given, condenses it to the rows it holds for (trec_eval -J): positions count only those,
    and a list that keeps none is one row at position 0, so that it is still scored (0).
    `whole` names SQL aggregates to take over the whole list, before any cut; `counts` names SQL
    terms (0 on rows that do not go on to the second window) to sum in rank order, and
    `keep` is the SQL condition of further rows to return beside those at the cutoffs."""
    spec = window(partition, order)

    def over(aggregate: str, rows: str = "", cast: str | None = None) -> Column:
        text = f"{aggregate} OVER ({spec} {rows})"
        return F.expr(f"CAST({text} AS {cast})" if cast else text)

    over_whole = {name: over(aggregate, WHOLE) for name, aggregate in (whole or {}).items()}
    pos, length, gain_value = sql_name(position), sql_name(LIST_LENGTH), sql_name(c.GAIN)
    if kept is None:
        numbered = frame.withColumns({position: over("row_number()"), LIST_LENGTH: over("count(1)", WHOLE), **over_whole})
        if max_depth is not None:
            numbered = numbered.filter(F.expr(f"{pos} <= {max_depth}")).withColumn(
                LIST_LENGTH, F.expr(f"least({length}, {max_depth})")
            )
        term = discounted(gain_value, pos)
    else:
        ordinal, usable = sql_name(ORDINAL), sql_name(kept)
        numbered = frame.withColumns({ORDINAL: over("row_number()"), **over_whole})
        if max_depth is not None:
            numbered = numbered.filter(F.expr(f"{ordinal} <= {max_depth}"))
        numbered = (
            numbered.withColumns(
                {
                    position: over(f"sum({counted(usable)})", RUNNING, "INT"),
                    LIST_LENGTH: over(f"sum({counted(usable)})", WHOLE, "INT"),
                }
            )
            .filter(F.expr(f"{usable} OR ({length} = 0 AND {ordinal} = 1)"))
            .drop(ORDINAL)
        )
        term = f"CASE WHEN {pos} > 0 THEN {discounted(gain_value, pos)} ELSE 0.0D END"
    relevant = f"{gain_value} > 0"
    changing = relevant if judged is None else f"{sql_name(judged)} OR {relevant}"
    sums = {running: over(f"sum({term})", RUNNING), CUM_RELEVANT: over(f"sum({counted(relevant)})", RUNNING)}
    if judged is not None:
        sums[CUM_JUDGED] = over(f"sum({counted(sql_name(judged))})", RUNNING)
    sums.update({name: over(f"sum({term})", RUNNING) for name, term in (counts or {}).items()})
    returned = at_cutoffs(position, ks) if keep is None else at_cutoffs(position, ks) | F.expr(keep)
    return numbered.filter(F.expr(changing) | at_cutoffs(position, ks)).withColumns(sums).filter(returned)


def at_cutoffs(position: str, ks: Sequence[int]) -> Column:
    """Only the rows whose running values some cutoff reads: positions k, and the list's last row
    (which serves every k beyond the list and the uncut measure)."""
    at_k = f"{sql_name(position)} IN ({', '.join(str(k) for k in ks)}) OR " if ks else ""
    return F.expr(f"{at_k}{sql_name(position)} = {sql_name(LIST_LENGTH)}")


def at_cutoff(value: str, position: str, k: int | None, name: str, cast: str | None = None) -> Column:
    """The running value at the last position <= k (running values never decrease), as `name`,
    cast to the SQL type `cast` when given."""
    at = f"max({sql_name(value)})" if k is None else f"max(CASE WHEN {sql_name(position)} <= {k} THEN {sql_name(value)} END)"
    return F.expr(f"{f'CAST({at} AS {cast})' if cast else at} AS {sql_name(name)}")


BIGINT = "BIGINT"
