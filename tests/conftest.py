"""Shared fixtures and helpers of every tier.

Tiers, one folder each: unit/ (pure Python), transforms/ (Spark on tiny frames), end_to_end/ (the
job's main() in this process), system/ (extra JVMs, spark-submit, kills, a browser: marked slow).
`scripts/test.sh --quick` runs the first two."""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import StructType

from ndcg_spark.api import evaluate
from ndcg_spark.job.cli import main
from ndcg_spark.job.session import BASE_CONF
from ndcg_spark.progress import LOGGER

ROOT = Path(__file__).resolve().parents[1]
# How long a test waits for a process or an event before calling it hung. A bound, never a
# measure: no outcome depends on how soon anything happens, so it is far above any run's time,
# on a machine running a 10M-row benchmark beside the suite too.
HANG_SECONDS = 1800

# The JVMs the system tests start live for seconds: with the C1 compiler alone and the serial
# collector, a job on tiny inputs runs about 15% faster (whole-process medians, 25.8 s against
# 30.5 s). The test session's own JVM lives for minutes and keeps the defaults (C1 alone made the
# quick tiers 8% slower).
SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
# A test session plans the job's queries a hundred times over, with small differences: Spark's
# cache of compiled generated code (100 classes by default) kept them from one run to the next
# only in part. The code is the same whatever the cache keeps; the end-to-end tier ran 12% faster
# with room for all of it (215 s against 245 s, 357 CPU seconds against 398).
CODEGEN_CACHE = {"spark.sql.codegen.cache.maxEntries": "2000"}
# The test session's JVM spent about half its CPU in the C2 compiler (77 of 170 CPU seconds on two
# end-to-end files), optimizing Spark's generated classes that a few tests each use and drop. With
# C2 kept for methods ten times hotter than its default thresholds, those files took 175 CPU
# seconds against 206, in the same time; thirty times hotter was slower.
TEST_SESSION_JVM = (
    "-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000"
    " -XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=400000"
)


def job_env(*, pythonpath: bool = False, **extra: str) -> dict[str, str]:
    """The environment of a job a test starts as a process: this Python for the driver and the
    executors, the short-lived JVM options for spark-submit's JVM (SPARK_SUBMIT_OPTS), and this
    checkout on PYTHONPATH when asked (without it: as installed)."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable, **extra}
    env["SPARK_SUBMIT_OPTS"] = f"{os.environ.get('SPARK_SUBMIT_OPTS', '')} {SHORT_LIVED_JVM}".strip()
    if pythonpath:
        env["PYTHONPATH"] = str(ROOT)
    else:
        env.pop("PYTHONPATH", None)
    return env


# A tiny evaluation: three judged queries, two runs; q3 is judged only, q9 retrieved only.
JUDGMENTS = {
    "query_id": ["q1", "q1", "q1", "q2", "q2", "q3"],
    "doc_id": ["a", "b", "c", "a", "d", "x"],
    "relevance": [2, 1, 0, 1, 3, 1],
}
RESULTS = {
    "run_id": ["r1", "r1", "r1", "r1", "r1", "r2", "r2", "r2", "r2"],
    "query_id": ["q1", "q1", "q1", "q2", "q9", "q1", "q1", "q2", "q2"],
    "doc_id": ["a", "b", "z", "d", "a", "b", "a", "a", "d"],
    "score": [3.0, 2.0, 1.0, 1.0, 5.0, 3.0, 2.0, 2.0, 1.0],
}


# The order in which the files run: the tiers that take longest first, and in a tier the files
# of one or two tests that still take 20 s to a minute or more (a cluster, six runs of the job,
# models trained in a CrossValidator), then the files with more tests.
TIER_ORDER = ("system", "end_to_end", "transforms", "unit")
LONG_FILES = ("test_lost_worker.py", "test_connect.py", "test_determinism.py", "test_evaluator.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files in the order above (each file's tests keep their order). pytest-xdist hands whole
    files to its workers in this order (scripts/test.sh passes --no-loadscope-reorder): xdist's
    own order, by number of tests alone, left the system tier's one-test files for the end, one
    worker busy and one idle. With pytest-randomly shuffling (`-p randomly`), its order stands,
    files and tests: a run in another order shows that no test depends on one before it."""
    if config.pluginmanager.hasplugin("randomly") and config.getoption("randomly_reorganize", default=False):
        return
    counts = Counter(item.path for item in items)

    def rank(item: pytest.Item) -> tuple[int, bool, int, str]:
        tier = item.path.parent.name
        return (
            TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER),
            item.path.name not in LONG_FILES,
            -counts[item.path],
            str(item.path),
        )

    items.sort(key=rank)


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("ndcg-spark-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "2g")
        .config(map=CODEGEN_CACHE)
        .config("spark.driver.extraJavaOptions", TEST_SESSION_JVM)
        .config("spark.sql.ansi.enabled", "true")
    )
    for key, value in BASE_CONF.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _default(session: SparkSession, key: str) -> str | None:
    try:
        return session.conf.get(key)
    except Exception:  # noqa: BLE001 - no default: py4j's or Connect's error, whichever session
        return None


@pytest.fixture(autouse=True)
def _settings_kept(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test that touches the session leaves its settings as it found them: one that does
    not fails, naming the settings (they are put back, so that the tests after it are not run
    on them). main() builds its session with getOrCreate: the end-to-end and system tiers start
    this session first, so that a worker's first main() does not make the job's own (the default
    200 shuffle partitions, the UI) for every test after it."""
    if "spark" not in request.fixturenames and request.node.path.parent.name not in ("end_to_end", "system"):
        yield
        return
    session: SparkSession = request.getfixturevalue("spark")
    before = session.conf.getAll
    yield
    after = session.conf.getAll
    changed = []
    for key in sorted(before.keys() | after.keys()):
        # The settings a test can change: not the static ones a job's builder writes as it finds
        # the session (its app name), which no test reads.
        if before.get(key) == after.get(key) or not session.conf.isModifiable(key):
            continue
        if key in before:
            session.conf.set(key, before[key])
            changed.append(key)
            continue
        session.conf.unset(key)  # set by the test: a leak unless it is the value Spark gives anyway
        if _default(session, key) != after[key]:
            changed.append(key)
    if changed:
        shown = ", ".join(f"{key} {before.get(key)} -> {after.get(key)}" for key in changed)
        pytest.fail(f"left Spark settings changed: {shown}")


# The engine the job's `auto` runs in this process's tests: by default auto's own choice (local on
# their tiny inputs); NDCG_TEST_ENGINE=spark runs every job of the end-to-end tier on Spark instead
# (scripts/test.sh --spark-job: CI runs that tier both ways). A test that names --engine keeps it.
TEST_ENGINE = os.environ.get("NDCG_TEST_ENGINE", "")


@pytest.fixture(autouse=True)
def _job_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    if not TEST_ENGINE:
        return
    from ndcg_spark.job import run as job_run
    from ndcg_spark.job.engine import EngineChoice, choose_engine
    from ndcg_spark.options import ENGINE_AUTO

    def chosen(config: Any) -> EngineChoice:
        if config.options.engine != ENGINE_AUTO:
            return choose_engine(config)
        return EngineChoice(TEST_ENGINE, f"NDCG_TEST_ENGINE={TEST_ENGINE}")  # type: ignore[arg-type]

    monkeypatch.setattr(job_run, "choose_engine", chosen)


def job_engine() -> str:
    """The engine the job tests' `auto` runs on (see TEST_ENGINE)."""
    return TEST_ENGINE or "local"


@pytest.fixture(autouse=True)
def _logging_kept() -> Iterator[None]:
    """Every test leaves the package's logger as it found it (its handlers, level and whether its
    records reach the root logger, where caplog sees them): one that does not fails, and the
    logger is put back, so that no test's log assertions depend on the tests before it."""
    logger = logging.getLogger(LOGGER)
    before = (list(logger.handlers), logger.level, logger.propagate)
    yield
    after = (list(logger.handlers), logger.level, logger.propagate)
    if after != before:
        logger.handlers[:], logger.level, logger.propagate = before[0], before[1], before[2]
        pytest.fail(f"left the {LOGGER} logger changed: (handlers, level, propagate) {before} -> {after}")


@pytest.fixture(scope="session")
def conformance_dir() -> str:
    path = ROOT.parent / "shared" / "conformance" / "trec_eval"
    found = os.path.normpath(os.environ.get("NDCG_CONFORMANCE_DIR", str(path)))
    if not os.path.isdir(found):
        pytest.fail(f"conformance data not found at {found} (set NDCG_CONFORMANCE_DIR)")
    return found


def rows_frame(spark: SparkSession, rows: Iterable[tuple], ddl: str) -> DataFrame:
    """A DataFrame of these rows with the DDL's schema, handed to Spark as an Arrow table. A Python
    list given to createDataFrame becomes an RDD of pickled rows, and every action on it starts
    Python worker tasks; Arrow data is decoded in the JVM (the transforms tier ran 6% faster,
    medians of 3 runs each, in turn). Its size is known, so joins on it are broadcast: a test of
    the plan builds its frames from Python rows, whose size is unknown, like a big input's."""
    schema = StructType.fromDDL(ddl)
    assert isinstance(schema, StructType), ddl
    held = list(rows)
    arrow = to_arrow_schema(schema)
    columns = [pa.array([row[i] for row in held], type=field.type) for i, field in enumerate(arrow)]
    return spark.createDataFrame(pa.Table.from_arrays(columns, schema=arrow), schema)


def scored_per_query(results: DataFrame, judgments: DataFrame, **options: Any) -> DataFrame:
    """The per-query rows of the real evaluation (its checks, its one pass) of these frames, with
    evaluate()'s keywords: what the transforms tier tests the scoring through."""
    return evaluate(judgments, results, **options).per_query


def write(path: Path, columns: dict, schema: pa.Schema | None = None) -> str:
    """A Parquet file of the given columns (folders made as needed); returns its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns, schema=schema), path)
    return str(path)


@pytest.fixture()
def inputs(tmp_path: Path) -> tuple[str, str]:
    """(judgments, results) folders holding JUDGMENTS and RESULTS."""
    return (
        write(tmp_path / "judgments" / "part-0.parquet", JUDGMENTS),
        write(tmp_path / "results" / "part-0.parquet", RESULTS),
    )


def run_job(judgments: str, results: str, output: str | Path, *extra: str, html: bool = False) -> int:
    """main() on the two inputs; the HTML page (seconds of rendering) only when under test."""
    page = [] if html else ["--no-html-report"]
    return main(["--judgments", judgments, "--results", results, "--output", str(output), *page, *extra])


def error_lines(err: str) -> list[str]:
    """stderr without the step logs (JSON lines when not on a terminal): what a person reads."""
    return [line for line in err.strip().splitlines() if not line.startswith('{"time"')]


def parquet_rows(folder: Path) -> list[tuple]:
    """Every row of a Parquet file or folder as a tuple, in one fixed order: two reports compared
    exactly, whatever their files' order."""
    return sorted((tuple(row.values()) for row in pq.read_table(folder).to_pylist()), key=repr)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under folder with the hash of its bytes."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
