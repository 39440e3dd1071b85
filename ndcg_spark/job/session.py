"""Spark settings the job relies on; the master is left to spark-submit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TextIO

from ndcg_spark.job.settings import JobConfig
from ndcg_spark.progress import SPARK_SUBMIT_GATEWAY
from ndcg_spark.spark_conf import PLAN_CONF

BASE_CONF = {
    "spark.sql.session.timeZone": "UTC",
    **PLAN_CONF,
    # The work after the shuffle is CPU-bound (sorts, windows): tasks of about 16 MB of shuffled
    # rows keep every core busy to the end instead of leaving one straggler (AQE's 64 MB default
    # gave 3 tasks on 2 cores at 10M rows). Override in [spark] or with --conf.
    "spark.sql.adaptive.advisoryPartitionSizeInBytes": "16m",
}


# Spark's console logging at errors only, for a JVM the job starts itself (the ndcg-spark command,
# python -m ndcg_spark); under spark-submit the JVM is running already, with the cluster's logging.
LOG4J_CONF = Path(__file__).resolve().parents[1] / "log4j2.properties"
DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"


def session_conf(config: JobConfig, interactive: bool = False) -> dict[str, str]:
    """The job's settings, then the config file's [spark] table on top. On a terminal Spark's
    progress bar is on; in a scheduler's log it would be noise. A JVM the job starts itself logs
    quietly (LOG4J_CONF), unless [spark] gives the driver's Java options."""
    progress = {"spark.ui.showConsoleProgress": "true" if interactive else "false"}
    return {**BASE_CONF, **progress, **quiet_conf(), **config.spark_conf}


def quiet_conf() -> dict[str, str]:
    """A JVM the command starts itself logs quietly (LOG4J_CONF); spark-submit's has its own."""
    return (
        {} if SPARK_SUBMIT_GATEWAY in os.environ else {DRIVER_JAVA_OPTIONS: f"-Dlog4j2.configurationFile={LOG4J_CONF.as_uri()}"}
    )


def progress_bar(text_log: bool, stderr: TextIO) -> bool:
    """Spark's progress bar: for a person at a terminal; in a file (--log-format text, stderr
    redirected) it is a line per redraw."""
    return text_log and stderr.isatty()


API_MODE = "spark.api.mode"
# How spark-submit hands a Python driver its settings under spark.api.mode=connect: JSON objects
# in PYSPARK_REMOTE_INIT_CONF_0.._{LEN-1}, instead of the JVM's properties (Spark's PythonRunner).
# No public signal exists before a session is built: SPARK_REMOTE is set only with spark.remote,
# pyspark's is_remote() turns true once a Connect session runs, and pyspark's own Connect builder
# reads these variables. Should a later Spark hand them over otherwise, build_session's check of
# the built session's class still refuses, after the JVM starts instead of before
# (tests/unit/test_session.py checks both).
_INIT_CONF = "PYSPARK_REMOTE_INIT_CONF"


def asks_for_connect(config: JobConfig) -> bool:
    """Whether the job is asked to run on Spark Connect: spark.api.mode=connect in the config's
    [spark], in SPARK_API_MODE, or from spark-submit's --conf; or a Connect server in SPARK_REMOTE.
    Known before the session is built, so that the job can refuse before Spark starts (pyspark's
    own builder would fail under spark-submit with a JVM error instead)."""
    modes = [config.spark_conf.get(API_MODE), os.environ.get("SPARK_API_MODE")]
    for index in range(int(os.environ.get(f"{_INIT_CONF}_LEN", "0") or 0)):
        settings = json.loads(os.environ.get(f"{_INIT_CONF}_{index}", "{}") or "{}")
        modes.append(settings.get(API_MODE) if isinstance(settings, dict) else None)
    return "SPARK_REMOTE" in os.environ or any(str(mode).strip().lower() == "connect" for mode in modes if mode)
