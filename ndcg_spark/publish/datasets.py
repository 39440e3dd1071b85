"""The datasets a run publishes, each with the number of rows the evaluation computed for it."""

from __future__ import annotations

from urllib.parse import quote

from pyspark.sql import DataFrame, SparkSession

from ndcg_spark import columns as c
from ndcg_spark.evaluation import Evaluation, comparison_frame, slices_frame, summary_frame
from ndcg_spark.io.layout import COMPARISON_DIR, PER_QUERY_DIR, SLICES_DIR, SUMMARY_DIR, TREC_EVAL_DIR
from ndcg_spark.publish.atomic import Dataset
from ndcg_spark.report.trec_eval import report_lines, sorted_lines


def report_datasets(
    spark: SparkSession,
    per_query: DataFrame,
    evaluation: Evaluation,
    *,
    comparison: bool,
    slices: bool,
    trec_eval_report: bool,
) -> list[Dataset]:
    """Every dataset to publish, in publication order. The small ones are built from the rows
    already collected: exactly what was printed."""
    summary = summary_frame(spark, per_query, evaluation)
    datasets = [
        Dataset(PER_QUERY_DIR, per_query, evaluation.per_query_rows),
        Dataset(SUMMARY_DIR, summary, len(evaluation.summary)),
    ]
    if comparison:
        datasets.append(Dataset(COMPARISON_DIR, comparison_frame(spark, evaluation), len(evaluation.comparison)))
    if slices:
        datasets.append(Dataset(SLICES_DIR, slices_frame(spark, evaluation), len(evaluation.slices)))
    if trec_eval_report:
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
