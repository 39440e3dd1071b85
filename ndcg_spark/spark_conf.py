"""SQL settings the main pass's plan relies on for its speed (never for its numbers)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from pyspark.sql import SparkSession

PLAN_CONF = {
    # Lets a join on (query_id, doc_id) reuse the inputs' hash partitioning by query_id,
    # so each input is shuffled once.
    "spark.sql.requireAllClusterKeysForCoPartition": "false",
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
