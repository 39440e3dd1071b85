"""Test helper: a fault injected right after the results' shuffle, in the stage that also holds
the row-check counters (the main pass's second stage).

Run as a script, the job with the fault:

    python tests/fault_injection.py once|always JOB_ARGUMENTS...       on local[2,4] (4 attempts a task)
    python tests/fault_injection.py lose-worker:MARK JOB_ARGUMENTS...  on the master spark-submit gives

`once` fails the first attempt of the first partition, `always` every attempt. `lose-worker`
makes the first attempt of the first partition (once: not when MARK exists) write MARK, then SIGKILL
the process group of the standalone cluster's worker that runs it: the worker, its executor and the
shuffle files they hold, as a lost machine, at a known step of the main pass rather than at a time.

Imported, `failing(mode, copartition)` is the patch of checks.observe.copartition that injects it
in this process."""

from __future__ import annotations

import os
import signal
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
LOSE_WORKER = "lose-worker:"
Copartition = Callable[[DataFrame], DataFrame]


WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


def _worker_of(pid: int) -> int:
    """The standalone worker's JVM among a process's ancestors (Linux /proc): the Python worker's
    daemon has a process group of its own, the worker's holds its executor."""
    while pid > 1:
        if WORKER_CLASS.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    raise RuntimeError(f"no {WORKER_CLASS} among the ancestors of this task")


def failing(mode: str, copartition: Copartition) -> Copartition:
    """copartition, with the results' scores read through a UDF that injects the fault. A clean
    run needs no patch."""

    def maybe_fail(score: float) -> float:
        context = TaskContext.get()
        first = context.attemptNumber() == 0 and context.partitionId() == 0
        # Once only: the stage run again after the loss starts its attempts from 0 (the mark, on
        # the one machine all the workers share, says a worker is lost already).
        mark = Path(mode.removeprefix(LOSE_WORKER)) if mode.startswith(LOSE_WORKER) else None
        if mark is not None and first and not mark.exists():
            worker = _worker_of(os.getpid())
            mark.write_text(f"stage {context.stageId()} partition 0, worker pid {worker}")
            os.killpg(os.getpgid(worker), signal.SIGKILL)
        if mode == "always" or (mode == "once" and first):
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
    if not sys.argv[1].startswith(LOSE_WORKER):
        SparkSession.builder.master("local[2,4]").config("spark.ui.enabled", "false").getOrCreate()
    sys.exit(main(sys.argv[2:]))
