"""Folders and files on whatever file system the output lives on (local, HDFS, S3A, ...), through
Hadoop's FileSystem API in the driver's JVM: only names and metadata, never data."""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from pyspark.sql import SparkSession

_LOCAL_SCHEMES = ("file",)


@dataclass(frozen=True)
class FileInfo:
    path: str
    modified_ms: int
    size: int


def _info(status: Any) -> FileInfo:
    """A Hadoop FileStatus as a FileInfo."""
    return FileInfo(str(status.getPath().toString()), int(status.getModificationTime()), int(status.getLen()))


class FileSystem:
    def __init__(self, spark: SparkSession, path: str) -> None:
        self._jvm: Any = spark.sparkContext._jvm
        self._gateway: Any = spark.sparkContext._gateway
        self._conf = spark.sparkContext._jsc.hadoopConfiguration()
        self._fs = self._path(path).getFileSystem(self._conf)

    def _path(self, path: str) -> Any:
        return self._jvm.org.apache.hadoop.fs.Path(path)

    def exists(self, path: str) -> bool:
        return bool(self._fs.exists(self._path(path)))

    def delete(self, path: str) -> None:
        self._fs.delete(self._path(path), True)

    def mkdirs(self, path: str) -> None:
        self._fs.mkdirs(self._path(path))

    def unwritable_folder(self, path: str) -> str | None:
        """Why no folder can be written at path (it is a file, it is under one, or, on a local
        disk, its nearest existing folder is not writable), or None. Asked before any input is
        read: the error would otherwise come at publication, as a JVM stack trace."""
        target = self._fs.makeQualified(self._path(path))  # a relative path walks up to the working folder
        probe = target
        while probe is not None and not self._fs.exists(probe):
            probe = probe.getParent()
        if probe is None:
            return None
        shown = self._local(str(probe.toString())) if self._scheme == "file" else str(probe.toString())
        if self._fs.getFileStatus(probe).isFile():
            return "is a file, not a folder" if probe.equals(target) else f"is under {shown}, a file"
        if self._scheme == "file" and not os.access(shown, os.W_OK | os.X_OK):
            where = "" if probe.equals(target) else f" ({shown}, where it would be made)"
            return f"cannot be written by this user{where}"
        return None

    def is_empty_dir(self, path: str) -> bool:
        return self.exists(path) and len(self._fs.listStatus(self._path(path))) == 0

    def children(self, path: str) -> list[FileInfo]:
        if not self.exists(path):
            return []
        return [_info(status) for status in self._fs.listStatus(self._path(path))]

    def files(self, path: str) -> list[FileInfo]:
        """Every file under path, recursively."""
        found, listing = [], self._fs.listFiles(self._path(path), True)
        while listing.hasNext():
            status = listing.next()
            found.append(_info(status))
        return found

    def create_exclusive(self, path: str, text: str) -> bool:
        """Create a small file only if none is there, in one step; False when one is. Atomic on
        local disks (O_EXCL) and on HDFS (create without overwrite); object stores have no such
        step, so there two runs could both believe they created it."""
        if self._scheme in _LOCAL_SCHEMES:
            local = self._local(path)
            os.makedirs(os.path.dirname(local), exist_ok=True)
            try:
                handle = os.open(local, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                return False
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            return True
        try:
            stream = self._fs.create(self._path(path), False)
        except Exception as error:  # noqa: BLE001 - py4j wraps FileAlreadyExistsException
            if self.exists(path):
                return False
            raise OSError(f"cannot create {path}: {error}") from None
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()
        return True

    def read_text(self, path: str) -> str | None:
        """A small file's text, or None when it is not there."""
        if self._scheme in _LOCAL_SCHEMES:
            try:
                with open(self._local(path), encoding="utf-8") as stream:
                    return stream.read()
            except FileNotFoundError:
                return None
        if not self.exists(path):
            return None
        stream = self._fs.open(self._path(path))
        try:
            reader = self._jvm.java.io.BufferedReader(self._jvm.java.io.InputStreamReader(stream, "UTF-8"))
            lines = []
            line = reader.readLine()
            while line is not None:
                lines.append(str(line))
                line = reader.readLine()
            return "\n".join(lines)
        finally:
            stream.close()

    def info(self, path: str) -> FileInfo:
        """A file's size and modification time, as a reader's listing shows them."""
        status = self._fs.getFileStatus(self._path(path))
        return _info(status)

    def modified_ms(self, path: str) -> int | None:
        if not self.exists(path):
            return None
        return int(self._fs.getFileStatus(self._path(path)).getModificationTime())

    def read_json(self, path: str) -> dict[str, Any] | None:
        text = self.read_text(path)
        return None if text is None else json.loads(text)

    def move_to_new(self, source: str, target: str) -> bool:
        """Rename source to a name nobody else uses, in one step: False when source is gone
        (another process moved it first)."""
        if self._scheme in _LOCAL_SCHEMES:
            try:
                os.rename(self._local(source), self._local(target))
            except FileNotFoundError:
                return False
            return True
        return bool(self._fs.rename(self._path(source), self._path(target)))

    @property
    def _scheme(self) -> str:
        return str(self._fs.getUri().getScheme() or "file")

    def _local(self, path: str) -> str:
        return urlparse(path).path if "://" in path or path.startswith("file:") else path

    def parquet_rows(self, path: str) -> int:
        """The row count in a Parquet file's footer: read by the driver, no Spark job."""
        parquet = self._jvm.org.apache.parquet.hadoop
        reader = parquet.ParquetFileReader.open(parquet.util.HadoopInputFile.fromPath(self._path(path), self._conf))
        try:
            return int(reader.getRecordCount())
        finally:
            reader.close()

    def write_text(self, path: str, text: str) -> None:
        """Write a small file atomically: a hidden temporary next to it, then replace."""
        temporary = f"{path.rsplit('/', 1)[0]}/.{uuid.uuid4().hex}.tmp"
        stream = self._fs.create(self._path(temporary), True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()
        self.replace(temporary, path)

    def _raw(self):
        try:
            return self._fs.getRawFileSystem()
        except Exception:  # noqa: BLE001 - already a raw file system (py4j's error type varies)
            return self._fs

    def replace(self, source: str, target: str) -> None:
        """Move a file onto target, replacing any file there in one step: readers see the old
        file or the new one, never neither (rename(2) locally; HDFS's rename with OVERWRITE).
        Object stores have no such step: there the replacement is a copy, not atomic."""
        if self._scheme in _LOCAL_SCHEMES:
            # The raw file system: the checksummed one moves .crc files beside the data in a
            # second step; a stale one would fail readers, so neither side keeps one.
            for stale in (_checksum(source), _checksum(target)):
                self._fs.delete(self._path(stale), False)
            if not self._raw().rename(self._path(source), self._path(target)):
                raise OSError(f"cannot move {source} to {target}")
            return
        options = self._gateway.new_array(self._jvm.org.apache.hadoop.fs.Options.Rename, 1)
        options[0] = self._jvm.org.apache.hadoop.fs.Options.Rename.OVERWRITE
        context = self._jvm.org.apache.hadoop.fs.FileContext.getFileContext(self._fs.getUri(), self._conf)
        context.rename(self._path(source), self._path(target), options)


def _checksum(path: str) -> str:
    """Hadoop's local file system keeps a checksum of each file in a hidden sibling."""
    folder, name = path.rsplit("/", 1)
    return f"{folder}/.{name}.crc"
