"""The names publication adds to the output folder: the lock, the commit record, the manifest."""

from __future__ import annotations

from dataclasses import dataclass

from ndcg_spark.io.layout import OutputLayout

MANIFEST_DIR = "_manifests"
# At the output's top: who is publishing now, and what an unfinished publication was doing.
LOCK_FILE = "_publishing.lock"
COMMIT_FILE = "_publishing.json"


@dataclass(frozen=True)
class PublicationLayout(OutputLayout):
    """The output folder as a publishing run sees it: a reader's layout, and its own files."""

    @property
    def manifest(self) -> str:
        return f"{self.base(MANIFEST_DIR)}/{self.label}.json"

    @property
    def lock(self) -> str:
        return self.base(LOCK_FILE)

    @property
    def commit(self) -> str:
        return self.base(COMMIT_FILE)
