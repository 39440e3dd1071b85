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
from ndcg_spark.io.storage import file_system
from ndcg_spark.publish.atomic import Published
from ndcg_spark.publish.layout import PublicationLayout
from ndcg_spark.version import package_version

OUTPUTS = "outputs"
# Each output's files, recorded once they are in place: a reader reads these and checks that each
# is still the one recorded (publish/read_back.py), so that it never mixes two runs' datasets.
FILES = "files"
FILE_NAME, FILE_BYTES, FILE_MODIFIED, FILE_ROWS = "name", "bytes", "modified_ms", "rows"


def _iso(millis: int) -> str:
    return dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC).isoformat()


def input_record(spark: SparkSession, path: str, rows: int | None) -> dict[str, Any]:
    """An input as the manifest records it: path, rows read, files and their latest change."""
    files = file_system(spark, path).files(path)
    return {
        "path": path,
        "rows": rows,
        "files": len(files),
        "last_modified": _iso(max(info.modified_ms for info in files)) if files else None,
    }


def input_records(spark: SparkSession, inputs: Mapping[str, str], evaluation: Evaluation) -> dict[str, dict[str, Any]]:
    """Each input's record (input_record) by label: judgments and results, several results
    inputs as results:NAME, whose rows are counted together only (counts.result_rows). Listed
    once per run: the gate compares the judgments' record with an earlier manifest's."""
    rows = {"judgments": evaluation.judgment_rows, "results": evaluation.result_rows}
    return {label: input_record(spark, path, rows.get(label)) for label, path in inputs.items()}


def build(
    spark: SparkSession,
    layout: PublicationLayout,
    inputs: Mapping[str, Mapping[str, Any]],
    settings: Mapping[str, Any],
    evaluation: Evaluation,
    published: list[Published],
    started: dt.datetime,
    finished: dt.datetime,
    gate: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The manifest of a published report: `inputs` holds the inputs' records (input_records),
    `settings` is the job's configuration as it ran, `gate` the gate's verdict (when one was
    asked for)."""
    return {
        "eval_date": None if layout.eval_date is None else layout.eval_date.isoformat(),
        "started": started.isoformat(),
        "finished": finished.isoformat(),
        "inputs": {label: dict(record) for label, record in inputs.items()},
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
        OUTPUTS: {item.name: {"path": item.path, "rows": item.rows} for item in published},
        **({} if gate is None else {"gate": dict(gate)}),
    }


def text(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


_INPUT_IDENTITY = ("path", "rows", "files", "last_modified")


def inputs_differ(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> bool | None:
    """Whether two manifests' records of an input differ (path, rows, files or their latest
    change); None when either is unknown."""
    if not before or not after:
        return None
    return any(before.get(key) != after.get(key) for key in _INPUT_IDENTITY)


def with_files(manifest_text: str, files: Mapping[str, list[dict[str, Any]]]) -> str:
    """The manifest with each output's files (FILE_* keys) as they were placed."""
    record = json.loads(manifest_text)
    for name, placed in files.items():
        record[OUTPUTS][name][FILES] = placed
    return text(record)
