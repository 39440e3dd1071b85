"""Test helper, run as a script: the job in a fresh JVM on local[2,4] (up to 4 attempts per task),
with a task failure injected right after the results' shuffle, in the stage that also holds the
row-check counters.

    python tests/fault_injection.py none|once|always JOB ARGUMENTS...
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyspark import TaskContext  # noqa: E402
from pyspark.sql import DataFrame, SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

import ndcg_spark.checks.observe as validation  # noqa: E402
import ndcg_spark.scoring.metrics as metrics  # noqa: E402
from ndcg_spark.job.cli import main  # noqa: E402

MODE = sys.argv[1]
INJECTED = "injected task failure"


def _maybe_fail(score: float) -> float:
    context = TaskContext.get()
    first_attempt = context.attemptNumber() == 0 and context.partitionId() == 0
    if MODE == "always" or (MODE == "once" and first_attempt):
        raise RuntimeError(INJECTED)
    return score


_copartition = metrics.copartition


def copartition(frame: DataFrame) -> DataFrame:
    shuffled = _copartition(frame)
    if MODE == "none" or "score" not in frame.columns:
        return shuffled
    return shuffled.withColumn("score", F.udf(_maybe_fail, T.DoubleType())("score"))


validation.copartition = copartition
SparkSession.builder.master("local[2,4]").config("spark.ui.enabled", "false").getOrCreate()
sys.exit(main(sys.argv[2:]))
