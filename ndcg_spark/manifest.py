"""The run manifest: what a published report was computed from, with what, and how it went.

One JSON file per eval date (`DIR/_manifests/YYYY-MM-DD.json`, or `latest.json` without a date),
written last, after the report is published: its presence says the report beside it is complete.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import platform
from typing import Any

from pyspark.sql import SparkSession

from ndcg_spark import __version__
from ndcg_spark.config import JobConfig
from ndcg_spark.pipeline import Evaluation
from ndcg_spark.publish import Published
from ndcg_spark.storage import FileSystem

MANIFEST_DIR = "_manifests"
OUTCOME_PUBLISHED = "published"


def manifest_path(config: JobConfig) -> str:
    name = "latest" if config.eval_date is None else config.eval_date.isoformat()
    return f"{config.output.rstrip('/')}/{MANIFEST_DIR}/{name}.json"


def _iso(millis: int) -> str:
    return dt.datetime.fromtimestamp(millis / 1000, tz=dt.timezone.utc).isoformat()


def _input(spark: SparkSession, path: str, rows: int) -> dict[str, Any]:
    files = FileSystem(spark, path).files(path)
    return {
        "path": path,
        "rows": rows,
        "files": len(files),
        "last_modified": _iso(max(info.modified_ms for info in files)) if files else None,
    }


def build(
    spark: SparkSession,
    config: JobConfig,
    evaluation: Evaluation,
    published: list[Published],
    started: dt.datetime,
    finished: dt.datetime,
) -> dict[str, Any]:
    return {
        "outcome": OUTCOME_PUBLISHED,
        "eval_date": None if config.eval_date is None else config.eval_date.isoformat(),
        "started": started.isoformat(),
        "finished": finished.isoformat(),
        "inputs": {
            "judgments": _input(spark, config.judgments, evaluation.judgment_rows),
            "results": _input(spark, config.results, evaluation.result_rows),
        },
        "config": json.loads(json.dumps(dataclasses.asdict(config), default=str)),
        "versions": {
            "ndcg_spark": __version__,
            "spark": spark.version,
            "python": platform.python_version(),
        },
        "counts": {
            "judged_queries": evaluation.judged_queries,
            "runs": [dataclasses.asdict(run) for run in evaluation.runs],
            "duplicate_judgments_dropped": evaluation.duplicate_judgments_dropped,
            "duplicate_results_dropped": evaluation.duplicate_results_dropped,
        },
        "outputs": {item.name: {"path": item.path, "rows": item.rows} for item in published},
    }


def write(spark: SparkSession, config: JobConfig, manifest: dict[str, Any]) -> str:
    path = manifest_path(config)
    fs = FileSystem(spark, path)
    fs.mkdirs(path.rsplit("/", 1)[0])
    fs.write_text(path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return path
