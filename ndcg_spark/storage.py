"""Folders on whatever file system the output lives on (local, HDFS, S3A, ...), through Hadoop's
FileSystem API in the driver's JVM: only names and metadata, never data."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from pyspark.sql import SparkSession

STAGING_DIR = "_staging"  # a leading underscore: Spark, pyarrow and DuckDB readers skip it


class FileSystem:
    def __init__(self, spark: SparkSession, path: str) -> None:
        jvm = spark.sparkContext._jvm
        self._path_class = jvm.org.apache.hadoop.fs.Path
        self._fs = self._path_class(path).getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())

    def _path(self, path: str):
        return self._path_class(path)

    def exists(self, path: str) -> bool:
        return bool(self._fs.exists(self._path(path)))

    def delete(self, path: str) -> None:
        self._fs.delete(self._path(path), True)

    def is_empty_dir(self, path: str) -> bool:
        return self.exists(path) and len(self._fs.listStatus(self._path(path))) == 0


@dataclass
class Staging:
    """A private folder under the output for intermediate results; removed whatever happens,
    together with the output folder itself when the job created it and left nothing in it."""

    spark: SparkSession
    output: str
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __post_init__(self) -> None:
        self.output = self.output.rstrip("/")
        self._fs = FileSystem(self.spark, self.output)
        self._output_existed = self._fs.exists(self.output)

    @property
    def root(self) -> str:
        return f"{self.output}/{STAGING_DIR}/{self.token}"

    def path(self, name: str) -> str:
        return f"{self.root}/{name}"

    def discard(self) -> None:
        self._fs.delete(self.root)
        parent = f"{self.output}/{STAGING_DIR}"
        if self._fs.is_empty_dir(parent):
            self._fs.delete(parent)
        if not self._output_existed and self._fs.is_empty_dir(self.output):
            self._fs.delete(self.output)
