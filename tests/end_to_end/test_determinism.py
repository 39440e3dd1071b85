"""The job's report is the same to the last bit however Spark splits the work: shuffle partitions,
adaptive execution on or off, inputs in one file or many."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.job.cli import main

_SETTINGS = ("spark.sql.shuffle.partitions", "spark.sql.adaptive.enabled")
# (files per input, shuffle partitions, AQE): every value of each, and every pair of values of any
# two, in 6 runs instead of the 12 of the full product (a pairwise design). 13 files and 37
# partitions split the sample's 60 queries as finely as 50 and 200 would: most partitions hold a
# query or two, some none, and every file holds rows of several queries (of 200 partitions, most
# were empty tasks).
_MANY_FILES, _MANY_PARTITIONS = 13, 37
_LAYOUTS = (
    (1, 1, True),
    (1, 7, False),
    (1, _MANY_PARTITIONS, True),
    (_MANY_FILES, 1, False),
    (_MANY_FILES, 7, True),
    (_MANY_FILES, _MANY_PARTITIONS, False),
)


def _make_sample():
    path = Path(__file__).resolve().parents[2] / "scripts" / "make_sample.py"
    spec = importlib.util.spec_from_file_location("make_sample", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[str, str]]:
    """The demo's generator (ties, unjudged and missing queries, three runs), written as one
    file per input and as _MANY_FILES files per input."""
    judgments, results = _make_sample().generate(queries=60, depth=30, seed=3)
    root = tmp_path_factory.mktemp("sample")
    layouts = {}
    for files in (1, _MANY_FILES):
        paths = []
        for name, table in (("judgments", judgments), ("results", results)):
            folder = root / f"{files}" / name
            folder.mkdir(parents=True)
            size = -(-table.num_rows // files)
            for part in range(files):
                pq.write_table(table.slice(part * size, size), folder / f"part-{part:03d}.parquet")
            paths.append(str(folder))
        layouts[files] = (paths[0], paths[1])
    return layouts


@pytest.fixture()
def restore_settings(spark: SparkSession) -> Iterator[None]:
    previous = {key: spark.conf.get(key) for key in _SETTINGS}
    yield
    for key, value in previous.items():
        spark.conf.set(key, value)


def _report(spark: SparkSession, paths: tuple[str, str], out: Path, partitions: int, aqe: bool) -> tuple:
    config = out.parent / f"{out.name}.toml"
    config.write_text(
        "[evaluation]\nk = [1, 5, 10]\ncomplete = true\n"
        f'[spark]\n"spark.sql.shuffle.partitions" = "{partitions}"\n'
        f'"spark.sql.adaptive.enabled" = "{str(aqe).lower()}"\n'
    )
    code = main(
        ["--judgments", paths[0], "--results", paths[1], "--output", str(out), "--config", str(config), "--no-html-report"]
    )
    assert code == EXIT_OK
    return tuple(
        sorted(
            (tuple(row) for row in spark.read.parquet(str(out / name)).collect()),
            key=lambda row: tuple("" if v is None else str(v) for v in row),
        )
        for name in ("per_query", "summary")
    )


def test_report_is_identical_whatever_the_split(
    spark: SparkSession, sample: dict[int, tuple[str, str]], tmp_path: Path, restore_settings: None
) -> None:
    reports = {}
    for files, partitions, aqe in _LAYOUTS:
        out = tmp_path / f"f{files}-p{partitions}-aqe{aqe}"
        reports[(files, partitions, aqe)] = _report(spark, sample[files], out, partitions, aqe)
    first = next(iter(reports.values()))
    assert len(first[0]) > 500 and len(first[1]) == 3 * 4  # runs x (k = 1, 5, 10, uncut)
    # Compared exactly: every float to the last bit, not within a tolerance.
    different = [key for key, report in reports.items() if report != first]
    assert not different
