"""The run manifest: what a published report was computed from, with what, and how it went.

One JSON file per eval date (`DIR/_manifests/YYYY-MM-DD.json`, or `latest.json` without a date),
written last, after the report's files are in place (see commit.py): it describes the run whose
report is published for that date.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import platform
from collections.abc import Mapping
from typing import Any

from pyspark.sql import SparkSession

from ndcg_spark.evaluation import Evaluation
from ndcg_spark.io.storage import FileSystem
from ndcg_spark.publish.atomic import Published
from ndcg_spark.publish.layout import PublicationLayout
from ndcg_spark.version import package_version


def _iso(millis: int) -> str:
    return dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC).isoformat()


def _input(spark: SparkSession, path: str, rows: int | None) -> dict[str, Any]:
    files = FileSystem(spark, path).files(path)
    return {
        "path": path,
        "rows": rows,
        "files": len(files),
        "last_modified": _iso(max(info.modified_ms for info in files)) if files else None,
    }


def build(
    spark: SparkSession,
    layout: PublicationLayout,
    inputs: Mapping[str, str],
    settings: Mapping[str, Any],
    evaluation: Evaluation,
    published: list[Published],
    started: dt.datetime,
    finished: dt.datetime,
) -> dict[str, Any]:
    """The manifest of a published report: `inputs` maps judgments and results to their paths
    (several results inputs as results:NAME, whose rows are counted together only, in
    counts.result_rows), `settings` is the job's configuration as it ran."""
    rows = {"judgments": evaluation.judgment_rows, "results": evaluation.result_rows}
    return {
        "eval_date": None if layout.eval_date is None else layout.eval_date.isoformat(),
        "started": started.isoformat(),
        "finished": finished.isoformat(),
        "inputs": {label: _input(spark, path, rows.get(label)) for label, path in inputs.items()},
        "config": json.loads(json.dumps(settings, default=str)),
        "versions": {
            "ndcg_spark": package_version(),
            "spark": spark.version,
            "python": platform.python_version(),
        },
        "counts": {
            "judged_queries": evaluation.judged_queries,
            "result_rows": evaluation.result_rows,
            "runs": [dataclasses.asdict(run) for run in evaluation.runs],
            "duplicate_judgments_dropped": evaluation.duplicate_judgments_dropped,
            "duplicate_results_dropped": evaluation.duplicate_results_dropped,
        },
        "outputs": {item.name: {"path": item.path, "rows": item.rows} for item in published},
    }


def text(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"
