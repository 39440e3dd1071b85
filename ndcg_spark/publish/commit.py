"""All the datasets of a date come from one run: publications are recorded before they start,
so one cut short is finished by the next run on the output.

Under the output's lock (lock.py), a run writes a commit record (`DIR/_publishing.json`: the staged
files, already checked, their targets and the manifest) before its first move, makes the moves,
writes the manifest and removes the record. A run that dies in between leaves the record and its
staged files; the next run on that output, whatever its date, or `--repair`, takes the lock, makes
the moves that are left and writes the manifest, before it does anything else."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from typing import Any

from ndcg_spark.io.storage import FileSystem
from ndcg_spark.progress import LOGGER
from ndcg_spark.publish import manifest
from ndcg_spark.publish.atomic import Move, place
from ndcg_spark.publish.events import reached
from ndcg_spark.publish.layout import PublicationLayout

log = logging.getLogger(LOGGER)


@dataclass(frozen=True)
class Commit:
    """A publication: whose (its staging folder), the moves in order, and the manifest to write last."""

    staging: str
    moves: tuple[Move, ...]
    manifest_path: str
    manifest: str

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True) + "\n"

    @staticmethod
    def from_json(record: dict[str, Any]) -> Commit:
        moves = tuple(Move(**move) for move in record["moves"])
        return Commit(record["staging"], moves, record["manifest_path"], record["manifest"])


def commit(fs: FileSystem, layout: PublicationLayout, publication: Commit) -> None:
    """Record, move, write the manifest, forget. Call with the output's lock held."""
    fs.write_text(layout.commit, publication.to_json())
    reached("recorded")
    _apply(fs, publication)
    fs.delete(layout.commit)
    reached("committed")


def _apply(fs: FileSystem, publication: Commit) -> None:
    for move in publication.moves:
        place(fs, move)
        reached("moved", move.name)
    fs.mkdirs(publication.manifest_path.rsplit("/", 1)[0])
    fs.write_text(publication.manifest_path, manifest.with_files(publication.manifest, _placed(fs, publication.moves)))
    reached("manifest")


def _placed(fs: FileSystem, moves: tuple[Move, ...]) -> dict[str, list[dict[str, object]]]:
    """Each output's files as they are now in place: what a reader checks that it reads (their
    size and time change when a later run replaces them; a rename keeps them, a copy on an
    object store does not, hence after the moves)."""
    placed: dict[str, list[dict[str, object]]] = {}
    for move in moves:
        # A dataset's folder is listed once (one call to the store), a single file looked up.
        listed = {info.path.rsplit("/", 1)[1]: info for info in fs.children(move.target)} if move.files else {}
        files = {f"{move.target}/{name}": rows for name, rows in move.files.items()} or {move.target: move.rows}
        for path, rows in files.items():
            name = path.rsplit("/", 1)[1]
            info = listed.get(name) or fs.info(path)
            placed.setdefault(move.name, []).append(
                {
                    manifest.FILE_NAME: name,
                    manifest.FILE_BYTES: info.size,
                    manifest.FILE_MODIFIED: info.modified_ms,
                    manifest.FILE_ROWS: rows,
                }
            )
    return placed


def recover(fs: FileSystem, layout: PublicationLayout) -> Commit | None:
    """Finish the publication a dead run left half done, if any; returns it. Call with the
    output's lock held: no live run is publishing then."""
    record = fs.read_json(layout.commit)
    if record is None:
        return None
    publication = Commit.from_json(record)
    _apply(fs, publication)
    fs.delete(publication.staging)
    fs.delete(layout.commit)
    log.warning(
        "finished an interrupted publication on %s: %d files moved into place, manifest %s",
        layout.root,
        len(publication.moves),
        publication.manifest_path,
    )
    return publication
