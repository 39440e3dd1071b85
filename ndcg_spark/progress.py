"""Progress for people and for machines: on a terminal, Spark's console progress bar and one
readable line per step of the job; elsewhere (a scheduler's log), no progress bar and one JSON
object per line, the same steps with the same counts. tests/system/test_spark_submit.py runs
the job both ways: under a pseudo-terminal (`script -qec`), text lines; piped, JSON lines only."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Literal, cast, get_args

LogFormat = Literal["auto", "text", "json"]
LOG_AUTO: LogFormat = "auto"
LOG_TEXT: LogFormat = "text"
LOG_JSON: LogFormat = "json"
LOG_FORMATS: tuple[LogFormat, ...] = get_args(LogFormat)

LOGGER = "ndcg_spark"
_FIELDS = "fields"


# Set by spark-submit for the Python driver it starts: that process's output is piped through
# the JVM, so only the JVM can tell whether a person is watching.
SPARK_SUBMIT_GATEWAY = "PYSPARK_GATEWAY_PORT"  # set by spark-submit for the Python driver it starts


def on_terminal(stream: IO[str]) -> bool:
    """The stream is a terminal, or (under spark-submit) the JVM that prints it has one."""
    if stream.isatty():
        return True
    if SPARK_SUBMIT_GATEWAY not in os.environ:
        return False
    from pyspark import SparkContext

    SparkContext._ensure_initialized()  # connects to spark-submit's JVM; starts no SparkContext
    jvm: Any = SparkContext._jvm
    return jvm.java.lang.System.console() is not None


class _JvmStderr(io.TextIOBase):
    """The JVM's System.err, written through spark-submit's gateway."""

    def __init__(self, system_err: Any) -> None:
        self._err = system_err

    def write(self, text: str) -> int:
        self._err.print(text)
        self._err.flush()
        return len(text)

    def isatty(self) -> bool:
        return False


def driver_stderr() -> IO[str]:
    """Where the job's logs and refusals go: stderr. Under spark-submit, whose PythonRunner merges
    the Python driver's stderr into the JVM's stdout, that is the JVM's own stderr (where Spark's
    logs go too), so that stdout holds the tables alone and `> table.txt` captures them."""
    if SPARK_SUBMIT_GATEWAY not in os.environ:
        return sys.stderr
    from pyspark import SparkContext

    try:
        SparkContext._ensure_initialized()  # connects to spark-submit's JVM; starts no SparkContext
        jvm: Any = SparkContext._jvm
        return cast(IO[str], _JvmStderr(jvm.java.lang.System.err))
    except Exception:  # noqa: BLE001 - no gateway to reach (a Connect driver): the process's own
        return sys.stderr


def resolve(log_format: str, stream: IO[str]) -> str:
    """auto: text when a person watches the output, JSON otherwise."""
    if log_format != LOG_AUTO:
        return log_format
    return LOG_TEXT if on_terminal(stream) else LOG_JSON


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, tz=dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, _FIELDS, {}))
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = dt.datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        return f"{stamp} ndcg-spark: {record.getMessage()}"


def configure(log_format: str, stream: IO[str] | None = None) -> str:
    """Set up the job's logger (INFO, one handler); returns the format in force."""
    stream = stream if stream is not None else sys.stderr
    chosen = resolve(log_format, stream)
    logger = logging.getLogger(LOGGER)
    logger.handlers.clear()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter() if chosen == LOG_JSON else TextFormatter())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return chosen


@contextmanager
def configured(log_format: str, stream: IO[str] | None = None) -> Iterator[str]:
    """configure() for a block, the logger put back as it was found afterwards: main() called in
    a process that goes on (a test, a notebook) leaves no handler behind, and records reach the
    root logger again."""
    logger = logging.getLogger(LOGGER)
    handlers, level, propagate = list(logger.handlers), logger.level, logger.propagate
    try:
        yield configure(log_format, stream)
    finally:
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate


def _readable(fields: dict[str, Any]) -> str:
    parts = []
    for key, value in fields.items():
        shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)
        parts.append(f"{key.replace('_', ' ')} {shown}")
    return ", ".join(parts)


def log_step(name: str, seconds: float, **fields: Any) -> None:
    """One line for a finished step: its name, how long it took, and its counts."""
    entry = {"step": name, "seconds": round(seconds, 2), **fields}
    detail = _readable(fields)
    logging.getLogger(LOGGER).info(f"{name} done in {seconds:.1f} s" + (f": {detail}" if detail else ""), extra={_FIELDS: entry})


@contextmanager
def step(name: str) -> Iterator[dict[str, Any]]:
    """Times a step; the caller fills the yielded dict with the counts to log."""
    fields: dict[str, Any] = {}
    started = time.monotonic()
    yield fields
    log_step(name, time.monotonic() - started, **fields)
