"""The summary: each run's mean per cutoff, exact whatever the order Spark adds in, and each run's
counts, from the per-query rows."""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.frames import indicator
from ndcg_spark.scoring.dcg import is_judged, is_retrieved
from ndcg_spark.scoring.ranking import FIRST_INPUT, LAST_INPUT

SUMMARY_COLUMNS = (c.RUN_ID, c.MEASURE, c.K, c.NDCG, c.NUM_QUERIES, c.JUDGED_AT_K, c.VARIANT, c.VALUE)

# Values in [0, 1] summed as decimals with 24 places: integer arithmetic, so the sum is the
# same whatever order Spark adds them in (a double sum is not), and 24 places lie far below
# a double's precision. 14 integer digits hold sums of up to 10^14 values.
_EXACT_SUM = T.DecimalType(38, 24)


def exact_sum(value: Column) -> Column:
    """The sum of a column of values in [-1, 1], as a decimal: independent of summation order."""
    return F.sum(value.cast(_EXACT_SUM))


def exact_mean(value: Column) -> Column:
    """The mean of the non-null values of a [0, 1] column, independent of summation order."""
    total = exact_sum(value).cast(T.DoubleType())
    count = F.count(value)
    return F.when(count > 0, total / count.cast(T.DoubleType()))


SUMMARY_KEYS = (c.RUN_ID, c.MEASURE, c.K, c.VARIANT)


def _summary_values() -> list[Column]:
    """A summary row's values over its group of per-query rows."""
    return [
        exact_mean(F.col(c.NDCG)).alias(c.NDCG),
        F.count(F.lit(1)).alias(c.NUM_QUERIES),
        exact_mean(F.col(c.JUDGED_AT_K)).alias(c.JUDGED_AT_K),
        exact_mean(F.col(c.VALUE)).alias(c.VALUE),
    ]


def summarize(per_query: DataFrame) -> DataFrame:
    """Plain mean over the evaluated queries, per (run, measure, cutoff)."""
    return per_query.groupBy(*SUMMARY_KEYS).agg(*_summary_values()).select(*SUMMARY_COLUMNS)


RETRIEVED_JUDGED = "retrieved_judged"


# Marks the rows of summary_and_counts that hold a run's counts, not a summary row.
COUNTS_ROW = "_counts_row"
_JUDGED = "_judged"


def _null(frame: DataFrame, name: str) -> Column:
    """A NULL of `frame`'s type for column `name`, under that name."""
    return F.lit(None).cast(frame.schema[name].dataType).alias(name)


def summary_and_counts(per_query: DataFrame, pairs: DataFrame) -> DataFrame:
    """summarize(per_query), and per run the queries it retrieved (NUM_QUERIES) and of those the
    judged ones (RETRIEVED_JUDGED; the rest are skipped), in one aggregation over the union of
    both: the report reads the staged pairs in one query, with one shuffle, where two queries
    cost two shuffles and twice the Spark jobs. A run's counts are the rows with COUNTS_ROW set;
    with several result inputs they also hold the lowest and highest index of the inputs the
    run came from. The summary rows' values are those of summarize: the same exact sums."""
    spread = [name for name in (FIRST_INPUT, LAST_INPUT) if name in pairs.columns]
    summary_side = per_query.select(
        *SUMMARY_KEYS,
        c.NDCG,
        c.JUDGED_AT_K,
        c.VALUE,
        F.lit(None).cast(T.IntegerType()).alias(_JUDGED),
        *[_null(pairs, name) for name in spread],
        F.lit(False).alias(COUNTS_ROW),
    )
    counts_side = pairs.filter(is_retrieved(pairs)).select(
        c.RUN_ID,
        *[_null(per_query, name) for name in (*SUMMARY_KEYS[1:], c.NDCG, c.JUDGED_AT_K, c.VALUE)],
        indicator(is_judged(pairs)).alias(_JUDGED),
        *spread,
        F.lit(True).alias(COUNTS_ROW),
    )
    return (
        summary_side.unionByName(counts_side)
        .groupBy(*SUMMARY_KEYS, COUNTS_ROW)
        .agg(
            *_summary_values(),
            F.sum(_JUDGED).cast(T.LongType()).alias(RETRIEVED_JUDGED),
            *[F.min(FIRST_INPUT).alias(FIRST_INPUT), F.max(LAST_INPUT).alias(LAST_INPUT)] if spread else [],
        )
        .select(*SUMMARY_COLUMNS, COUNTS_ROW, RETRIEVED_JUDGED, *spread)
    )
