"""Test helper: a task failure injected right after the results' shuffle, in the stage that also
holds the row-check counters.

Run as a script, the job in a fresh JVM on local[2,4] (up to 4 attempts per task):

    python tests/fault_injection.py once|always JOB ARGUMENTS...

Imported, `failing(mode, copartition)` is the patch of checks.observe.copartition that injects it
in this process."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyspark import TaskContext  # noqa: E402
from pyspark.sql import DataFrame, SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

import ndcg_spark.checks.observe as validation  # noqa: E402
from ndcg_spark.job.cli import main  # noqa: E402

INJECTED = "injected task failure"
Copartition = Callable[[DataFrame], DataFrame]


def failing(mode: str, copartition: Copartition) -> Copartition:
    """copartition, with the results' scores read through a UDF that fails: every attempt
    (always) or the first attempt of the first partition (once). A clean run needs no patch."""

    def maybe_fail(score: float) -> float:
        context = TaskContext.get()
        first_attempt = context.attemptNumber() == 0 and context.partitionId() == 0
        if mode == "always" or (mode == "once" and first_attempt):
            raise RuntimeError(INJECTED)
        return score

    def patched(frame: DataFrame) -> DataFrame:
        shuffled = copartition(frame)
        if "score" not in frame.columns:
            return shuffled
        return shuffled.withColumn("score", F.udf(maybe_fail, T.DoubleType(), useArrow=False)("score"))

    return patched


if __name__ == "__main__":
    validation.copartition = failing(sys.argv[1], validation.copartition)
    SparkSession.builder.master("local[2,4]").config("spark.ui.enabled", "false").getOrCreate()
    sys.exit(main(sys.argv[2:]))
