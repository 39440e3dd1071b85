"""Publishing a report so that readers never see half of one.

Each dataset (per_query, summary; with --eval-date, each date of each) is one Parquet file with a
fixed name. The new file is written under the staging folder, its row count checked against what
the job computed, and only then moved onto the old file in one step (see FileSystem.replace): a
reader lists either the complete previous report or the complete new one, and a run killed at any
point leaves the previous report as it was. A rerun with an empty result replaces the date with an
empty file, so no old rows survive.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession

from ndcg_spark import columns as c
from ndcg_spark.errors import NdcgSparkError
from ndcg_spark.io.layout import REPORT_DIR, OutputLayout
from ndcg_spark.io.storage import FileSystem, Staging

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
        raise PublishError(
            f"staged {dataset.name} has {rows} rows, the job computed {dataset.expected_rows}:"
            " nothing published"
        )
    return part


def publish(spark: SparkSession, staging: Staging, layout: OutputLayout, datasets: list[Dataset]) -> list[Published]:
    """Stage and check every dataset first, then move each into place, in the given order."""
    staged = [(dataset, stage(spark, staging, dataset)) for dataset in datasets]
    published = []
    for dataset, part in staged:
        target = layout.folder(dataset.name)
        staging.fs.mkdirs(target)
        staging.fs.replace(part, f"{target}/{dataset.part_file}")
        # Files of another layout (Spark's own part files, _SUCCESS) would add rows: remove them.
        # Other dates' folders stay (a run without --eval-date beside dated ones).
        for info in staging.fs.children(target):
            name = info.path.rsplit("/", 1)[1]
            if name != dataset.part_file and not name.startswith(f"{c.EVAL_DATE}="):
                staging.fs.delete(info.path)
        published.append(Published(dataset.name, target, dataset.expected_rows))
    return published


def publish_page(staging: Staging, layout: OutputLayout, page: str) -> Published:
    """The HTML report: written beside its target under a hidden name, then moved onto it."""
    path = layout.page
    staging.fs.mkdirs(path.rsplit("/", 1)[0])
    staging.fs.write_text(path, page)
    return Published(REPORT_DIR, path, 1)
