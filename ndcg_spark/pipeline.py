"""The evaluation end to end on a SparkSession: one pass over the data, checks, report, counts.

The one pass reads and shuffles each input once and writes one small row per (run, query) to a
staging folder, counting every row check on the way. Only when the checks pass is the report
derived from those staged rows (a few rows per query, so the rest costs little)."""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.config import JobConfig
from ndcg_spark.inputs import read_inputs
from ndcg_spark.metrics import (
    RETRIEVED,
    RETRIEVED_JUDGED,
    counts_per_run,
    evaluated_pairs,
    is_judged,
    per_query_rows,
    query_pairs,
    summarize,
)
from ndcg_spark.publish import Dataset
from ndcg_spark.storage import Staging
from ndcg_spark.validation import InputCounts, Observed, enforce, observe

PER_QUERY_DIR = "per_query"
SUMMARY_DIR = "summary"
PAIRS_DIR = "pairs"


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


def main_pass(spark: SparkSession, config: JobConfig) -> tuple[DataFrame, Observed, Observed]:
    """The plan of the one pass over the data: (run, query) rows, and both inputs' observed checks."""
    judgments, results = (observe(source) for source in read_inputs(spark, config))
    pairs = query_pairs(
        results.frame,
        judgments.frame,
        ks=config.ks,
        gain_kind=config.gain,
        order_by=config.order_by,
        uncut=config.uncut,
    )
    return pairs, judgments, results


def score_pairs(spark: SparkSession, config: JobConfig, staging: Staging) -> tuple[DataFrame, InputCounts, InputCounts]:
    """The one pass: stage the (run, query) rows, then enforce the row checks it counted.
    Returns the staged rows and the (judgments, results) counts."""
    pairs, judgments, results = main_pass(spark, config)
    pairs.write.parquet(staging.path(PAIRS_DIR))
    judged, retrieved = enforce(judgments), enforce(results)
    return spark.read.parquet(staging.path(PAIRS_DIR)), judged, retrieved


def evaluate(spark: SparkSession, config: JobConfig, staging: Staging) -> tuple[DataFrame, Evaluation]:
    """Validate and score; returns the per-query report (a plan over the staged rows) and the
    summary and counts, collected (a few rows per run)."""
    pairs, judged, retrieved = score_pairs(spark, config, staging)
    per_query = evaluated_pairs(pairs, config.ks, config.uncut, config.complete).transform(
        lambda df: per_query_rows(df, config.ks, config.uncut)
    )
    summary = summarize(per_query).orderBy(c.RUN_ID, c.MEASURE, F.col(c.K).asc_nulls_last()).collect()
    judged_queries = pairs.filter(is_judged(pairs)).select(c.QUERY_ID).distinct().count()
    return per_query, Evaluation(
        summary=summary,
        runs=_run_counts(pairs, judged_queries, config.complete),
        judgment_rows=judged.rows_read,
        result_rows=retrieved.rows_read,
        judged_queries=judged_queries,
        duplicate_judgments_dropped=judged.duplicates_dropped,
        duplicate_results_dropped=retrieved.duplicates_dropped,
        complete=config.complete,
    )


def _run_counts(pairs: DataFrame, judged_queries: int, complete: bool) -> list[RunCounts]:
    """Per run: queries scored, judged queries it lacks (scored 0 with --complete), unjudged ones."""
    counts = counts_per_run(pairs).orderBy(c.RUN_ID).collect()
    return [
        RunCounts(
            run_id=row[c.RUN_ID],
            evaluated=judged_queries if complete else row[RETRIEVED_JUDGED],
            missing=judged_queries - row[RETRIEVED_JUDGED],
            skipped=row[RETRIEVED] - row[RETRIEVED_JUDGED],
        )
        for row in counts
    ]


def report_datasets(spark: SparkSession, per_query: DataFrame, evaluation: Evaluation) -> list[Dataset]:
    """per_query and summary, each with the number of rows the job computed for it. The summary
    is built from the rows already collected: exactly what was printed, not computed twice."""
    summary = spark.createDataFrame(evaluation.summary, schema=summarize(per_query).schema)
    return [
        Dataset(PER_QUERY_DIR, per_query, sum(row[c.NUM_QUERIES] for row in evaluation.summary)),
        Dataset(SUMMARY_DIR, summary, len(evaluation.summary)),
    ]
