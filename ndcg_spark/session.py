"""Spark settings the job relies on; the master is left to spark-submit."""

from __future__ import annotations

from ndcg_spark.config import JobConfig

BASE_CONF = {
    "spark.sql.session.timeZone": "UTC",
    # Lets a join on (query_id, doc_id) reuse the inputs' hash partitioning by query_id,
    # so each input is shuffled once.
    "spark.sql.requireAllClusterKeysForCoPartition": "false",
}


def session_conf(config: JobConfig) -> dict[str, str]:
    """The job's settings, then the config file's [spark] table on top."""
    return {**BASE_CONF, **config.spark_conf}
