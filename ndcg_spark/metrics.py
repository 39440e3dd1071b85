"""NDCG@k as DataFrame transforms, with trec_eval's ndcg_cut and ndcg semantics.

DCG is a running sum over the ranked list (a window in rank order), and DCG@k is that
sum at the last position <= k. Summing in rank order, never in the order Spark happens to
feed rows, makes every value independent of partitioning.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.config import GAIN_EXPONENTIAL, GAIN_LINEAR, ORDER_BY_RANK



def gain(relevance: Column, kind: str) -> Column:
    """Relevance <= 0 (non-relevant, or trec_eval's judged-but-unusable negatives) gains 0."""
    if kind == GAIN_LINEAR:
        value = relevance.cast(T.DoubleType())
    elif kind == GAIN_EXPONENTIAL:
        value = F.pow(F.lit(2.0), relevance.cast(T.DoubleType())) - F.lit(1.0)
    else:
        raise ValueError(f"unknown gain {kind!r}")
    return F.when(relevance > 0, value).otherwise(F.lit(0.0))


def discounted(gain_value: Column, position: Column) -> Column:
    """gain / log2(position + 1); position 1 is the top."""
    return gain_value / F.log2(position.cast(T.DoubleType()) + F.lit(1.0))


def ranking_order(order_by: str) -> list[Column]:
    """trec_eval's order: score descending, ties by doc_id descending in byte order."""
    by_score = [F.col(c.SCORE).desc(), F.col(c.DOC_ID).desc()]
    return [F.col(c.RANK).asc()] + by_score if order_by == ORDER_BY_RANK else by_score


def _running(partition: Sequence[str], order: Sequence[Column]) -> Window:
    return Window.partitionBy(*partition).orderBy(*order).rowsBetween(
        Window.unboundedPreceding, Window.currentRow
    )


def with_running_dcg(
    frame: DataFrame, partition: Sequence[str], order: Sequence[Column], position: str, running: str
) -> DataFrame:
    """Adds each row's position in the (total) order and the DCG of the list down to it."""
    positioned = frame.withColumn(
        position, F.row_number().over(Window.partitionBy(*partition).orderBy(*order))
    )
    return positioned.withColumn(
        running, F.sum(discounted(F.col(c.GAIN), F.col(position))).over(_running(partition, order))
    )


def _at_cutoff(value: Column, position: Column, k: int | None) -> Column:
    """The running value at the last position <= k (running values never decrease)."""
    return F.max(value if k is None else F.when(position <= k, value))


def _count_at_cutoff(condition: Column, position: Column, k: int | None) -> Column:
    within = condition if k is None else condition & (position <= k)
    return F.sum(F.when(within, 1).otherwise(0)).cast(T.LongType())


def _cutoff_name(name: str, k: int | None) -> str:
    return f"{name}_all" if k is None else f"{name}_{k}"


def _cutoffs(ks: Sequence[int], uncut: bool) -> list[int | None]:
    return [*ks, *([None] if uncut else [])]


def copartition(frame: DataFrame) -> DataFrame:
    """Hash by query_id once: the join on (query_id, doc_id), the ranking window, the ideal
    DCG and the per-query aggregations all reuse this partitioning (with the session's
    spark.sql.requireAllClusterKeysForCoPartition=false), so each input is shuffled once."""
    return frame.repartition(F.col(c.QUERY_ID))


def judged_gains(judgments: DataFrame, gain_kind: str) -> DataFrame:
    """Both uses of the judgments (the join, the ideal DCG) must see the same plan, so that
    Spark reads and shuffles them once; the explicit non-null filter (ids are validated
    non-null) equals the one Spark would infer for the join only."""
    return judgments.filter(F.col(c.QUERY_ID).isNotNull() & F.col(c.DOC_ID).isNotNull()).select(
        c.QUERY_ID, c.DOC_ID, c.RELEVANCE, gain(F.col(c.RELEVANCE), gain_kind).alias(c.GAIN)
    )


def ranked_dcg(results: DataFrame, gains: DataFrame, order_by: str) -> DataFrame:
    """Each retrieved row with its position, its gain and the running DCG down to it."""
    order = ranking_order(order_by)
    labelled = results.join(
        gains.select(c.QUERY_ID, c.DOC_ID, c.GAIN, F.lit(True).alias(c.IS_JUDGED)),
        on=[c.QUERY_ID, c.DOC_ID],
        how="left",
    ).select(
        c.RUN_ID,
        c.QUERY_ID,
        c.DOC_ID,
        c.SCORE,
        c.RANK,
        F.coalesce(F.col(c.GAIN), F.lit(0.0)).alias(c.GAIN),
        F.coalesce(F.col(c.IS_JUDGED), F.lit(False)).alias(c.IS_JUDGED),
    )
    return with_running_dcg(labelled, [c.QUERY_ID, c.RUN_ID], order, c.POSITION, c.CUM_DCG).select(
        c.RUN_ID, c.QUERY_ID, c.POSITION, c.GAIN, c.IS_JUDGED, c.CUM_DCG
    )


def dcg_per_query(ranked: DataFrame, ks: Sequence[int], uncut: bool) -> DataFrame:
    """One row per (run, query): DCG and counts at every cutoff, all k in one aggregation."""
    position = F.col(c.POSITION)
    aggregates = [F.count(F.lit(1)).alias(c.NUM_RETRIEVED)]
    for k in _cutoffs(ks, uncut):
        aggregates += [
            _at_cutoff(F.col(c.CUM_DCG), position, k).alias(_cutoff_name(c.DCG, k)),
            _count_at_cutoff(F.col(c.IS_JUDGED), position, k).alias(
                _cutoff_name(c.NUM_JUDGED_RETRIEVED, k)
            ),
            _count_at_cutoff(F.col(c.GAIN) > 0, position, k).alias(
                _cutoff_name(c.NUM_RELEVANT_RETRIEVED, k)
            ),
        ]
    return ranked.groupBy(c.QUERY_ID, c.RUN_ID).agg(*aggregates)


def ideal_dcg_per_query(gains: DataFrame, ks: Sequence[int], uncut: bool) -> DataFrame:
    """One row per judged query: the DCG of all its judged documents in the best order."""
    order = [F.col(c.GAIN).desc(), F.col(c.DOC_ID).desc()]
    ideal = with_running_dcg(gains, [c.QUERY_ID], order, c.IDEAL_POSITION, c.CUM_IDCG)
    position = F.col(c.IDEAL_POSITION)
    return ideal.groupBy(c.QUERY_ID).agg(
        F.count(F.lit(1)).alias(c.NUM_JUDGED),
        _count_at_cutoff(F.col(c.GAIN) > 0, position, None).alias(c.NUM_RELEVANT),
        *[
            _at_cutoff(F.col(c.CUM_IDCG), position, k).alias(_cutoff_name(c.IDCG, k))
            for k in _cutoffs(ks, uncut)
        ],
    )


def evaluated_pairs(
    dcg: DataFrame, ideal: DataFrame, runs: DataFrame, complete: bool
) -> DataFrame:
    """(run, query) pairs to score: judged and retrieved; with complete, every judged query per run."""
    if not complete:
        return dcg.join(ideal, on=c.QUERY_ID, how="inner")
    return runs.crossJoin(ideal).join(dcg, on=[c.QUERY_ID, c.RUN_ID], how="left")


def _cutoff_struct(k: int | None) -> Column:
    def cut(name: str) -> Column:
        return F.coalesce(F.col(_cutoff_name(name, k)), F.lit(0).cast(_zero_type(name)))

    retrieved = F.col(c.NUM_RETRIEVED) if k is None else F.least(F.col(c.NUM_RETRIEVED), F.lit(k))
    idcg = F.col(_cutoff_name(c.IDCG, k))
    return F.struct(
        F.lit(c.MEASURE_UNCUT if k is None else c.MEASURE_CUT).alias(c.MEASURE),
        F.lit(k).cast(T.IntegerType()).alias(c.K),
        cut(c.DCG).alias(c.DCG),
        idcg.alias(c.IDCG),
        cut(c.NUM_RELEVANT_RETRIEVED).alias(c.NUM_RELEVANT_RETRIEVED),
        F.when(retrieved > 0, cut(c.NUM_JUDGED_RETRIEVED) / retrieved).alias(c.JUDGED_AT_K),
    )


def _zero_type(name: str) -> T.DataType:
    return T.DoubleType() if name == c.DCG else T.LongType()


PER_QUERY_COLUMNS = (
    c.RUN_ID,
    c.QUERY_ID,
    c.MEASURE,
    c.K,
    c.NDCG,
    c.DCG,
    c.IDCG,
    c.NUM_RETRIEVED,
    c.NUM_JUDGED,
    c.NUM_RELEVANT,
    c.NUM_RELEVANT_RETRIEVED,
    c.JUDGED_AT_K,
)


def per_query_rows(pairs: DataFrame, ks: Sequence[int], uncut: bool) -> DataFrame:
    """Long format: one row per (run, query, cutoff); the uncut row has measure 'ndcg', k NULL."""
    cutoffs = F.array(*[_cutoff_struct(k) for k in _cutoffs(ks, uncut)])
    return (
        pairs.select(
            c.RUN_ID,
            c.QUERY_ID,
            F.coalesce(F.col(c.NUM_RETRIEVED), F.lit(0)).cast(T.LongType()).alias(c.NUM_RETRIEVED),
            c.NUM_JUDGED,
            c.NUM_RELEVANT,
            F.explode(cutoffs).alias(c.CUTOFFS),
        )
        .select("*", f"{c.CUTOFFS}.*")
        .withColumn(
            c.NDCG,
            F.when(F.col(c.IDCG) > 0, F.col(c.DCG) / F.col(c.IDCG)).otherwise(F.lit(0.0)),
        )
        .select(*PER_QUERY_COLUMNS)
    )


def ndcg_per_query(
    results: DataFrame,
    judgments: DataFrame,
    *,
    ks: Sequence[int],
    gain_kind: str = GAIN_LINEAR,
    complete: bool = False,
    order_by: str = "score",
    uncut: bool = True,
) -> DataFrame:
    """Canonical results and judgments -> the per-query report."""
    results = copartition(results)
    gains = judged_gains(copartition(judgments), gain_kind)
    dcg = ranked_dcg(results, gains, order_by).transform(lambda df: dcg_per_query(df, ks, uncut))
    ideal = ideal_dcg_per_query(gains, ks, uncut)
    runs = results.select(c.RUN_ID).distinct()
    return evaluated_pairs(dcg, ideal, runs, complete).transform(
        lambda df: per_query_rows(df, ks, uncut)
    )


SKIPPED = "skipped"

SUMMARY_COLUMNS = (c.RUN_ID, c.MEASURE, c.K, c.NDCG, c.NUM_QUERIES, c.JUDGED_AT_K)

# Values in [0, 1] summed as decimals with 24 places: integer arithmetic, so the sum is the
# same whatever order Spark adds them in (a double sum is not), and 24 places lie far below
# a double's precision. 14 integer digits hold sums of up to 10^14 values.
_EXACT_SUM = T.DecimalType(38, 24)


def exact_mean(value: Column) -> Column:
    """The mean of the non-null values of a [0, 1] column, independent of summation order."""
    total = F.sum(value.cast(_EXACT_SUM)).cast(T.DoubleType())
    count = F.count(value)
    return F.when(count > 0, total / count.cast(T.DoubleType()))


def summarize(per_query: DataFrame) -> DataFrame:
    """Plain mean over the evaluated queries, per (run, cutoff)."""
    return (
        per_query.groupBy(c.RUN_ID, c.MEASURE, c.K)
        .agg(
            exact_mean(F.col(c.NDCG)).alias(c.NDCG),
            F.count(F.lit(1)).alias(c.NUM_QUERIES),
            exact_mean(F.col(c.JUDGED_AT_K)).alias(c.JUDGED_AT_K),
        )
        .select(*SUMMARY_COLUMNS)
    )


def skipped_per_run(results: DataFrame, judgments: DataFrame) -> DataFrame:
    """Every run with its count of queries retrieved but never judged (not evaluated, only counted)."""
    judged = judgments.select(c.QUERY_ID).distinct().withColumn(c.IS_JUDGED, F.lit(True))
    return (
        results.select(c.RUN_ID, c.QUERY_ID)
        .distinct()
        .join(judged, on=c.QUERY_ID, how="left")
        .groupBy(c.RUN_ID)
        .agg(F.sum(F.when(F.col(c.IS_JUDGED).isNull(), 1).otherwise(0)).alias(SKIPPED))
        .select(c.RUN_ID, SKIPPED)
    )
