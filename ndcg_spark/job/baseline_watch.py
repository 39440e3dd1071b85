"""An unknown --baseline refused as soon as the run names are read, not after the main pass.

When the results name their runs in a column, the runs are known only from the data, and
compare refuses a baseline that is none of them only after the scoring (36 s into a 10M-row
run). So while the main pass runs, a thread reads the run names (a distinct of that one column:
Parquet reads the column alone); a baseline that names none of them cancels the pass's Spark jobs
and is refused in compare's words, exit 2.

The jobs are grouped by SparkContext's job groups: the job runs on a classic session only
(run.build_session), and SparkSession's operation tags, tried first, cancelled nothing there
(pyspark 4.3: interruptTag found no operation of a tag the main thread had added)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from pyspark import SparkContext
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.checks.inputs import Input
from ndcg_spark.checks.kinds import require_baseline
from ndcg_spark.errors import ConfigError

# The job groups of the main pass's Spark jobs and of the watcher's own.
PASS_GROUP = "ndcg-spark-main-pass"
WATCH_GROUP = "ndcg-spark-baseline-watch"
INTERRUPT_EVERY = 0.2  # seconds
JOB_GROUP = "spark.jobGroup.id"
JOB_DESCRIPTION = "spark.job.description"  # set by setJobGroup too: the later jobs are not the pass's


def _quiet_spark_logs(context: SparkContext) -> None:
    """A refusal prints one line: the cancelled jobs' own errors (the writer's "Aborting job" with
    its SPARK_JOB_CANCELLED stack, a shuffle fetch cut short) would print dozens more on the JVM's
    stderr, so the JVM logs nothing from here on. The job ends with the refusal."""
    log4j = context._jvm.org.apache.logging.log4j  # type: ignore[union-attr]  # the job's session is classic
    log4j.core.config.Configurator.setAllLevels("", log4j.Level.OFF)


@contextmanager
def baseline_watch(spark: SparkSession, results: Input, baseline: str | None) -> Iterator[None]:
    """Run the block (the main pass) while a thread checks that `baseline` is one of the
    results' runs; raise its ConfigError, not the interrupted block's error, when it is not.
    Nothing to watch without a baseline, or when no results input has a run column (then
    canonical_inputs has checked the runs already)."""
    if baseline is None or not results.run_column:
        yield
        return
    refusals: list[ConfigError] = []
    over = threading.Event()

    context = spark.sparkContext

    def watch() -> None:
        context.setJobGroup(WATCH_GROUP, "the results' run names, to check --baseline", interruptOnCancel=True)
        try:
            rows = results.frame.select(c.RUN_ID).distinct().collect()
            require_baseline(baseline, sorted(row[0] for row in rows if row[0] is not None))
        except ConfigError as refusal:
            refusals.append(refusal)  # before the interruption: the block's error is read after it
            _quiet_spark_logs(context)
            # A cancellation stops the jobs running now; one that lands between two of the
            # pass's jobs stops none, so it is repeated until the block is over.
            while True:
                context.cancelJobGroup(PASS_GROUP)
                if over.wait(INTERRUPT_EVERY):
                    return
        except Exception:  # noqa: BLE001 - interrupted, or a failure the main pass reports itself
            return

    watcher = threading.Thread(target=watch, name="baseline-watch", daemon=True)
    context.setJobGroup(PASS_GROUP, "the main pass", interruptOnCancel=True)
    watcher.start()
    try:
        yield
    except Exception:
        if refusals:
            raise refusals[0] from None
        raise
    finally:
        over.set()
        for local in (JOB_GROUP, JOB_DESCRIPTION):
            context.setLocalProperty(local, None)  # type: ignore[arg-type]  # None unsets it
        if watcher.is_alive():
            context.cancelJobGroup(WATCH_GROUP)  # the block is over: compare checks the baseline itself
