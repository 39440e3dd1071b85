"""The evaluation end to end on a SparkSession: load, validate, score, write, count."""

from __future__ import annotations

from dataclasses import dataclass

from pyspark import StorageLevel
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.config import JobConfig
from ndcg_spark.inputs import load_judgments, load_results
from ndcg_spark.metrics import SKIPPED, ndcg_per_query, skipped_per_run, summarize

PER_QUERY_DIR = "per_query"
SUMMARY_DIR = "summary"


@dataclass(frozen=True)
class RunCounts:
    run_id: str
    evaluated: int
    missing: int
    skipped: int


@dataclass(frozen=True)
class Evaluation:
    """What the job computed and wrote, small enough to print."""

    summary: list[Row]
    runs: list[RunCounts]
    judgment_rows: int
    result_rows: int
    judged_queries: int
    duplicate_judgments_dropped: int
    duplicate_results_dropped: int
    complete: bool


def evaluate(spark: SparkSession, config: JobConfig) -> tuple[DataFrame, Evaluation]:
    """Validate both inputs, then compute the per-query report (persisted) and its counts."""
    judgments = load_judgments(spark, config)
    results = load_results(spark, config)
    per_query = ndcg_per_query(
        results.frame,
        judgments.frame,
        ks=config.ks,
        gain_kind=config.gain,
        complete=config.complete,
        order_by=config.order_by,
        uncut=config.uncut,
    ).persist(StorageLevel.MEMORY_AND_DISK)
    summary = summarize(per_query).orderBy(c.RUN_ID, c.MEASURE, F.col(c.K).asc_nulls_last()).collect()
    judged_queries = judgments.frame.select(c.QUERY_ID).distinct().count()
    return per_query, Evaluation(
        summary=summary,
        runs=_run_counts(per_query, results.frame, judgments.frame, judged_queries, config.ks[0]),
        judgment_rows=judgments.rows_read,
        result_rows=results.rows_read,
        judged_queries=judged_queries,
        duplicate_judgments_dropped=judgments.duplicates_dropped,
        duplicate_results_dropped=results.duplicates_dropped,
        complete=config.complete,
    )


def _run_counts(
    per_query: DataFrame,
    results: DataFrame,
    judgments: DataFrame,
    judged_queries: int,
    first_k: int,
) -> list[RunCounts]:
    """Per run: queries scored, judged queries it lacks (scored 0 with --complete), unjudged ones."""
    scored = {
        row[c.RUN_ID]: row
        for row in per_query.filter(F.col(c.K) == first_k)
        .groupBy(c.RUN_ID)
        .agg(
            F.count(F.lit(1)).alias("evaluated"),
            F.sum(F.when(F.col(c.NUM_RETRIEVED) > 0, 1).otherwise(0)).alias("retrieved"),
        )
        .collect()
    }
    skipped = {
        row[c.RUN_ID]: row[SKIPPED] for row in skipped_per_run(results, judgments).collect()
    }
    runs = sorted(skipped)
    return [
        RunCounts(
            run_id=run,
            evaluated=scored[run]["evaluated"] if run in scored else 0,
            missing=judged_queries - (scored[run]["retrieved"] if run in scored else 0),
            skipped=skipped[run],
        )
        for run in runs
    ]


def write_reports(per_query: DataFrame, config: JobConfig) -> None:
    """per_query and summary as Parquet; with an eval date, only that date's partition is replaced."""
    summary = summarize(per_query).coalesce(1).sortWithinPartitions(
        c.RUN_ID, c.MEASURE, F.col(c.K).asc_nulls_last()
    )
    for name, frame in ((PER_QUERY_DIR, per_query), (SUMMARY_DIR, summary)):
        path = f"{config.output.rstrip('/')}/{name}"
        if config.eval_date is None:
            frame.write.mode("overwrite").parquet(path)
        else:
            (
                frame.withColumn(c.EVAL_DATE, F.lit(config.eval_date).cast(T.DateType()))
                .write.mode("overwrite")
                .option("partitionOverwriteMode", "dynamic")
                .partitionBy(c.EVAL_DATE)
                .parquet(path)
            )
