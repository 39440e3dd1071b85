"""Local paths checked before any engine starts: an input that is not there is refused at once,
not after a JVM has started (half a minute) to find it missing."""

from __future__ import annotations

import os
from urllib.parse import urlparse

from ndcg_spark.errors import InputError

_GLOB = "*?[{"
_LOCAL_SCHEMES = ("", "file")


def local_path(path: str) -> str | None:
    """The file system path of a local path (plain, or a file: URI); None for another scheme
    (hdfs:, s3a:, ...) or a glob, which only Hadoop's file system can resolve."""
    parsed = urlparse(path)
    if parsed.scheme not in _LOCAL_SCHEMES or len(parsed.scheme) == 1 or any(char in path for char in _GLOB):
        return None
    return parsed.path if parsed.scheme else path


def require_local(path: str, label: str) -> None:
    """Refuse a local input path where nothing exists, naming it and its role."""
    local = local_path(path)
    if local is not None and not os.path.exists(local):
        raise InputError(f"{label} {path}: no such file or folder")
