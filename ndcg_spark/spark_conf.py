"""SQL settings the plans rely on for their speed (never for their numbers)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from pyspark.sql import SparkSession

PLAN_CONF = {
    # Lets a join on (query_id, doc_id) reuse the inputs' hash partitioning by query_id,
    # so each input is shuffled once.
    "spark.sql.requireAllClusterKeysForCoPartition": "false",
    # The comparison caches its (run, query) pairs; by default AQE may not coalesce the shuffle
    # partitions of a cached plan, so every later stage ran spark.sql.shuffle.partitions tasks
    # (200: 19-31 s for 60 queries; coalesced: 3.5-4 s).
    "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning": "true",
}


@contextmanager
def session_settings(spark: SparkSession, settings: Mapping[str, str]) -> Iterator[None]:
    """Set SQL settings for a block and put the caller's values back afterwards: the Python API
    runs in the caller's session and leaves it as it found it."""
    before = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, old in before.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)
