"""Folders and files on whatever file system the output lives on (local, HDFS, S3A, ...), through
Hadoop's FileSystem API in the driver's JVM: only names and metadata, never data."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from pyspark.sql import SparkSession

from ndcg_spark.errors import StateNotReadable

_LOCAL_SCHEMES = ("file",)
# File systems whose file rename is one step that fails when the target exists: a file written
# whole under a temporary name and renamed is created exclusively there. Object stores (s3a, gs,
# abfs, ...) rename by copying: there the file is created in place, exclusively only where the
# store offers conditional writes (docs/operations.md).
_RENAMING_SCHEMES = ("hdfs", "viewfs")
_TEMPORARY_SUFFIX = ".tmp"
# Hadoop's option (3.4.2 on; S3A: a PUT with If-None-Match: *) that makes a create fail when the
# file is there, in the store, not by a look first; also the path capability that says it is honoured.
CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite"


class MoveFailed(OSError):
    """A rename the file system refused (Hadoop's rename returns false rather than raise): both
    paths named; a retry, or the next run's recovery, can cure it (exit 1)."""


def parse_record(text: str, path: str, what: str) -> dict[str, Any]:
    """A state file's JSON object, or StateNotReadable naming the file and what is wrong with it
    (empty, cut short, not an object): the caller adds what to do."""
    if not text.strip():
        raise StateNotReadable(f"{what} {path} is empty")
    try:
        record = json.loads(text)
    except ValueError as error:
        raise StateNotReadable(f"{what} {path} is cut short or not JSON ({len(text)} bytes: {error})") from None
    if not isinstance(record, dict):
        raise StateNotReadable(f"{what} {path} holds JSON of the wrong shape (a {type(record).__name__}, not an object)")
    return record


def base_name(path: str) -> str:
    """A path's last part: a file's or a folder's own name."""
    return path.rstrip("/").rsplit("/", 1)[-1]


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
        self._root = self._path(path)
        self._fs = self._root.getFileSystem(self._conf)

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
        if self._scheme == "file":
            return _unwritable_local(shown, "" if probe.equals(target) else f" ({shown}, where it would be made)")
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
        """Create a small file only if none is there, durably and in one step; False when one is.
        The text is written whole and synced under a temporary name first, then linked (local
        disk) or renamed (HDFS) into place, a step that fails when the name is taken: the file
        never appears cut short. Object stores have no such step: there the file is created in
        place (visible once closed), exclusive only where the store offers conditional writes."""
        if self.renames_are_copies:
            return self._create_in_place(path, text)
        temporary = self._temporary(path)
        try:
            self._write_synced(temporary, text)
            if self._scheme in _LOCAL_SCHEMES:
                try:
                    os.link(self._local(temporary), self._local(path))
                except FileExistsError:
                    return False
                except OSError:  # a mount without hard links: created in place, O_EXCL
                    return self._create_local_in_place(path, text)
                self._sync_folder(path)
                return True
            if self._fs.rename(self._path(temporary), self._path(path)):
                return True
            if self.exists(path):
                return False
            raise MoveFailed(f"cannot create {path}: renaming {temporary} to it failed")
        finally:
            self._discard(temporary)

    def _create_local_in_place(self, path: str, text: str) -> bool:
        try:
            self._write_synced(path, text)
        except FileExistsError:
            return False
        self._sync_folder(path)
        return True

    @property
    def renames_are_copies(self) -> bool:
        """Whether a rename copies each file and then deletes it (object stores: S3, GCS, ADLS, ...),
        rather than taking one step: publishing there moves file by file (atomic.place)."""
        return self._scheme not in _LOCAL_SCHEMES and self._scheme not in _RENAMING_SCHEMES

    @property
    def conditional_create(self) -> bool:
        """Whether creating a file fails when one is there, in one step of the store: always with
        a rename or a link that refuses a taken name; on an object store only where it offers
        conditional writes (CONDITIONAL_CREATE)."""
        if not self.renames_are_copies:
            return True
        try:
            return bool(self._fs.hasPathCapability(self._root, CONDITIONAL_CREATE))
        except Exception:  # noqa: BLE001 - a connector older than the capability probe
            return False

    def move_file(self, source: str, target: str) -> None:
        """Move one file to a name only this move uses, resumably where a rename is a copy and a
        delete: a move cut short between the two finds its copy done and deletes the source."""
        if not self.exists(source):
            return
        if self.exists(target):
            self.delete(source)
            return
        if not self._rename(source, target) and self.exists(source):
            raise MoveFailed(f"cannot move {source} to {target}: the file system refused the rename")

    def _create_in_place(self, path: str, text: str) -> bool:
        try:
            if self.conditional_create:
                builder = self._fs.createFile(self._path(path)).overwrite(False).must(CONDITIONAL_CREATE, True)
                stream = builder.build()
            else:
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

    def _temporary(self, path: str) -> str:
        """A hidden name beside path, of this write alone: readers and listings skip it."""
        folder, name = path.rsplit("/", 1)
        return f"{folder}/.{name}.{uuid.uuid4().hex}{_TEMPORARY_SUFFIX}"

    def _write_synced(self, path: str, text: str) -> None:
        """Write a new file and make it durable (fsync, or hsync where the stream has it) before
        it is closed."""
        if self._scheme in _LOCAL_SCHEMES:
            local = self._local(path)
            os.makedirs(os.path.dirname(local), exist_ok=True)
            handle = os.open(local, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
                stream.flush()
                os.fsync(stream.fileno())
            return
        stream = self._fs.create(self._path(path), False)
        try:
            stream.write(bytearray(text.encode("utf-8")))
            _sync_stream(stream)
        finally:
            stream.close()

    def _put(self, path: str, text: str) -> None:
        """An object store's write: the object appears whole when the stream closes (and is
        durable then), replacing any before it; a stream there has nothing to sync."""
        stream = self._fs.create(self._path(path), True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()

    def _discard(self, path: str) -> None:
        """Remove a temporary file, if it is there (never raises: the error that brought us here
        is the one to report)."""
        try:
            if self._scheme in _LOCAL_SCHEMES:
                os.unlink(self._local(path))
            else:
                self._fs.delete(self._path(path), False)
        except Exception:  # noqa: BLE001, S110 - gone already, or the file system is down
            pass

    def _sync_folder(self, path: str) -> None:
        """Make a new name in path's folder durable (local disks: fsync the folder)."""
        if self._scheme in _LOCAL_SCHEMES:
            handle = os.open(os.path.dirname(self._local(path)) or ".", os.O_RDONLY)
            try:
                os.fsync(handle)
            finally:
                os.close(handle)

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

    def move_to_new(self, source: str, target: str) -> bool:
        """Rename source to a name nobody uses, in one step: False when source is gone (another
        process moved it first). A rename refused otherwise raises MoveFailed, naming both paths;
        target is never there before (a folder renamed onto an existing one on HDFS would land
        inside it)."""
        if not self.exists(source):
            return False
        if self.exists(target):
            raise MoveFailed(f"cannot move {source} to {target}: {target} is there already")
        if self._rename(source, target):
            return True
        if not self.exists(source):
            return False
        raise MoveFailed(f"cannot move {source} to {target}: the file system refused the rename")

    def _rename(self, source: str, target: str) -> bool:
        """One rename, as Hadoop's: False, not an error, when it fails (rename(2) locally)."""
        if self._scheme in _LOCAL_SCHEMES:
            try:
                os.rename(self._local(source), self._local(target))
            except OSError:
                return False
            return True
        return bool(self._fs.rename(self._path(source), self._path(target)))

    @property
    def _scheme(self) -> str:
        return str(self._fs.getUri().getScheme() or "file")

    def on_disk(self, path: str) -> str:
        """A local path's name for os calls (a file: URI's path part)."""
        return self._local(path)

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
        """Write a small file durably and atomically: synced under a temporary name beside it,
        then renamed onto it (readers see the old file or the new one, whole); the temporary
        file is removed whatever fails. On an object store, where a write is whole anyway, it
        is written in place."""
        if self.renames_are_copies:  # a temporary name would cost a copy, for nothing
            self._put(path, text)
            return
        temporary = self._temporary(path)
        try:
            self._write_synced(temporary, text)
            self.replace(temporary, path)
        finally:
            self._discard(temporary)
        self._sync_folder(path)

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
                raise MoveFailed(f"cannot move {source} to {target}: the file system refused the rename")
            return
        options = self._gateway.new_array(self._jvm.org.apache.hadoop.fs.Options.Rename, 1)
        options[0] = self._jvm.org.apache.hadoop.fs.Options.Rename.OVERWRITE
        context = self._jvm.org.apache.hadoop.fs.FileContext.getFileContext(self._fs.getUri(), self._conf)
        context.rename(self._path(source), self._path(target), options)


def _unwritable_local(folder: str, where: str) -> str | None:
    """Why nothing can be written in an existing local folder, or None (`where`: how the message
    names it when it is not the output itself)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot be written by this user{where}"
    try:  # permissions are not all: /proc, a read-only mount, a full disk
        os.rmdir(tempfile.mkdtemp(prefix=".ndcg-spark-probe-", dir=folder))
    except OSError as error:
        return f"cannot be written{where}: {error.strerror or error}"
    return None


def _sync_stream(stream: Any) -> None:
    """hsync a Hadoop output stream where it can (HDFS: to disk), else hflush."""
    if stream.hasCapability("hsync"):
        stream.hsync()
    else:
        stream.hflush()


def _checksum(path: str) -> str:
    """Hadoop's local file system keeps a checksum of each file in a hidden sibling."""
    folder, name = path.rsplit("/", 1)
    return f"{folder}/.{name}.crc"


def _is_checksum(name: str) -> bool:
    """A checksum file Hadoop keeps beside another (its listings leave them out, and so does ours)."""
    return name.startswith(".") and name.endswith(".crc")


class LocalFileSystem(FileSystem):
    """The same file system on a local disk, in this process (os calls, pyarrow's Parquet footers):
    the embedded engine's, where no JVM runs. Every step of the protocol above it (the lock, the
    commit record, the swaps) is the one code; only these primitives differ."""

    def __init__(self, spark: SparkSession | None, path: str) -> None:  # noqa: ARG002 - file_system's signature
        """Nothing to open: every call goes to the disk (the JVM's fields stay unset)."""

    @property
    def _scheme(self) -> str:
        return "file"

    def exists(self, path: str) -> bool:
        return os.path.lexists(self._local(path))

    def delete(self, path: str) -> None:
        local = self._local(path)
        if os.path.isdir(local) and not os.path.islink(local):
            shutil.rmtree(local, ignore_errors=True)
        elif os.path.lexists(local):
            os.unlink(local)

    def mkdirs(self, path: str) -> None:
        os.makedirs(self._local(path), exist_ok=True)

    def unwritable_folder(self, path: str) -> str | None:
        target = os.path.abspath(self._local(path))
        probe: str | None = target
        while probe is not None and not os.path.exists(probe):
            parent = os.path.dirname(probe)
            probe = None if parent == probe else parent
        if probe is None:
            return None
        if not os.path.isdir(probe):
            return "is a file, not a folder" if probe == target else f"is under {probe}, a file"
        return _unwritable_local(probe, "" if probe == target else f" ({probe}, where it would be made)")

    def is_empty_dir(self, path: str) -> bool:
        local = self._local(path)
        return os.path.isdir(local) and not os.listdir(local)

    def children(self, path: str) -> list[FileInfo]:
        local = self._local(path)
        if not os.path.isdir(local):
            return []
        folder = path.rstrip("/")
        return [self._stat(f"{folder}/{name}") for name in sorted(os.listdir(local)) if not _is_checksum(name)]

    def files(self, path: str) -> list[FileInfo]:
        local = self._local(path)
        if os.path.isfile(local):
            return [self._stat(path)]
        found = []
        for root, folders, names in os.walk(local):
            folders.sort()
            inside = os.path.relpath(root, local)
            for name in sorted(name for name in names if not _is_checksum(name)):
                found.append(self._stat(path.rstrip("/") + ("" if inside == "." else f"/{inside}") + f"/{name}"))
        return found

    def _stat(self, path: str) -> FileInfo:
        status = os.stat(self._local(path))
        return FileInfo(path, status.st_mtime_ns // 1_000_000, status.st_size)

    def info(self, path: str) -> FileInfo:
        return self._stat(path)

    def modified_ms(self, path: str) -> int | None:
        return self._stat(path).modified_ms if self.exists(path) else None

    @property
    def renames_are_copies(self) -> bool:
        return False

    def replace(self, source: str, target: str) -> None:
        """rename(2) onto target; a checksum Hadoop kept beside a file Spark wrote there before
        goes (it would fail Spark's readers of the new file)."""
        stale = self._local(_checksum(target))
        if os.path.lexists(stale):
            os.unlink(stale)
        try:
            os.replace(self._local(source), self._local(target))
        except OSError as error:
            raise MoveFailed(f"cannot move {source} to {target}: {error.strerror or error}") from None

    def parquet_rows(self, path: str) -> int:
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(self._local(path)).metadata.num_rows)


_simulated: type[FileSystem] | None = None


def file_system(spark: SparkSession | None, path: str) -> FileSystem:
    """The file system of path: what every module opens a path with; without a session (the
    embedded engine), the local disk's."""
    if _simulated is not None:
        return _simulated(spark, path)  # type: ignore[arg-type]  # a simulation serves either engine
    return LocalFileSystem(spark, path) if spark is None else FileSystem(spark, path)


@contextmanager
def simulated(kind: type[FileSystem]) -> Iterator[None]:
    """Open every path with `kind` inside the block, on either engine: the tests' simulated object
    store, whose renames copy file by file (tests/object_store.py)."""
    global _simulated
    before, _simulated = _simulated, kind
    try:
        yield
    finally:
        _simulated = before
