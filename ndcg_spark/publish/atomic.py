"""Staging a report and moving it into place so that readers never see two runs' rows mixed.

Each dataset of a date (per_query, summary, ...; with --eval-date, its eval_date=D partition) is
a folder of Parquet files written by as many tasks as its size calls for (PART_ROWS rows a file).
The new folder is written under the staging folder and its row count checked against what the job
computed (the sum of its files' footers); only then is it swapped in: the old folder is renamed
aside (into the run's staging folder, out of every reader's way, a glob's included), the new one
renamed into place, and the old one removed. Between the two renames a reader finds no folder for
that date, never a mix of two runs.
The HTML page and the table, one file each in report/ beside every other date's, replace theirs
in one rename. A rerun with an empty result replaces the date with an empty file, so no old rows
survive. That all the datasets of a date come from one run is commit.py's part.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pyspark.sql import DataFrame, SparkSession

from ndcg_spark import columns as c
from ndcg_spark.errors import NdcgSparkError
from ndcg_spark.io.layout import REPORT_DIR, OutputLayout
from ndcg_spark.io.storage import FileSystem, base_name
from ndcg_spark.publish.staging import Staging

if TYPE_CHECKING:
    import pyarrow as pa

PART_PREFIX = "part-"
PART_ROWS = 500_000  # rows a data file of a dataset holds at most (tens of MB of Parquet)
# Spark's own cap of the rows of a file, when set (> 0), takes PART_ROWS's place.
MAX_RECORDS_PER_FILE = "spark.sql.files.maxRecordsPerFile"
_MAX_RECORDS_OPTION = "maxRecordsPerFile"  # the same cap, as a write's option
_STAGED_REPORT = "report"
_REPLACED = "replaced"  # under staging: each dataset's previous folder while it is swapped out


class PublishError(NdcgSparkError):
    """The staged report is not what the job computed: nothing was published (exit 1)."""


@dataclass(frozen=True)
class Dataset:
    """A report dataset to publish: its name (folder), its rows and how many the job computed."""

    name: str
    frame: DataFrame | pa.Table | list[str]  # Spark's, or the embedded engine's rows (a text's: its lines)
    expected_rows: int
    text: bool = False  # a frame of one string column, written as lines (in the frame's order): one file
    written: bool = False  # already written to its staged folder (write_staged): only checked

    def parts(self, rows_per_part: int = PART_ROWS) -> int:
        """How many files (and tasks) write it: one per rows_per_part rows, one for text."""
        return 1 if self.text else max(1, -(-self.expected_rows // rows_per_part))


@dataclass(frozen=True)
class Published:
    name: str
    path: str
    rows: int


@dataclass(frozen=True)
class Move:
    """A staged folder (or file) and where it goes. `folder_owned`: a dataset's folder, swapped
    whole, `files` holding the rows of each of its data files by name; else one file among others
    (report/). `aside`: where the target's previous folder waits while it is swapped out."""

    name: str
    source: str
    target: str
    rows: int
    folder_owned: bool = True
    aside: str = ""
    files: dict[str, int] = field(default_factory=dict)

    @property
    def published(self) -> Published:
        return Published(self.name, self.target, self.rows)


def _parts(fs: FileSystem, folder: str) -> list[str]:
    return sorted(info.path for info in fs.children(folder) if info.path.rsplit("/", 1)[1].startswith(PART_PREFIX))


def staged_folder(staging: Staging, name: str) -> str:
    """Where a dataset is staged before it is published."""
    return staging.path(f"{_STAGED_REPORT}/{name}")


def write_staged(spark: SparkSession | None, staging: Staging, dataset: Dataset) -> str:
    """Write the dataset's folder under staging, a file per PART_ROWS rows of its expected ones
    (an estimate is enough: a task writes several files when it holds more); returns the folder.
    Without a session, the embedded engine's rows, written in this process as Spark names them."""
    folder = staged_folder(staging, dataset.name)
    if spark is None:
        _write_local(staging.fs.on_disk(folder), dataset)
        return folder
    capped = int(spark.conf.get(MAX_RECORDS_PER_FILE) or 0)
    rows_per_part = capped if capped > 0 else PART_ROWS
    assert isinstance(dataset.frame, DataFrame)
    frame = dataset.frame.coalesce(dataset.parts(rows_per_part))
    if dataset.text:
        frame.write.text(folder)
    else:
        frame.write.option(_MAX_RECORDS_OPTION, rows_per_part).parquet(folder)
    return folder


_SUCCESS = "_SUCCESS"  # Spark's marker of a whole write, which readers skip (a leading underscore)


def _write_local(folder: str, dataset: Dataset) -> None:
    """A dataset's folder as Spark's writer leaves it: part-NNNNN-<write id>-c000 files of at most
    PART_ROWS rows (Parquet with snappy; text as lines), then an empty _SUCCESS."""
    import pyarrow.parquet as pq

    os.makedirs(folder)
    write = uuid.uuid4()
    if isinstance(dataset.frame, list):
        with open(f"{folder}/{PART_PREFIX}00000-{write}-c000.txt", "w", encoding="utf-8") as stream:
            stream.writelines(f"{line}\n" for line in dataset.frame)
    else:
        table = dataset.frame
        assert not isinstance(table, DataFrame)
        for part, start in enumerate(range(0, max(table.num_rows, 1), PART_ROWS)):
            pq.write_table(table.slice(start, PART_ROWS), f"{folder}/{PART_PREFIX}{part:05d}-{write}-c000.snappy.parquet")
    open(f"{folder}/{_SUCCESS}", "wb").close()


def _text_rows(spark: SparkSession | None, folder: str, part: str) -> int:
    """A staged text's lines, read back."""
    if spark is not None:
        return spark.read.text(folder).count()
    with open(part, "rb") as stream:
        return sum(1 for _ in stream)


def stage(spark: SparkSession | None, staging: Staging, dataset: Dataset, target: str) -> Move:
    """Write the dataset's folder under staging (unless written already), check its row count
    (Parquet's from its files' footers, read by the driver; text by reading it back) and return
    the move that publishes it."""
    folder = staged_folder(staging, dataset.name) if dataset.written else write_staged(spark, staging, dataset)
    parts = _parts(staging.fs, folder)
    if not parts:
        raise PublishError(f"staged {folder} holds no data file: nothing published")
    if dataset.text:
        files = {parts[0].rsplit("/", 1)[1]: _text_rows(spark, folder, staging.fs.on_disk(parts[0]))}
    else:
        files = {part.rsplit("/", 1)[1]: staging.fs.parquet_rows(part) for part in parts}
    rows = sum(files.values())
    if rows != dataset.expected_rows:
        raise PublishError(f"staged {dataset.name} has {rows} rows, the job computed {dataset.expected_rows}: nothing published")
    return Move(dataset.name, folder, target, rows, aside=staging.path(f"{_REPLACED}/{dataset.name}"), files=files)


def stage_all(spark: SparkSession | None, staging: Staging, layout: OutputLayout, datasets: list[Dataset]) -> list[Move]:
    """Stage and check every dataset; returns the moves that publish them, in the given order."""
    return [stage(spark, staging, dataset, layout.folder(dataset.name)) for dataset in datasets]


def stage_file(staging: Staging, name: str, text: str, target: str) -> Move:
    """A report file (the HTML page, the table), staged like the datasets, for the same move
    into place; its folder (report/) holds every date's files."""
    source = staging.path(f"{_STAGED_REPORT}/{name}.{target.rsplit('.', 1)[1]}")
    staging.fs.write_text(source, text)
    return Move(name, source, target, 1, folder_owned=False)


def stage_page(staging: Staging, layout: OutputLayout, page: str) -> Move:
    """The HTML report."""
    return stage_file(staging, REPORT_DIR, page, layout.page)


def place(fs: FileSystem, move: Move) -> None:
    """Move one staged folder (or file) into place. Idempotent, so that an interrupted
    publication is finished by running its moves again: a folder already moved (its source
    gone) is not moved twice, and a previous folder left aside is removed."""
    parent = move.target.rsplit("/", 1)[0]
    fs.mkdirs(parent)
    if not move.folder_owned or not move.aside:  # a file (or a record written before folders were swapped)
        if fs.exists(move.source):
            fs.replace(move.source, move.target)
        return
    if fs.renames_are_copies:
        _place_file_by_file(fs, move)
        return
    if fs.exists(move.source):
        if fs.exists(move.target) and not fs.exists(move.aside):
            fs.mkdirs(move.aside.rsplit("/", 1)[0])
            fs.move_to_new(move.target, move.aside)
        if not fs.move_to_new(move.source, move.target) and fs.exists(move.source):
            raise OSError(f"cannot move {move.source} to {move.target}")
    if fs.exists(move.aside):
        # An undated dataset's folder also holds the dated ones (eval_date=D): they stay.
        for info in fs.children(move.aside):
            name = info.path.rsplit("/", 1)[1]
            if name.startswith(f"{c.EVAL_DATE}=") and not fs.exists(f"{move.target}/{name}"):
                fs.move_to_new(info.path, f"{move.target}/{name}")
        fs.delete(move.aside)


def _place_file_by_file(fs: FileSystem, move: Move) -> None:
    """place() where a rename is a copy of each file and then a delete (object stores): a folder
    cannot change in one step, so its files move one at a time, each in a step of its own (a
    copy, atomic per file, then the delete). The earlier run's files go aside first, then the
    staged ones come in, data files first and _SUCCESS last: a reader of the folder sees fewer
    files for a while, never files of two runs. Run again after a kill, it goes on from where
    it was: once one staged file is in place, no file of the folder is an earlier run's."""
    staged = set(move.files)
    if fs.exists(move.source):
        present = {base_name(info.path): info.path for info in fs.children(move.target)}
        if not staged & present.keys():
            for name, path in sorted(present.items()):
                # An undated dataset's folder also holds the dated ones (eval_date=D): they stay.
                if not name.startswith(f"{c.EVAL_DATE}="):
                    fs.move_file(path, f"{move.aside}/{name}")
        names = sorted((base_name(info.path) for info in fs.children(move.source)), key=lambda name: (name not in staged, name))
        for name in names:
            fs.move_file(f"{move.source}/{name}", f"{move.target}/{name}")
        fs.delete(move.source)
    if fs.exists(move.aside):
        fs.delete(move.aside)
