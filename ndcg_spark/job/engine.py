"""Which engine runs the job: --engine local or spark as given, or auto's choice. auto picks local
(the embedded engine, in this process, no JVM) when every path is local and the inputs fit in
memory with room to spare, else Spark; the choice is logged with its reason (docs/engines.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ndcg_spark.errors import ConfigError
from ndcg_spark.io.local_paths import local_path
from ndcg_spark.job.session import asks_for_connect
from ndcg_spark.job.settings import FORMAT_TREC, JobConfig
from ndcg_spark.options import ENGINE_AUTO, ENGINE_LOCAL, ENGINE_SPARK, Engine
from ndcg_spark.progress import SPARK_SUBMIT_GATEWAY

# The embedded engine's peak memory per input row (judgments and results), measured on the whole
# job (scripts/bench.py, its job_local): 13M input rows (10M results, 3M judgments) peaked at
# 2.54 GB, 195 bytes a row; 1.3M at 0.43 GB, 330 with the process's fixed start. With margin:
BYTES_PER_ROW = 300
# auto runs local while the inputs' estimated peak is at most this share of the memory available.
MEMORY_SHARE = 0.5
# A trec_eval text line holds at least this many bytes ("q d 1\n" and more), so a text file's size
# over it bounds its rows from above; gzip shrinks such text about this many times at most.
_MIN_LINE_BYTES = 12
_GZIP_RATIO = 8
_GZIP_MAGIC = b"\x1f\x8b"
_UNKNOWN_MEMORY = 4 << 30  # when this system does not say (no /proc/meminfo)
_GB = 1 << 30

ENGINE_KEY = "--engine (config file: [evaluation] engine)"


@dataclass(frozen=True)
class EngineChoice:
    engine: Engine
    reason: str


def _paths(config: JobConfig) -> list[tuple[str, str]]:
    paths = [("judgments", config.judgments), *(("results", path) for _, path in config.result_paths)]
    if config.query_metadata is not None:
        paths.append(("query_metadata", config.query_metadata))
    return paths


def _not_local(config: JobConfig) -> str | None:
    """The first path the embedded engine cannot read (another scheme, a glob), named."""
    for label, path in [*_paths(config), ("output", config.output)]:
        if local_path(path) is None:
            return f"{label} {path} is not a local path"
    return None


def _files(path: str) -> list[str]:
    if os.path.isfile(path):
        return [path]
    found = []
    for root, folders, names in os.walk(path):
        folders[:] = [name for name in folders if not name.startswith((".", "_"))]
        found += [os.path.join(root, name) for name in names if not name.startswith((".", "_"))]
    return found


def _rows(path: str, trec: bool) -> int:
    """An input's rows: Parquet's from its footers; a text's bounded from its size."""
    import pyarrow.parquet as pq

    total = 0
    for file in _files(path):
        try:
            total += _text_rows(file) if trec else pq.ParquetFile(file).metadata.num_rows
        except (OSError, ValueError):  # not Parquet after all: its reader refuses it, in words
            total += _text_rows(file)
    return total


def _text_rows(file: str) -> int:
    """A text file's rows at most, from its size."""
    with open(file, "rb") as stream:
        zipped = stream.read(2) == _GZIP_MAGIC
    return os.path.getsize(file) * (_GZIP_RATIO if zipped else 1) // _MIN_LINE_BYTES


def input_rows(config: JobConfig) -> int:
    """The inputs' rows, judgments and results (local paths)."""
    rows = _rows(local_path(config.judgments) or config.judgments, config.judgments_format == FORMAT_TREC)
    for _, path in config.result_paths:
        rows += _rows(local_path(path) or path, config.results_format == FORMAT_TREC)
    return rows


def available_memory() -> int:
    """Memory available to a new process now (Linux's MemAvailable), in bytes."""
    try:
        with open("/proc/meminfo", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return _UNKNOWN_MEMORY


def choose_engine(config: JobConfig) -> EngineChoice:
    """The engine of this run, and why."""
    asked = config.options.engine
    if asked == ENGINE_SPARK:
        return EngineChoice(ENGINE_SPARK, "--engine spark")
    if asked == ENGINE_LOCAL:
        problem = _not_local(config)
        if problem is not None:
            raise ConfigError(f"--engine local reads and writes local paths only: {problem}; pass --engine spark or auto")
        return EngineChoice(ENGINE_LOCAL, "--engine local")
    assert asked == ENGINE_AUTO
    if SPARK_SUBMIT_GATEWAY in os.environ:
        return EngineChoice(ENGINE_SPARK, "auto: run by spark-submit")
    if asks_for_connect(config):
        return EngineChoice(ENGINE_SPARK, "auto: a Spark Connect session is asked for")
    problem = _not_local(config)
    if problem is not None:
        return EngineChoice(ENGINE_SPARK, f"auto: {problem}")
    rows = input_rows(config)
    need, free = rows * BYTES_PER_ROW, available_memory()
    sized = f"{rows:,} input rows need about {need / _GB:.1f} GB, {free / _GB:.1f} GB available"
    if need > free * MEMORY_SHARE:
        return EngineChoice(ENGINE_SPARK, f"auto: {sized}, more than {MEMORY_SHARE:.0%} of it")
    return EngineChoice(ENGINE_LOCAL, f"auto: every path is local and {sized}")
