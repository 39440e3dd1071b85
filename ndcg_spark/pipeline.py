"""The evaluation end to end on a SparkSession: one pass over the data, checks, report, counts.

The one pass reads and shuffles each input once and writes one small row per (run, query) to a
staging folder, counting every row check on the way. Only when the checks pass is the report
derived from those staged rows (a few rows per query, so the rest costs little)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from pyspark.sql import DataFrame, Observation, Row, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.compare import Resampling, comparison_frame, compare, cutoffs_of
from ndcg_spark.config import JobConfig
from ndcg_spark.inputs import read_inputs
from ndcg_spark.progress import step
from ndcg_spark.metrics import (
    JUDGED_QUERIES,
    RETRIEVED,
    RETRIEVED_JUDGED,
    counts_per_run,
    evaluated_pairs,
    per_query_rows,
    query_pairs,
    summarize,
)
from ndcg_spark.publish import Dataset
from ndcg_spark.slices import SLICE, SLICE_SUMMARY_SCHEMA, SLICE_VALUE, query_slices, slice_source, slice_summary
from ndcg_spark.storage import Staging
from ndcg_spark.trec import report_lines, sorted_lines
from ndcg_spark.validation import InputCounts, Observed, enforce, observe

PER_QUERY_DIR = "per_query"
SUMMARY_DIR = "summary"
COMPARISON_DIR = "comparison"
SLICES_DIR = "slices"
TREC_EVAL_DIR = "trec_eval"
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
    comparison: list[dict[str, Any]] = field(default_factory=list)
    slices: list[Row] = field(default_factory=list)

    @property
    def run_ids(self) -> list[str]:
        return [run.run_id for run in self.runs]


@dataclass(frozen=True)
class MainPass:
    """The plan of the one pass over the data, and what it observes on the way."""

    pairs: DataFrame
    judgments: Observed
    results: Observed
    judged_queries: Observation


def main_pass(spark: SparkSession, config: JobConfig) -> MainPass:
    """The plan of the one pass over the data: (run, query) rows, and both inputs' observed checks."""
    judgments, results = (observe(source) for source in read_inputs(spark, config))
    judged_queries = Observation("judged_queries")
    # When copies are refused, a run with copies publishes nothing: the ideal side can read the
    # judgments' exchange as it is, and only the join's side sorts them for the copies check.
    lenient = judgments.source.duplicates.lenient
    pairs = query_pairs(
        results.frame,
        judgments.frame,
        ks=config.ks,
        gain_kind=config.gain,
        order_by=config.order_by,
        uncut=config.uncut,
        judged_queries=judged_queries,
        ideal_judgments=judgments.frame if lenient else judgments.checked,
    )
    return MainPass(pairs, judgments, results, judged_queries)


@dataclass(frozen=True)
class Scored:
    """The staged (run, query) rows and the counts the main pass observed."""

    pairs: DataFrame
    judgments: InputCounts
    results: InputCounts
    judged_queries: int


def score_pairs(spark: SparkSession, config: JobConfig, staging: Staging) -> Scored:
    """The one pass: stage the (run, query) rows, then enforce the row checks it counted."""
    scoring = main_pass(spark, config)
    scoring.pairs.write.parquet(staging.path(PAIRS_DIR))
    judged, retrieved = enforce(scoring.judgments), enforce(scoring.results)
    judged_queries = int(scoring.judged_queries.get[JUDGED_QUERIES] or 0)
    return Scored(spark.read.parquet(staging.path(PAIRS_DIR)), judged, retrieved, judged_queries)


def evaluate(spark: SparkSession, config: JobConfig, staging: Staging) -> tuple[DataFrame, Evaluation]:
    """Validate and score; returns the per-query report (a plan over the staged rows) and the
    summary, comparison, slices and counts, collected (a few rows per run and cutoff)."""
    # Slice columns are looked up before the main pass, so a missing one fails in seconds.
    slice_input = slice_source(spark, config) if config.slices else None
    with step("main pass") as counts:
        scored = score_pairs(spark, config, staging)
        pairs, judged, retrieved = scored.pairs, scored.judgments, scored.results
        counts.update(judgment_rows=judged.rows_read, result_rows=retrieved.rows_read)
    per_query = evaluated_pairs(pairs, config.ks, config.uncut, config.complete).transform(
        lambda df: per_query_rows(df, config.ks, config.uncut)
    )
    with step("summary") as counts:
        summary = summarize(per_query).orderBy(c.RUN_ID, c.MEASURE, F.col(c.K).asc_nulls_last()).collect()
        judged_queries = scored.judged_queries
        runs = _run_counts(pairs, judged_queries, config.complete)
        counts.update(runs=len(runs), judged_queries=judged_queries, per_query_rows=sum(row[c.NUM_QUERIES] for row in summary))
    comparison = []
    if config.baseline is not None:
        with step("comparison") as counts:
            resampling = Resampling(config.permutations, config.bootstrap, config.seed)
            run_ids = [run.run_id for run in runs]
            cutoffs = cutoffs_of(config.ks, config.uncut)
            comparison = compare(spark, per_query, config.baseline, run_ids, cutoffs, resampling)
            counts.update(baseline=config.baseline, rows=len(comparison))
    slices = []
    if slice_input is not None:
        with step("slices") as counts:
            by_query = query_slices(*slice_input, config.slices)
            slices = (
                slice_summary(per_query, by_query, config.slices)
                .orderBy(SLICE, F.col(SLICE_VALUE).asc_nulls_last(), c.RUN_ID, c.MEASURE, F.col(c.K).asc_nulls_last())
                .collect()
            )
            counts.update(rows=len(slices))
    return per_query, Evaluation(
        summary=summary,
        runs=runs,
        judgment_rows=judged.rows_read,
        result_rows=retrieved.rows_read,
        judged_queries=judged_queries,
        duplicate_judgments_dropped=judged.duplicates_dropped,
        duplicate_results_dropped=retrieved.duplicates_dropped,
        complete=config.complete,
        comparison=comparison,
        slices=slices,
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


def report_datasets(
    spark: SparkSession, config: JobConfig, per_query: DataFrame, evaluation: Evaluation
) -> list[Dataset]:
    """Every dataset to publish, each with the number of rows the job computed for it. The
    small ones are built from the rows already collected: exactly what was printed."""
    summary = spark.createDataFrame(evaluation.summary, schema=summarize(per_query).schema)
    datasets = [
        Dataset(PER_QUERY_DIR, per_query, sum(row[c.NUM_QUERIES] for row in evaluation.summary)),
        Dataset(SUMMARY_DIR, summary, len(evaluation.summary)),
    ]
    if config.baseline is not None:
        datasets.append(Dataset(COMPARISON_DIR, comparison_frame(spark, evaluation.comparison), len(evaluation.comparison)))
    if config.slices:
        slices = spark.createDataFrame(evaluation.slices, schema=SLICE_SUMMARY_SCHEMA)
        datasets.append(Dataset(SLICES_DIR, slices, len(evaluation.slices)))
    if config.trec_eval_report:
        datasets += _trec_datasets(per_query, summary, evaluation)
    return datasets


def _trec_datasets(per_query: DataFrame, summary: DataFrame, evaluation: Evaluation) -> list[Dataset]:
    """One trec_eval -q style text per run: its per-query lines and its 'all' lines."""
    lines = report_lines(per_query, summary)
    datasets = []
    for run in evaluation.run_ids:
        rows = [row for row in evaluation.summary if row[c.RUN_ID] == run]
        expected = sum(row[c.NUM_QUERIES] for row in rows) + len(rows)
        name = f"{TREC_EVAL_DIR}/{c.RUN_ID}={quote(run, safe='')}"
        datasets.append(Dataset(name, sorted_lines(lines, run), expected, text=True))
    return datasets
