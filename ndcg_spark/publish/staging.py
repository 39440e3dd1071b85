"""A run's private staging folder under the output, and the sweep of those that dead runs left
behind: what the commit record still needs is kept (see commit.py)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field

from ndcg_spark.errors import StateNotReadable
from ndcg_spark.io.storage import FileSystem, base_name, parse_record
from ndcg_spark.publish.layout import COMMIT_FILE

STAGING_DIR = "_staging"  # a leading underscore: Spark, pyarrow and DuckDB readers skip it
# A staging folder older than this was left by a run that died (a nightly run takes minutes);
# younger ones may belong to a run still going, for another date.
STALE_STAGING_SECONDS = 12 * 3600


@dataclass
class Staging:
    """A private folder under the output for intermediate results; removed whatever happens,
    together with the output folder itself when the job created it and left nothing in it.
    Creating one also removes staging folders that runs which died left behind."""

    fs: FileSystem
    output: str
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __post_init__(self) -> None:
        self.output = self.output.rstrip("/")
        self._output_existed = self.fs.exists(self.output)
        self._remove_stale()

    @property
    def parent(self) -> str:
        return f"{self.output}/{STAGING_DIR}"

    @property
    def root(self) -> str:
        return f"{self.parent}/{self.token}"

    def path(self, name: str) -> str:
        return f"{self.root}/{name}"

    def _needed(self) -> set[str]:
        """The staging folders an unfinished publication may still need (see publish/commit.py):
        the one its record names or, when the record cannot be read, every one that holds a copy
        of a record (the recovery looks for it there)."""
        path = f"{self.output}/{COMMIT_FILE}"
        text = self.fs.read_text(path)
        if text is None:
            return set()
        try:
            return {base_name(str(parse_record(text, path, "commit record")["staging"]))}
        except (StateNotReadable, KeyError):
            return {
                base_name(info.path) for info in self.fs.children(self.parent) if self.fs.exists(f"{info.path}/{COMMIT_FILE}")
            }

    def _remove_stale(self) -> None:
        cutoff_ms = (time.time() - STALE_STAGING_SECONDS) * 1000
        needed = self._needed()
        for info in self.fs.children(self.parent):
            if info.modified_ms < cutoff_ms and base_name(info.path) not in needed:
                self.fs.delete(info.path)

    def discard(self) -> None:
        """Remove this run's folder, unless a publication cut short by an error still needs it."""
        if self.token in self._needed():
            return
        self.fs.delete(self.root)
        if self.fs.is_empty_dir(self.parent):
            self.fs.delete(self.parent)
        if not self._output_existed and self.fs.is_empty_dir(self.output):
            self.fs.delete(self.output)
