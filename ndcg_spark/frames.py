"""Frame and column helpers every step shares: the one shuffle by query, and row counting."""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ndcg_spark import columns as c


def copartition(frame: DataFrame) -> DataFrame:
    """Hash by query_id once: with the session's spark.sql.requireAllClusterKeysForCoPartition=false
    every later join, window and aggregation reuses this partitioning, so each input is shuffled once."""
    return frame.repartition(F.col(c.QUERY_ID))


def indicator(condition: Column) -> Column:
    """1 where the condition holds, else 0: summed, it counts the rows that meet it."""
    return F.when(condition, F.lit(1)).otherwise(F.lit(0))
