"""The job: evaluate the configured inputs, publish the report atomically, write the manifest."""

from __future__ import annotations

import dataclasses
import datetime as dt
from types import ModuleType

from pyspark.sql import DataFrame, SparkSession

from ndcg_spark import progress
from ndcg_spark.evaluation import Evaluation, evaluate
from ndcg_spark.io.layout import OutputLayout
from ndcg_spark.io.storage import Staging
from ndcg_spark.job.config import JobConfig
from ndcg_spark.job.inputs import read_inputs, read_slices
from ndcg_spark.job.session import session_conf
from ndcg_spark.publish import manifest
from ndcg_spark.publish.atomic import publish, publish_page
from ndcg_spark.publish.datasets import report_datasets
from ndcg_spark.report.console import format_comparison, format_slices, format_table, judged_warnings
from ndcg_spark.report.data import gather

PAIRS_DIR = "pairs"


def build_session(config: JobConfig, interactive: bool) -> SparkSession:
    """The job's session; the master comes from spark-submit, or local mode from the command."""
    builder = SparkSession.builder.appName("ndcg-spark")
    for key, value in session_conf(config, interactive).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def evaluate_paths(spark: SparkSession, config: JobConfig, staging: Staging) -> tuple[DataFrame, Evaluation]:
    """Read the configured inputs and evaluate them; the (run, query) rows are staged as Parquet,
    which survives a lost executor, unlike a checkpoint in executors' memory."""
    judgments, results = read_inputs(spark, config)
    slice_input = read_slices(spark, config)

    def stage(pairs: DataFrame) -> DataFrame:
        pairs.write.parquet(staging.path(PAIRS_DIR))
        return spark.read.parquet(staging.path(PAIRS_DIR))

    return evaluate(spark, judgments, results, config.options(), stage, slice_input)


def run(config: JobConfig, interactive: bool, renderer: ModuleType | None) -> None:
    """Evaluate, publish atomically, then write the manifest; staging goes whatever happens."""
    started = dt.datetime.now(dt.timezone.utc)
    spark = build_session(config, interactive)
    layout = OutputLayout(config.output, config.eval_date)
    staging = Staging(spark, config.output)
    try:
        per_query, evaluation = evaluate_paths(spark, config, staging)
        datasets = report_datasets(
            spark,
            per_query,
            evaluation,
            comparison=config.baseline is not None,
            slices=bool(config.slices),
            trec_eval_report=config.trec_eval_report,
        )
        page = None
        if renderer is not None:
            with progress.step("html report") as counts:
                data = gather(
                    spark, layout, per_query, evaluation, config.ks, config.baseline, judged_warnings(evaluation)
                )
                page = renderer.render(data)
                counts.update(bytes=len(page))
        with progress.step("publish") as counts:
            published = publish(spark, staging, layout, datasets)
            if page is not None:
                published.append(publish_page(staging, layout, page))
            counts.update(outputs=", ".join(item.path for item in published))
        record = manifest.build(
            spark,
            layout,
            {"judgments": config.judgments, "results": config.results},
            dataclasses.asdict(config),
            evaluation,
            published,
            started,
            dt.datetime.now(dt.timezone.utc),
        )
        manifest_file = manifest.write(spark, layout, record)
    finally:
        staging.discard()
    print(format_table(evaluation))
    for extra in (format_comparison(evaluation.comparison), format_slices(evaluation.slices)):
        if extra:
            print(f"\n{extra}")
    print(f"published {', '.join(item.path for item in published)}; manifest {manifest_file}")
