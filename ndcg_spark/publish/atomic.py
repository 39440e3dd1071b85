"""Staging a report and moving it into place so that readers never see half of a dataset.

Each dataset (per_query, summary; with --eval-date, each date of each) is one Parquet file with a
fixed name. The new file is written under the staging folder, its row count checked against what
the job computed, and only then moved onto the old file in one step (see FileSystem.replace): a
reader lists either the complete previous file or the complete new one. A rerun with an empty
result replaces the date with an empty file, so no old rows survive. That all the datasets of a
date come from one run is commit.py's part.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession

from ndcg_spark import columns as c
from ndcg_spark.errors import NdcgSparkError
from ndcg_spark.io.layout import REPORT_DIR, OutputLayout
from ndcg_spark.io.storage import FileSystem
from ndcg_spark.publish.staging import Staging

PART_FILE = "part-00000.parquet"
TEXT_PART_FILE = "part-00000.txt"
_STAGED_REPORT = "report"


class PublishError(NdcgSparkError):
    """The staged report is not what the job computed: nothing was published (exit 1)."""


@dataclass(frozen=True)
class Dataset:
    """A report dataset to publish: its name (folder), its rows and how many the job computed."""

    name: str
    frame: DataFrame
    expected_rows: int
    text: bool = False  # a frame of one string column, written as lines (in the frame's order)

    @property
    def part_file(self) -> str:
        return TEXT_PART_FILE if self.text else PART_FILE


@dataclass(frozen=True)
class Published:
    name: str
    path: str
    rows: int


@dataclass(frozen=True)
class Move:
    """A staged file and where it goes. `folder_owned`: the target's folder holds this dataset's
    file alone (other files in it are removed), unlike report/, which holds every date's page."""

    name: str
    source: str
    target: str
    rows: int
    folder_owned: bool = True

    @property
    def published(self) -> Published:
        """What the manifest lists: a dataset's folder, or the page's file."""
        return Published(self.name, self.target.rsplit("/", 1)[0] if self.folder_owned else self.target, self.rows)


def _single_part(fs: FileSystem, folder: str) -> str:
    parts = [info.path for info in fs.children(folder) if info.path.rsplit("/", 1)[1].startswith("part-")]
    if len(parts) != 1:
        raise PublishError(f"staged {folder} holds {len(parts)} data files, expected 1: nothing published")
    return parts[0]


def stage(spark: SparkSession, staging: Staging, dataset: Dataset) -> str:
    """Write the dataset as one file under staging, check its row count (a Parquet file's from
    its footer, read by the driver; text by reading it back) and return that file."""
    folder = staging.path(f"{_STAGED_REPORT}/{dataset.name}")
    writer = dataset.frame.coalesce(1).write
    writer.text(folder) if dataset.text else writer.parquet(folder)
    part = _single_part(staging.fs, folder)
    rows = spark.read.text(folder).count() if dataset.text else staging.fs.parquet_rows(part)
    if rows != dataset.expected_rows:
        raise PublishError(f"staged {dataset.name} has {rows} rows, the job computed {dataset.expected_rows}: nothing published")
    return part


def stage_all(spark: SparkSession, staging: Staging, layout: OutputLayout, datasets: list[Dataset]) -> list[Move]:
    """Stage and check every dataset; returns the moves that publish them, in the given order."""
    return [
        Move(
            dataset.name,
            stage(spark, staging, dataset),
            f"{layout.folder(dataset.name)}/{dataset.part_file}",
            dataset.expected_rows,
        )
        for dataset in datasets
    ]


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
    """Move one staged file onto its target. Idempotent: a move already made (its source gone)
    is skipped, so an interrupted publication can be finished by running its moves again."""
    folder = move.target.rsplit("/", 1)[0]
    fs.mkdirs(folder)
    if fs.exists(move.source):
        fs.replace(move.source, move.target)
    if not move.folder_owned:
        return
    # Files of another layout (Spark's own part files, _SUCCESS) would add rows: remove them.
    # Other dates' folders stay (a run without --eval-date beside dated ones).
    kept = move.target.rsplit("/", 1)[1]
    for info in fs.children(folder):
        name = info.path.rsplit("/", 1)[1]
        if name != kept and not name.startswith(f"{c.EVAL_DATE}="):
            fs.delete(info.path)
