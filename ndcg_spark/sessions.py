"""The two kinds of SparkSession the library runs on, classic and Spark Connect, and the one place
where it treats them differently: how the Python API keeps the (run, query) rows of the one pass.

Everything else is one code path: DataFrame operations, SQL text, Observations and SQL settings
mean the same on both, and nothing on the library's path touches the JVM, an RDD or a
SparkContext."""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession

# Spark Connect's classes live in this package; a classic session's in pyspark.sql.classic.
_CONNECT_PACKAGE = "pyspark.sql.connect."

# Spark's sink that computes a plan and discards its rows: the action that fills the cache.
NOOP_FORMAT = "noop"


def is_connect(spark: SparkSession | DataFrame) -> bool:
    """Whether a session (or a frame of it) is a Spark Connect client. Told by its class, so that
    a classic-only install, without Connect's gRPC packages, never imports them."""
    return type(spark).__module__.startswith(_CONNECT_PACKAGE)


class ExecutorStore:
    """Computes a plan once, its Observations firing on the way, and keeps its rows in the
    executors for the report derived from them; `release` frees them.

    Classic: a local checkpoint, which Spark frees once the frame is garbage-collected. Spark
    Connect: a checkpoint there reports no Observations (pyspark's client does not pass them to
    its checkpoint command), and a checkpointed frame still alive when Python exits stalls the
    process (pyspark 4.3 releases it by an RPC from a finalizer). So the frame is persisted and
    computed by a write to the noop sink, a command that reports Observations: still one job
    over the data. It stays cached until `release`, or until the session ends."""

    def __init__(self) -> None:
        self._cached: list[DataFrame] = []

    def __call__(self, frame: DataFrame) -> DataFrame:
        if not is_connect(frame):
            return frame.localCheckpoint(eager=True)
        cached = frame.persist()
        self._cached.append(cached)
        cached.write.format(NOOP_FORMAT).mode("overwrite").save()
        return cached

    def release(self) -> None:
        for frame in self._cached:
            frame.unpersist()
        self._cached.clear()
