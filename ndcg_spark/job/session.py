"""Spark settings the job relies on; the master is left to spark-submit."""

from __future__ import annotations

from ndcg_spark.job.config import JobConfig
from ndcg_spark.spark_conf import PLAN_CONF

BASE_CONF = {
    "spark.sql.session.timeZone": "UTC",
    **PLAN_CONF,
    # The work after the shuffle is CPU-bound (sorts, windows): tasks of about 16 MB of shuffled
    # rows keep every core busy to the end instead of leaving one straggler (AQE's 64 MB default
    # gave 3 tasks on 2 cores at 10M rows). Override in [spark] or with --conf.
    "spark.sql.adaptive.advisoryPartitionSizeInBytes": "16m",
}


def session_conf(config: JobConfig, interactive: bool = False) -> dict[str, str]:
    """The job's settings, then the config file's [spark] table on top. On a terminal Spark's
    progress bar is on; in a scheduler's log it would be noise."""
    progress = {"spark.ui.showConsoleProgress": "true" if interactive else "false"}
    return {**BASE_CONF, **progress, **config.spark_conf}
