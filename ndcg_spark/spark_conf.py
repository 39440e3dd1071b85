"""SQL settings the plans rely on for their speed (never for their numbers)."""

from __future__ import annotations

import math
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


ADAPTIVE = "spark.sql.adaptive.enabled"
SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"


def post_pass_settings(spark: SparkSession, main_pass_rows: int, post_pass_rows: int) -> dict[str, str]:
    """Shuffle partitions for the queries after the main pass, which read a few rows per query.

    With adaptive execution on, Spark coalesces their partitions itself: nothing to set. Off,
    every one of their shuffles would run spark.sql.shuffle.partitions tasks (200 by default)
    for what the main pass shrank to a fraction; they get that fraction of the partitions, so
    that a task of theirs holds about as many rows as a task of the main pass."""
    if (spark.conf.get(ADAPTIVE, "true") or "true").strip().lower() == "true":
        return {}
    configured = int(spark.conf.get(SHUFFLE_PARTITIONS) or 1)
    wanted = math.ceil(configured * post_pass_rows / max(main_pass_rows, 1))
    return {SHUFFLE_PARTITIONS: str(min(configured, max(1, wanted)))}


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
