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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql import SparkSession

from ndcg_spark.errors import StateNotReadable
from ndcg_spark.evaluation import Evaluation
from ndcg_spark.gate.verdict import Verdict
from ndcg_spark.io.layout import PER_QUERY_DIR
from ndcg_spark.io.storage import file_system
from ndcg_spark.options import ENGINE_LOCAL, ENGINE_SPARK
from ndcg_spark.publish.atomic import Published
from ndcg_spark.publish.layout import PublicationLayout
from ndcg_spark.version import package_version

JUDGMENTS = "judgments"  # the judgments' label among the inputs

OUTPUTS = "outputs"
FILES = "files"
_GATE = "gate"


@dataclass(frozen=True)
class FileRecord:
    """One file of a published dataset as it was once in place: what a reader checks that it
    reads (publish/read_back.py), so that it never mixes two runs' datasets."""

    name: str
    bytes: int
    modified_ms: int
    rows: int | None


@dataclass(frozen=True)
class OutputRecord:
    """A published dataset or file: where, how many rows, and its files (None: a version that did
    not record them)."""

    path: str
    rows: int | None
    files: tuple[FileRecord, ...] | None = None


@dataclass(frozen=True)
class InputRecord:
    """An input as it was read: path, rows read, files and their latest change."""

    path: str
    rows: int | None
    files: int
    last_modified: str | None

    def differs(self, other: InputRecord | None) -> bool | None:
        """Whether another record of the same input differs in path, rows, files or their latest
        change; None when it is unknown."""
        return None if other is None else self != other


@dataclass(frozen=True)
class Counts:
    judged_queries: int = 0
    result_rows: int = 0
    runs: tuple[Mapping[str, Any], ...] = ()  # evaluation.RunCounts, as JSON
    duplicate_judgments_dropped: int = 0
    duplicate_results_dropped: int = 0


@dataclass(frozen=True)
class GateEntry:
    """The gate's verdict as the manifest records it (its rule is in the config, under gate)."""

    passed: bool
    references: tuple[str, ...]
    failed: tuple[Mapping[str, Any], ...]  # reference, run_id, measure, k, difference
    note: str | None

    @classmethod
    def of(cls, verdict: Verdict) -> GateEntry:
        return cls(
            passed=verdict.passed,
            references=tuple(sorted({row.reference for row in verdict.rows})),
            failed=tuple(
                {
                    "reference": row.reference,
                    "run_id": row.run_id,
                    "measure": row.measure,
                    "k": row.k,
                    "difference": row.difference,
                }
                for row in verdict.failed
            ),
            note=verdict.note,
        )


@dataclass(frozen=True)
class Manifest:
    """What a published report was computed from, with what, and how it went. Its JSON keys are
    these fields' names; `config` holds the job's settings and every option by keyword."""

    eval_date: str | None
    started: str
    finished: str
    inputs: Mapping[str, InputRecord]
    config: Mapping[str, Any]
    versions: Mapping[str, str]
    counts: Counts
    outputs: Mapping[str, OutputRecord]
    gate: GateEntry | None = None
    # Which engine computed it: spark, or local (the embedded engine, in the job's process).
    engine: str = ENGINE_SPARK

    def to_json(self) -> dict[str, Any]:
        record = json.loads(json.dumps(dataclasses.asdict(self), default=str))
        for entry in record[OUTPUTS].values():
            if entry[FILES] is None:
                del entry[FILES]
        if record[_GATE] is None:
            del record[_GATE]
        return record

    def text(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n"

    @property
    def records_files(self) -> bool:
        """Whether it names its datasets' files (a version before that did not: such a date
        cannot be read back whole)."""
        return PER_QUERY_DIR in self.outputs and all(entry.files is not None for entry in self.outputs.values())

    @property
    def judgments(self) -> InputRecord | None:
        return self.inputs.get(JUDGMENTS)

    def with_files(self, files: Mapping[str, Sequence[FileRecord]]) -> Manifest:
        """The manifest with each output's files as they were placed."""
        outputs = {
            name: dataclasses.replace(entry, files=tuple(files[name])) if name in files else entry
            for name, entry in self.outputs.items()
        }
        return dataclasses.replace(self, outputs=outputs)

    @classmethod
    def from_json(cls, record: Mapping[str, Any], path: str) -> Manifest:
        """The manifest a JSON object holds; StateNotReadable, naming the file, when it is not of
        this shape. Keys a version before did not write take their defaults."""
        try:
            outputs = record.get(OUTPUTS, {})
            if not isinstance(outputs, dict) or not all(isinstance(entry, dict) for entry in outputs.values()):
                raise TypeError(f"{OUTPUTS} is not an object of objects")
            gate = record.get(_GATE)
            return cls(
                eval_date=record.get("eval_date"),
                started=str(record.get("started", "")),
                finished=str(record.get("finished", "")),
                inputs={label: InputRecord(**entry) for label, entry in dict(record.get("inputs") or {}).items()},
                config=dict(record.get("config") or {}),
                versions=dict(record.get("versions") or {}),
                counts=Counts(
                    **{**dict(record.get("counts") or {}), "runs": tuple(dict(record.get("counts") or {}).get("runs", ()))}
                ),
                outputs={name: _output(entry) for name, entry in outputs.items()},
                engine=str(record.get("engine", ENGINE_SPARK)),
                gate=None
                if gate is None
                else GateEntry(**{**gate, "references": tuple(gate["references"]), "failed": tuple(gate["failed"])}),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise StateNotReadable(f"manifest {path} holds JSON of the wrong shape ({error})") from None


def _output(entry: Mapping[str, Any]) -> OutputRecord:
    files = entry.get(FILES)
    if files is not None and (not isinstance(files, list) or not all(isinstance(item, dict) for item in files)):
        raise TypeError(f"{FILES} is not a list of objects")
    keys = {item.name for item in dataclasses.fields(FileRecord)}
    if files is not None and not all(keys <= item.keys() for item in files):
        raise TypeError(f"a file without {', '.join(sorted(keys))}")
    return OutputRecord(
        path=entry["path"],
        rows=entry.get("rows"),
        files=None if files is None else tuple(FileRecord(**{key: item[key] for key in keys}) for item in files),
    )


def _iso(millis: int) -> str:
    return dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC).isoformat()


def input_record(spark: SparkSession | None, path: str, rows: int | None) -> InputRecord:
    """An input as the manifest records it: path, rows read, files and their latest change."""
    files = file_system(spark, path).files(path)
    return InputRecord(path, rows, len(files), _iso(max(info.modified_ms for info in files)) if files else None)


def input_records(spark: SparkSession | None, inputs: Mapping[str, str], evaluation: Evaluation) -> dict[str, InputRecord]:
    """Each input's record (input_record) by label: judgments and results, several results
    inputs as results:NAME, whose rows are counted together only (counts.result_rows). Listed
    once per run: the gate compares the judgments' record with an earlier manifest's."""
    rows = {JUDGMENTS: evaluation.judgment_rows, "results": evaluation.result_rows}
    return {label: input_record(spark, path, rows.get(label)) for label, path in inputs.items()}


def build(
    spark: SparkSession | None,
    layout: PublicationLayout,
    inputs: Mapping[str, InputRecord],
    settings: Mapping[str, Any],
    evaluation: Evaluation,
    published: list[Published],
    started: dt.datetime,
    finished: dt.datetime,
    gate: Verdict | None = None,
) -> Manifest:
    """The manifest of a published report: `inputs` holds the inputs' records (input_records),
    `settings` is the job's configuration as it ran, `gate` the gate's verdict (when one was
    asked for). Its files are added once they are in place (with_files). Without a session, the
    embedded engine computed it (no Spark version to record)."""
    versions = {"ndcg_spark": package_version(), "python": platform.python_version()}
    if spark is not None:
        versions["spark"] = spark.version
    return Manifest(
        eval_date=None if layout.eval_date is None else layout.eval_date.isoformat(),
        started=started.isoformat(),
        finished=finished.isoformat(),
        inputs=dict(inputs),
        config=json.loads(json.dumps(settings, default=str)),
        versions=versions,
        counts=Counts(
            judged_queries=evaluation.judged_queries,
            result_rows=evaluation.result_rows,
            runs=tuple(dataclasses.asdict(run) for run in evaluation.runs),
            duplicate_judgments_dropped=evaluation.duplicate_judgments_dropped,
            duplicate_results_dropped=evaluation.duplicate_results_dropped,
        ),
        outputs={item.name: OutputRecord(item.path, item.rows) for item in published},
        gate=None if gate is None else GateEntry.of(gate),
        engine=ENGINE_SPARK if spark is not None else ENGINE_LOCAL,
    )
