"""Reading a published report back: `read_report(output, eval_date)`, for a notebook, and for the
gate's earlier date.

Dates are found through their manifests (`DIR/_manifests/*.json`), never by listing data folders:
a date is published when its manifest is. A manifest names each dataset's files with the size and
modification time they had once in place (publish/commit.py), and only those files are read. A
rerun of the date replaces them, so a file that is no longer the recorded one means that a
publication is under way or was cut short: reading then raises, and never returns datasets of
two runs. The small datasets are read at once and checked as they are read; per_query stays a
plan over its checked files, and confirm_unchanged tells, after a computation over it, whether
they were replaced meanwhile.

Spark reads the datasets (and, on Spark Connect, the manifests), so this works on classic and
Connect sessions alike."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import unquote

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.comparison.rows import ComparisonRow
from ndcg_spark.errors import ConfigError, NdcgSparkError, StateNotReadable
from ndcg_spark.evaluation import Evaluation, RunCounts, measure_order, slice_order
from ndcg_spark.frames import local_frame
from ndcg_spark.gate.against import Reference
from ndcg_spark.io.layout import COMPARISON_DIR, GATE_DIR, LATEST, PER_QUERY_DIR, SLICES_DIR, SUMMARY_DIR, OutputLayout
from ndcg_spark.io.storage import FileSystem, base_name, file_system, parse_record
from ndcg_spark.publish.layout import MANIFEST_DIR
from ndcg_spark.publish.manifest import FileRecord, InputRecord, Manifest
from ndcg_spark.report.result import Report
from ndcg_spark.sessions import is_connect

_FILE, _BYTES, _MODIFIED = "_file", "_bytes", "_modified_ms"
_SMALL = (SUMMARY_DIR, COMPARISON_DIR, SLICES_DIR, GATE_DIR)  # read at once, a few rows each
_JSON = ".json"


class ReportNotReadable(NdcgSparkError):
    """A published date cannot be read whole now: its publication is under way or was cut short
    (exit 1: it passes once that run ends, or --repair finishes it)."""


def _session(spark: SparkSession | None) -> SparkSession:
    active = spark or SparkSession.getActiveSession()
    if active is None:
        raise ConfigError("read_report needs a SparkSession: start one, or pass spark=")
    return active


class ManifestNotReadable(StateNotReadable):
    """A published date's manifest is empty, cut short or not of its shape: its report cannot be
    read back (exit 3). Running that date again publishes it whole; --repair sets the manifest
    aside."""


def _manifest_name(name: str) -> bool:
    """A manifest's file name: DATE.json or latest.json, never a hidden or temporary file (a
    checksum, a write under way) beside them."""
    return name.endswith(_JSON) and not name.startswith((".", "_"))


def read_manifests(spark: SparkSession | None, output: str) -> tuple[dict[str, Manifest], dict[str, ManifestNotReadable]]:
    """Every published date's manifest, by label (YYYY-MM-DD, or 'latest' for an undated report),
    and apart, each one that cannot be read, as the error that names it. The listing is filtered
    by name before anything is read. On a classic session the driver lists and reads them (no
    Spark job); a Connect client has no file system of its own, so there Spark reads them. Without
    a session (the embedded engine), this process reads them from the local disk."""
    folder = f"{output.rstrip('/')}/{MANIFEST_DIR}"
    if spark is None or not is_connect(spark):
        fs = file_system(spark, output)
        names = [info.path.rsplit("/", 1)[1] for info in fs.children(folder)]
        texts = {name: fs.read_text(f"{folder}/{name}") or "" for name in names if _manifest_name(name)}
    else:
        try:
            rows = (
                spark.read.text(f"{folder}/[^._]*{_JSON}", wholetext=True)
                .select("value", F.col("_metadata.file_name").alias(_FILE))
                .collect()
            )
        except AnalysisException:  # no manifest folder: nothing published
            return {}, {}
        texts = {unquote(row[_FILE]): row["value"] for row in rows if _manifest_name(unquote(row[_FILE]))}
    readable: dict[str, Manifest] = {}
    unreadable: dict[str, ManifestNotReadable] = {}
    for name, text in texts.items():
        label, path = name.removesuffix(_JSON), f"{folder}/{name}"
        try:
            readable[label] = Manifest.from_json(parse_record(text, path, "manifest"), path)
        except StateNotReadable as error:
            unreadable[label] = ManifestNotReadable(
                f"{error}: publish {label} again (run that date), or set the manifest aside with {repair_command(output)}"
            )
    return readable, unreadable


_SET_ASIDE = ".unreadable"  # under _manifests/: a hidden folder, which the listing skips


def set_aside_unreadable_manifests(spark: SparkSession | None, fs: FileSystem, output: str) -> list[tuple[str, str]]:
    """--repair: move every unreadable manifest out of the listing (its date then reads as not
    published, rather than broken, until it is run again); (label, where it went) for each."""
    folder = f"{output.rstrip('/')}/{MANIFEST_DIR}"
    moved = []
    for label in sorted(read_manifests(spark, output)[1]):
        aside = f"{folder}/{_SET_ASIDE}/{label}.{uuid.uuid4().hex}{_JSON}"
        fs.mkdirs(aside.rsplit("/", 1)[0])
        if fs.move_to_new(f"{folder}/{label}{_JSON}", aside):
            moved.append((label, aside))
    return moved


def unfinished_dates(spark: SparkSession | None, output: str) -> list[str]:
    """The published dates whose files are not all as their manifests record them: a
    publication that was cut short and given up left them so, and running them again publishes
    them whole."""
    fs = file_system(spark, output)
    broken = []
    for label, record in sorted(read_manifests(spark, output)[0].items()):
        if not record.records_files:
            continue
        outputs, _ = _located(record, output)
        for entry in outputs.values():
            listed = {info.path.rsplit("/", 1)[1]: info.size for info in fs.children(entry.folder)}
            if any(listed.get(item.name) != item.bytes for item in entry.files):
                broken.append(label)
                break
    return broken


def manifests(spark: SparkSession, output: str) -> dict[str, Manifest]:
    """The readable manifests of read_manifests."""
    return read_manifests(spark, output)[0]


def published_dates(output: str, *, spark: SparkSession | None = None) -> list[dt.date]:
    """The eval dates published in `output`, oldest first."""
    return sorted(dt.date.fromisoformat(label) for label in manifests(_session(spark), output) if label != LATEST)


def choose(found: Mapping[str, Any], output: str, eval_date: dt.date | str | None) -> str:
    """The label to read: the date asked for, or the latest date (the undated report if none)."""
    dated = sorted(label for label in found if label != LATEST)
    if eval_date is None:
        if not found:
            raise ConfigError(f"no report is published in {output} (no manifest in {MANIFEST_DIR}/)")
        return dated[-1] if dated else LATEST
    label = eval_date.isoformat() if isinstance(eval_date, dt.date) else str(eval_date)
    if label not in found:
        held = ", ".join(dated[-5:]) or "none"
        raise ConfigError(f"no report is published in {output} for {label} (latest dates: {held})")
    return label


def _recorded(
    spark: SparkSession | None, output: str, eval_date: dt.date | str | None
) -> tuple[Manifest, dict[str, _Located], _Where]:
    """The manifest of the date asked for (the latest when None), and where its datasets are;
    refused when it cannot be read or names no files."""
    found, unreadable = read_manifests(spark, output)
    label = choose({**found, **unreadable}, output, eval_date)
    if label in unreadable:
        raise unreadable[label]
    record = found[label]
    if not record.records_files:
        raise ReportNotReadable(
            f"{output}'s report for {label} was published by a version that did not record its files: publish that date again"
        )
    outputs, where = _located(record, output)
    return record, outputs, where


def read_report(output: str, eval_date: dt.date | str | None = None, *, spark: SparkSession | None = None) -> Report:
    """The report published in `output` for `eval_date` (the latest date when None): its datasets,
    and its manifest's config and counts (`Report.manifest`). Raises ReportNotReadable while the
    date is being republished, rather than return datasets of two runs."""
    session = _session(spark)
    record, outputs, where = _recorded(session, output, eval_date)
    _listing(session, outputs, where)
    small = {name: _read_small(session, outputs[name], name, where) for name in _SMALL if name in outputs}
    # A plan over the checked files (Spark lists them when the plan is made and reads them when it
    # runs: confirm_unchanged tells whether they were replaced in between).
    per_query = _read(session, outputs[PER_QUERY_DIR])
    summary_rows = sorted(small[SUMMARY_DIR][0], key=lambda row: (row[c.RUN_ID], *measure_order(row)))
    comparison = small.get(COMPARISON_DIR)
    slices = small.get(SLICES_DIR)
    gate = small.get(GATE_DIR)
    evaluation = _evaluation(record, summary_rows, comparison[0] if comparison else [], slices[0] if slices else [])
    return Report(
        per_query=per_query,
        summary=small[SUMMARY_DIR][1],
        comparison=None if comparison is None else comparison[1],
        slices=None if slices is None else slices[1],
        evaluation=evaluation,
        gate=None if gate is None else gate[1],
        manifest=record.to_json(),
    )


def read_report_tables(output: str, eval_date: dt.date | str | None = None) -> Report:
    """read_report without Spark (the embedded engine's gate): the same manifest and checks of
    the recorded files, per_query and the summary read with pyarrow as Arrow tables."""
    import pyarrow.parquet as pq

    record, outputs, where = _recorded(None, output, eval_date)
    _listing_local(outputs, where)
    read = {name: pq.read_table(_paths(entry)) for name, entry in outputs.items()}
    _listing_local(outputs, where)  # what was read is what was checked: not replaced in between
    summary = sorted((Row(**row) for row in read[SUMMARY_DIR].to_pylist()), key=lambda row: (row[c.RUN_ID], *measure_order(row)))
    rows = {name: [Row(**row) for row in read[name].to_pylist()] for name in (COMPARISON_DIR, SLICES_DIR) if name in read}
    evaluation = _evaluation(record, summary, rows.get(COMPARISON_DIR, []), rows.get(SLICES_DIR, []))
    return Report(
        per_query=read[PER_QUERY_DIR],
        summary=read[SUMMARY_DIR],
        comparison=read.get(COMPARISON_DIR),
        slices=read.get(SLICES_DIR),
        evaluation=evaluation,
        gate=read.get(GATE_DIR),
        manifest=record.to_json(),
    )


def _listing_local(outputs: Mapping[str, _Located], where: _Where) -> None:
    """_listing's check, by this process's listing of the local disk."""
    fs = file_system(None, where.output)
    for name, entry in outputs.items():
        seen = {base_name(info.path): (info.size, info.modified_ms, 0) for info in fs.children(entry.folder)}
        _check(entry, seen, name, where, rows_known=False)


def gate_reference(earlier: Report, judgments: InputRecord | None = None) -> Reference:
    """An earlier report read back, as the gate's reference: named by its eval date, its
    judgments compared with this run's (`judgments`; None: unknown)."""
    record = Manifest.from_json(earlier.manifest or {}, "of the earlier report")
    earlier_judgments = record.judgments
    changed = None if earlier_judgments is None else earlier_judgments.differs(judgments)
    return Reference.earlier(record.eval_date or EARLIER, earlier.per_query, earlier.evaluation.slices, changed)


def judgments_of(report: Report) -> InputRecord | None:
    """A report's record of its judgments: from its manifest when it was read back, else None."""
    return None if report.manifest is None else Manifest.from_json(report.manifest, "of the report").judgments


EARLIER = "earlier report"  # what an earlier report is called when it has no eval date


@dataclass(frozen=True)
class _Located:
    """A dataset a manifest records, with the folder its files are read from: under the output
    as given."""

    folder: str
    files: tuple[FileRecord, ...]


@dataclass(frozen=True)
class _Where:
    """How messages name a report read back, and the output a repair would finish."""

    report: str
    output: str


def repair_command(output: str) -> str:
    """The command that finishes an output's cut-short publication or sets its bad manifests aside:
    the same words from Python or the command line."""
    return f"`ndcg-spark --output {output} --repair`"


def _located(record: Manifest, output: str) -> tuple[dict[str, _Located], _Where]:
    """The datasets a report's manifest records that are read back, each with its folder under
    `output` as given (the manifest's paths are where the run wrote them: an output copied or
    synced elsewhere is read where it is now), and how messages name the report."""
    label = record.eval_date or LATEST
    layout = OutputLayout(output, None if label == LATEST else dt.date.fromisoformat(label))
    recorded = record.outputs
    located = {
        name: _Located(layout.folder(name), recorded[name].files or ()) for name in (PER_QUERY_DIR, *_SMALL) if name in recorded
    }
    return located, _Where(f"{output}'s report for {label}", output)


def _paths(entry: _Located) -> list[str]:
    return [f"{entry.folder}/{item.name}" for item in entry.files]


def _read(spark: SparkSession, entry: _Located) -> DataFrame:
    return spark.read.parquet(*_paths(entry))


def _file_columns() -> list[Column]:
    return [
        F.col("_metadata.file_name").alias(_FILE),
        F.col("_metadata.file_size").alias(_BYTES),
        F.unix_millis(F.col("_metadata.file_modification_time")).alias(_MODIFIED),
    ]


def _replaced(where: _Where, what: str) -> ReportNotReadable:
    return ReportNotReadable(
        f"{where.report} is being published again, or that publication was cut short: {what};"
        f" read it once that run ends, or finish it with {repair_command(where.output)}"
    )


def _check(entry: _Located, seen: Mapping[str, tuple[int, int, int]], name: str, where: _Where, rows_known: bool) -> None:
    """Every recorded file is there as recorded (size, time and, when counted, rows)."""
    for item in entry.files:
        got = seen.get(item.name)
        if got is None and rows_known and item.rows == 0:
            continue  # an empty file yields no row to see it by: its listing was checked
        want = (item.bytes, item.modified_ms, item.rows if rows_known else None)
        if got is None or (got[0], got[1], got[2] if rows_known else None) != want:
            raise _replaced(where, f"{name}'s {item.name} is not the file its manifest records")


def _listing(spark: SparkSession, outputs: Mapping[str, _Located], where: _Where) -> None:
    """Every recorded file's size and time, from one listing of them all (no data read). Files
    are told apart by name: Spark's names carry the id of the write that made them."""
    paths = [path for entry in outputs.values() for path in _paths(entry)]
    try:
        listed = (
            spark.read.format("binaryFile")
            .load(paths)
            .select("path", "length", F.unix_millis(F.col("modificationTime")).alias(_MODIFIED))
            .collect()
        )
    except AnalysisException:  # a recorded file is gone
        raise _replaced(where, "a file its manifest records is gone") from None
    seen = {unquote(row["path"].rsplit("/", 1)[1]): (row["length"], row[_MODIFIED], 0) for row in listed}
    for name, entry in outputs.items():
        _check(entry, seen, name, where, rows_known=False)


def _read_small(spark: SparkSession, entry: _Located, name: str, where: _Where) -> tuple[list[Row], DataFrame]:
    """A few-rows dataset, read once and checked as read: its rows, and a frame of exactly them."""
    frame = _read(spark, entry)
    collected = frame.select(*frame.columns, *_file_columns()).collect()
    seen: dict[str, tuple[int, int, int]] = {}
    for row in collected:
        size, modified, count = seen.get(row[_FILE], (row[_BYTES], row[_MODIFIED], 0))
        seen[row[_FILE]] = (size, modified, count + 1)
    _check(entry, seen, name, where, rows_known=True)
    rows = [Row(**{column: row[column] for column in frame.columns}) for row in collected]
    return rows, local_frame(spark, [tuple(row) for row in rows], frame.schema)


def confirm_unchanged(report: Report, output: str, *, spark: SparkSession | None = None) -> None:
    """Raise ReportNotReadable if any file of a report read back has been replaced since: called
    after a computation over its per_query, it proves that what was read is what was checked (a
    replacement changes a file's time for good)."""
    outputs, where = _located(Manifest.from_json(report.manifest or {}, f"of {output}'s report"), output)
    _listing(_session(spark), outputs, where)


def _evaluation(record: Manifest, summary: list[Row], comparison: list[Row], slices: list[Row]) -> Evaluation:
    """The Evaluation a published report was computed as, from its manifest and its rows."""
    counts, judgments = record.counts, record.judgments
    names = {item.name for item in fields(ComparisonRow)}
    return Evaluation(
        summary=summary,
        runs=[RunCounts(**run) for run in counts.runs],
        judgment_rows=int((judgments.rows if judgments else 0) or 0),
        result_rows=int(counts.result_rows or 0),
        judged_queries=int(counts.judged_queries or 0),
        duplicate_judgments_dropped=int(counts.duplicate_judgments_dropped or 0),
        duplicate_results_dropped=int(counts.duplicate_results_dropped or 0),
        complete=bool(record.config.get("complete", False)),
        comparison=[ComparisonRow(**{key: value for key, value in row.asDict().items() if key in names}) for row in comparison],
        slices=sorted(slices, key=slice_order),
    )
