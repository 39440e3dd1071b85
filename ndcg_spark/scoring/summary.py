"""The summary: each run's mean per cutoff, exact whatever the order Spark adds in, and each run's
counts, from the per-query rows."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import Column, DataFrame, Row
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.frames import indicator, sql_name
from ndcg_spark.measures import GEOMETRIC, MIN_GEO_MEAN, NDCG_MEASURES, SUM, bounded, catalogue, combine_of
from ndcg_spark.scoring.dcg import MeasuredRow, is_judged, is_retrieved, judged_column, value_column
from ndcg_spark.scoring.exact_sums import FRACTION_BITS, LOG_SCALE, PART_BITS, PARTS, mean_of_some, mean_of_total
from ndcg_spark.scoring.ranking import FIRST_INPUT, LAST_INPUT

SUMMARY_COLUMNS = (c.RUN_ID, c.MEASURE, c.K, c.NDCG, c.NUM_QUERIES, c.JUDGED_AT_K, c.VARIANT, c.VALUE)

# Values in [-1, 1] are summed as integers: each value's first 62 binary places (truncated
# toward zero), as two parts of 31 bits, each part summed as a long. Integer sums are the same
# whatever order Spark adds in (a double sum is not), and the mean is within 2^-62 (2.2e-19) of
# the exact mean of the stored doubles: half a unit in the last place of a mean of 0.002, less
# than that for larger means. A part's sum holds 2^32 (4.3 billion) values before it
# overflows, which Spark's ANSI mode (on by default) makes an error. DECIMAL(38, 24) sums cost
# about as much for a few means and more for many; three 30-bit parts cost more for a few
# (docs/design-notes.md).
_SCALE = f"{float(2**PART_BITS)!r}D"


def _parts(value: str) -> list[str]:
    """SQL text of the value's integer parts of PART_BITS bits, highest first: each the integer
    part of the remainder scaled by 2^PART_BITS (both steps exact in doubles)."""
    parts = []
    rest = f"CAST({value} AS DOUBLE)"
    for _ in range(PARTS):
        scaled = f"({rest}) * {_SCALE}"
        parts.append(f"CAST({scaled} AS BIGINT)")
        rest = f"{scaled} - CAST(CAST({scaled} AS BIGINT) AS DOUBLE)"
    return parts


def _sum_text(value: str) -> str:
    total = ""
    for part in _parts(value):
        summed = f"CAST(sum({part}) AS DECIMAL(38, 0))"
        total = summed if not total else f"({total}) * CAST({2**PART_BITS} AS DECIMAL(38, 0)) + {summed}"
    return total


def exact_sum(value: str) -> Column:
    """The sum of a column of values in [-1, 1] (`value`: SQL text) in units of
    2^-FRACTION_BITS, as DECIMAL(38, 0): an integer, independent of summation order. SQL text,
    one expression: built through py4j piece by piece, a dozen sums cost a cold driver 0.5 s."""
    return F.expr(_sum_text(value))


def exact_mean(value: str) -> Column:
    """The mean of the non-null values of a [0, 1] column (`value`: SQL text), independent of
    summation order: the exact sum rounded once to a double, divided exactly by 2^FRACTION_BITS,
    then by the count."""
    return F.expr(_mean_text(value))


def _mean_text(value: str) -> str:
    total = f"CAST({_sum_text(value)} AS DOUBLE) / {float(2**FRACTION_BITS)!r}D"
    return f"CASE WHEN count({value}) > 0 THEN {total} / CAST(count({value}) AS DOUBLE) END"


def _part_names(name: str) -> list[str]:
    """The columns part_sums names for column `name`: its count, then its parts' sums."""
    return [f"{name}__n", *[f"{name}__{i}" for i in range(PARTS)]]


def part_sums(name: str, value: str | None = None, *, counted: bool = True) -> list[Column]:
    """The count of a column's non-null values and the long sums of their integer parts: what
    mean_of reads on the driver. exact_mean's value without its decimal arithmetic, which made
    the generated code of an aggregation of many means half again as large in its final stage.
    value: SQL text of what to sum, when not the column itself. counted: whether to count the
    non-null values (a column never NULL needs no count of its own: its group's row count serves)."""
    value = value or sql_name(name)
    count, *sums = _part_names(name)
    parts = [F.expr(f"sum({part})").alias(total) for part, total in zip(_parts(value), sums, strict=True)]
    return [F.count(F.col(name)).alias(count), *parts] if counted else parts


def part_sums_names(name: str) -> list[str]:
    """The columns of part_sums(name, counted=False): its parts' sums, highest first."""
    return _part_names(name)[1:]


def total_of(row: Row | Mapping[str, Any], name: str) -> int:
    """The exact sum of column `name`, in units of 2^-FRACTION_BITS, from its part_sums in `row`."""
    _, *sums = _part_names(name)
    total = 0
    for part in sums:
        total = total * 2**PART_BITS + int(row[part] or 0)
    return total


_DECIMAL = "DECIMAL(38, 18)"


def mean_of(row: Row, name: str) -> float | None:
    """exact_mean of column `name`, bit for bit, from its part_sums in `row`: the parts put
    together as one integer, rounded once to a double, divided by 2^FRACTION_BITS (exactly),
    then by the count."""
    return mean_of_total(total_of(row, name), row[_part_names(name)[0]])


SUMMARY_KEYS = (c.RUN_ID, c.MEASURE, c.K, c.VARIANT)


def _is_one_of(names: list[str]) -> str:
    """SQL condition: the reported measure is one of the declarations `names` (with or without a
    parameter in its name)."""
    measure = sql_name(c.MEASURE)
    quoted = ", ".join(f"'{name}'" for name in names) or "''"
    prefixes = " OR ".join(f"startswith({measure}, '{name}_')" for name in names if name not in NDCG_MEASURES)
    return f"({measure} IN ({quoted}){' OR ' + prefixes if prefixes else ''})"


def _combined_value() -> Column:
    """A group of per-query rows' value as its declaration combines them (see combined)."""
    value = sql_name(c.VALUE)
    declared = [(d.name, d.combine, d.bounded) for d in catalogue.CATALOGUE if d.supported]
    geometric = [name for name, how, _ in declared if how == GEOMETRIC]
    summed = [name for name, how, _ in declared if how == SUM]
    unbounded = [name for name, how, is_bounded in declared if how != SUM and not is_bounded]
    decimal = f"sum(CAST({value} AS {_DECIMAL}))"
    log_mean = _mean_text(f"ln(greatest({value}, {MIN_GEO_MEAN!r}D)) / {LOG_SCALE!r}D")
    return F.expr(
        f"CASE WHEN {_is_one_of(geometric)} THEN exp(({log_mean}) * {LOG_SCALE!r}D)"
        f" WHEN {_is_one_of(summed)} THEN CAST({decimal} AS DOUBLE)"
        f" WHEN {_is_one_of(unbounded)} THEN CAST({decimal} AS DOUBLE) / CAST(count({value}) AS DOUBLE)"
        f" ELSE {_mean_text(value)} END"
    )


def _summary_values() -> list[Column]:
    """A summary row's values over its group of per-query rows."""
    value = _combined_value()
    return [
        ndcg_of(value).alias(c.NDCG),
        F.count(F.lit(1)).alias(c.NUM_QUERIES),
        exact_mean(sql_name(c.JUDGED_AT_K)).alias(c.JUDGED_AT_K),
        value.alias(c.VALUE),
    ]


def ndcg_of(value: Column) -> Column:
    """The ndcg column of a group of per-query rows: its value's, on NDCG's rows (where ndcg is
    value) only; one exact sum instead of two."""
    return F.when(F.col(c.MEASURE).isin(*NDCG_MEASURES), value)


def summarize(per_query: DataFrame) -> DataFrame:
    """Each (run, measure, cutoff)'s value over the evaluated queries, combined as its declaration
    says (a mean for most)."""
    return per_query.groupBy(*SUMMARY_KEYS).agg(*_summary_values()).select(*SUMMARY_COLUMNS)


RETRIEVED_JUDGED = "retrieved_judged"

# The long rows summary_and_counts aggregates: a slot per (measure, k) of the measured rows, then
# one per cutoff's judged@k, and COUNTS_SLOT for a run's counts; each row's value to sum in
# integer parts (_PARTED) or as a DECIMAL (_EXACT).
_SLOT = "_slot"
COUNTS_SLOT = -1
_PARTED = "_parted"
_EXACT = "_exact"
_COUNT = "_count"
_JUDGED = "_judged"
_NO_VALUE = "CAST(NULL AS DOUBLE)"


def _null(frame: DataFrame, name: str) -> Column:
    """A NULL of `frame`'s type for column `name`, under that name."""
    return F.lit(None).cast(frame.schema[name].dataType).alias(name)


def _summed(index: int, row: MeasuredRow) -> tuple[str, str]:
    """What the slot of the index-th measured row sums (SQL text of the parted and the exact
    value; the other NULL), as its declaration combines the queries."""
    value = sql_name(value_column(index))
    if combine_of(row.measure) == GEOMETRIC:
        return f"ln(greatest({value}, {MIN_GEO_MEAN!r}D)) / {LOG_SCALE!r}D", _NO_VALUE
    if combine_of(row.measure) == SUM or not bounded(row.measure):
        return _NO_VALUE, value
    return value, _NO_VALUE


def summary_and_counts(measured_pairs: DataFrame, rows: Sequence[MeasuredRow], pairs: DataFrame) -> DataFrame:
    """Per run and slot: the sums behind the mean of every (measure, k) of `rows` and of each
    cutoff's judged@k over its evaluated (run, query) rows (`measured_pairs`, from dcg.measured),
    and in COUNTS_SLOT its counts: the queries it retrieved and of those the judged ones, with
    several result inputs the lowest and highest index of the inputs it came from.

    One aggregation over long rows (a stack of the measured columns, the count rows beside them):
    the same few sums whatever the measures, where one sum per measure in a wide row made code
    that a cold JVM compiled for seconds with trec_eval's 98 values (docs/design-notes.md). The
    report reads the staged pairs in one query with one shuffle; summary_rows and count_rows put
    the sums together on the driver."""
    spread = [name for name in (FIRST_INPUT, LAST_INPUT) if name in pairs.columns]
    cells = [(i, *_summed(i, row)) for i, row in enumerate(rows)]
    cells += [(slot, sql_name(judged_column(k)), _NO_VALUE) for k, slot in _judged_slots(rows).items()]
    stacked = ", ".join(f"{slot}, CAST({parted} AS DOUBLE), CAST({exact} AS DOUBLE)" for slot, parted, exact in cells)
    names = f"{_SLOT}, {_PARTED}, {_EXACT}"
    summary_side = measured_pairs.select(
        c.RUN_ID,
        F.expr(f"stack({len(cells)}, {stacked}) AS ({names})"),
        *[_null(pairs, name) for name in spread],
    )
    counts_side = pairs.filter(is_retrieved(pairs)).select(
        c.RUN_ID,
        F.lit(COUNTS_SLOT).alias(_SLOT),
        F.lit(None).cast("double").alias(_PARTED),
        indicator(is_judged(pairs)).cast("double").alias(_EXACT),
        *spread,
    )
    parted = sql_name(_PARTED)
    return (
        summary_side.unionByName(counts_side)
        .groupBy(c.RUN_ID, _SLOT)
        .agg(
            F.count(F.lit(1)).alias(c.NUM_QUERIES),
            F.count(_PARTED).alias(_COUNT),
            *[F.expr(f"sum({part})").alias(total) for part, total in zip(_parts(parted), _sum_names(), strict=True)],
            F.expr(f"sum(CAST({sql_name(_EXACT)} AS {_DECIMAL}))").alias(_EXACT),
            *[F.min(FIRST_INPUT).alias(FIRST_INPUT), F.max(LAST_INPUT).alias(LAST_INPUT)] if spread else [],
        )
    )


def _sum_names() -> list[str]:
    return _part_names(_PARTED)[1:]


def _mean(slot: Mapping[str, Any]) -> float | None:
    """The exact mean of a slot's parted values (None when it has none)."""
    return mean_of_total(total_of(slot, _PARTED), slot[_COUNT])


def _combined(slot: Mapping[str, Any], measure: str) -> float | None:
    """trec_eval's 'all' of `measure` from its slot (see _summed)."""
    count = slot[c.NUM_QUERIES]
    if combine_of(measure) == GEOMETRIC:
        return math.exp(mean_of_some(total_of(slot, _PARTED), count) * LOG_SCALE)
    if combine_of(measure) == SUM:
        return float(slot[_EXACT])
    if not bounded(measure):
        return float(slot[_EXACT]) / float(count)
    return _mean(slot)


def summary_and_counts_of_long(per_query: DataFrame, rows: Sequence[MeasuredRow], pairs: DataFrame) -> DataFrame:
    """summary_and_counts from the long per_query rows (`per_query`, once written: the job's
    staged files), grouped by (run, measure, k): a Parquet scan and the same few sums, no measure
    computed again. The counts come from `pairs`, as there."""
    spread = [name for name in (FIRST_INPUT, LAST_INPUT) if name in pairs.columns]
    geometric = [row.measure for row in rows if combine_of(row.measure) == GEOMETRIC]
    exact = [row.measure for row in rows if combine_of(row.measure) == SUM or not bounded(row.measure)]
    measure, value = F.col(c.MEASURE), F.col(c.VALUE)
    logged = F.expr(f"ln(greatest({sql_name(c.VALUE)}, {MIN_GEO_MEAN!r}D)) / {LOG_SCALE!r}D")
    parted = F.when(measure.isin(geometric), logged).when(measure.isin(exact), F.lit(None)).otherwise(value)
    no_key = [F.lit(None).cast(per_query.schema[name].dataType).alias(name) for name in (c.MEASURE, c.K)]
    no_value = F.lit(None).cast("double")
    summary_side = per_query.select(
        c.RUN_ID,
        F.lit(None).cast("int").alias(_SLOT),
        c.MEASURE,
        c.K,
        parted.cast("double").alias(_PARTED),
        F.when(measure.isin(exact), value).cast("double").alias(_EXACT),
        F.col(c.JUDGED_AT_K).cast("double").alias(_JUDGED),
        *[_null(pairs, name) for name in spread],
    )
    counts_side = pairs.filter(is_retrieved(pairs)).select(
        c.RUN_ID,
        F.lit(COUNTS_SLOT).alias(_SLOT),
        *no_key,
        no_value.alias(_PARTED),
        indicator(is_judged(pairs)).cast("double").alias(_EXACT),
        no_value.alias(_JUDGED),
        *spread,
    )
    return (
        summary_side.unionByName(counts_side)
        .groupBy(c.RUN_ID, _SLOT, c.MEASURE, c.K)
        .agg(
            F.count(F.lit(1)).alias(c.NUM_QUERIES),
            F.count(_PARTED).alias(_COUNT),
            *[F.expr(f"sum({part})").alias(total) for part, total in zip(_parts(sql_name(_PARTED)), _sum_names(), strict=True)],
            F.expr(f"sum(CAST({sql_name(_EXACT)} AS {_DECIMAL}))").alias(_EXACT),
            *part_sums(_JUDGED),
            *[F.min(FIRST_INPUT).alias(FIRST_INPUT), F.max(LAST_INPUT).alias(LAST_INPUT)] if spread else [],
        )
    )


def count_rows(aggregated: Sequence[Row]) -> list[Row]:
    """Each run's counts from summary_and_counts (or its _of_long): NUM_QUERIES, RETRIEVED_JUDGED
    and, with several inputs, FIRST_INPUT and LAST_INPUT."""
    counts = []
    for row in (row.asDict() for row in aggregated if row[_SLOT] == COUNTS_SLOT):
        spread = {name: row[name] for name in (FIRST_INPUT, LAST_INPUT) if name in row}
        retrieved = {c.RUN_ID: row[c.RUN_ID], c.NUM_QUERIES: row[c.NUM_QUERIES], RETRIEVED_JUDGED: int(row[_EXACT])}
        counts.append(Row(**retrieved, **spread))
    return counts


def _judged_slots(rows: Sequence[MeasuredRow]) -> dict[int | None, int]:
    """Each cutoff's judged@k slot: after the measures' (see summary_and_counts)."""
    return {k: len(rows) + j for j, k in enumerate(dict.fromkeys(row.k for row in rows))}


def _slots(aggregated: Sequence[Row], rows: Sequence[MeasuredRow]) -> dict[tuple[str, int], dict[str, Any]]:
    """The sums by (run, slot), as summary_and_counts gives them; a row of its _of_long (by run,
    measure and k) gives its measure's slot and its cutoff's judged@k slot."""
    index = {(row.measure, row.k): i for i, row in enumerate(rows)}
    judged = _judged_slots(rows)
    judged_count, *judged_sums = _part_names(_JUDGED)
    slots: dict[tuple[str, int], dict[str, Any]] = {}
    for row in (row.asDict() for row in aggregated):
        run = row[c.RUN_ID]
        if row[_SLOT] is not None:
            slots[(run, row[_SLOT])] = row
            continue
        slots[(run, index[(row[c.MEASURE], row[c.K])])] = row
        sums = {name: row[judged_sum] for name, judged_sum in zip(_sum_names(), judged_sums, strict=True)}
        slots[(run, judged[row[c.K]])] = {c.NUM_QUERIES: row[c.NUM_QUERIES], _COUNT: row[judged_count], **sums}
    return slots


def summary_rows(aggregated: Sequence[Row], rows: Sequence[MeasuredRow], variant: str) -> list[Row]:
    """Every run's summary rows (SUMMARY_COLUMNS) from summary_and_counts (or its _of_long)."""
    slots, judged = _slots(aggregated, rows), _judged_slots(rows)
    summary = []
    for run in sorted({row[c.RUN_ID] for row in aggregated if row[_SLOT] != COUNTS_SLOT}):
        for i, row in enumerate(rows):
            slot = slots[(run, i)]
            value = _combined(slot, row.measure)
            summary.append(
                Row(
                    **{
                        c.RUN_ID: run,
                        c.MEASURE: row.measure,
                        c.K: row.k,
                        c.NDCG: value if row.measure in NDCG_MEASURES else None,
                        c.NUM_QUERIES: slot[c.NUM_QUERIES],
                        c.JUDGED_AT_K: _mean(slots[(run, judged[row.k])]),
                        c.VARIANT: variant,
                        c.VALUE: value,
                    }
                )
            )
    return summary
