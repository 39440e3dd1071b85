"""All the datasets of a date come from one run: publications are recorded before they start,
so one cut short is finished by the next run on the output.

Under the output's lock (lock.py), a run writes a commit record (`DIR/_publishing.json`: the staged
files, already checked, their targets and the manifest) before its first move, makes the moves,
writes the manifest and removes the record. A run that dies in between leaves the record and its
staged files; the next run on that output, whatever its date, or `--repair`, takes the lock, makes
the moves that are left and writes the manifest, before it does anything else.

The record is written durably (storage.write_text), and a copy of it first, in the run's staging
folder: a record found empty or cut short (a disk that lost what it had not synced) is recovered
from the one copy that begins with what is left of it. Without one, the run refuses (exit 3), and
`--repair` abandons that publication and names the dates to rerun."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from typing import Any

from ndcg_spark.errors import StateNotReadable
from ndcg_spark.io.storage import FileSystem, parse_record
from ndcg_spark.progress import LOGGER
from ndcg_spark.publish.atomic import Move, place
from ndcg_spark.publish.events import reached
from ndcg_spark.publish.layout import COMMIT_FILE, PublicationLayout
from ndcg_spark.publish.manifest import FileRecord, Manifest
from ndcg_spark.publish.staging import STAGING_DIR

_WHAT = "commit record"

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
    def from_json(record: dict[str, Any], path: str) -> Commit:
        """The publication a record holds; StateNotReadable when it is not of this shape."""
        try:
            moves = record["moves"]
            texts = [record[name] for name in ("staging", "manifest_path", "manifest")]
            if not isinstance(moves, list) or not all(isinstance(text, str) for text in texts):
                raise TypeError("not a list of moves and three strings")
            made = tuple(Move(**move) for move in moves)
            if not all(isinstance(move.source, str) and isinstance(move.target, str) for move in made):
                raise TypeError("a move without paths")
        except (KeyError, TypeError) as error:
            raise StateNotReadable(f"{_WHAT} {path} holds JSON of the wrong shape ({error})") from None
        return Commit(texts[0], made, texts[1], texts[2])


def copy_path(staging: str) -> str:
    """Where a run keeps the copy of its commit record: its staging folder."""
    return f"{staging.rstrip('/')}/{COMMIT_FILE}"


def commit(fs: FileSystem, layout: PublicationLayout, publication: Commit) -> None:
    """Record (the copy, then the record), move, write the manifest, forget (the record; the copy
    goes with the staging folder). Call with the output's lock held."""
    text = publication.to_json()
    fs.write_text(copy_path(publication.staging), text)
    fs.write_text(layout.commit, text)
    reached("recorded")
    _apply(fs, publication)
    fs.delete(layout.commit)
    reached("committed")


def _apply(fs: FileSystem, publication: Commit) -> None:
    for move in publication.moves:
        place(fs, move)
        reached("moved", move.name)
    fs.mkdirs(publication.manifest_path.rsplit("/", 1)[0])
    record = Manifest.from_json(
        parse_record(publication.manifest, publication.manifest_path, "manifest"), publication.manifest_path
    )
    fs.write_text(publication.manifest_path, record.with_files(_placed(fs, publication.moves)).text())
    reached("manifest")


def _placed(fs: FileSystem, moves: tuple[Move, ...]) -> dict[str, list[FileRecord]]:
    """Each output's files as they are now in place: what a reader checks that it reads (their
    size and time change when a later run replaces them; a rename keeps them, a copy on an
    object store does not, hence after the moves)."""
    placed: dict[str, list[FileRecord]] = {}
    for move in moves:
        # A dataset's folder is listed once (one call to the store), a single file looked up.
        listed = {info.path.rsplit("/", 1)[1]: info for info in fs.children(move.target)} if move.files else {}
        files = {f"{move.target}/{name}": rows for name, rows in move.files.items()} or {move.target: move.rows}
        for path, rows in files.items():
            name = path.rsplit("/", 1)[1]
            info = listed.get(name) or fs.info(path)
            placed.setdefault(move.name, []).append(FileRecord(name, info.size, info.modified_ms, rows))
    return placed


def recorded(fs: FileSystem, layout: PublicationLayout) -> Commit | None:
    """The publication the output's commit record holds (None without one). An unreadable record
    is recovered from its copy; with none that matches, StateNotReadable says what to do."""
    text = fs.read_text(layout.commit)
    if text is None:
        return None
    try:
        return Commit.from_json(parse_record(text, layout.commit, _WHAT), layout.commit)
    except StateNotReadable as error:
        copy = _matching_copy(fs, layout, text)
        if copy is None:
            raise StateNotReadable(
                f"{error}, and no copy of it under {layout.base(STAGING_DIR)} matches it: pass --repair to abandon"
                " that publication (it names the dates to run again)"
            ) from None
        log.warning("%s; recovered it from its copy in %s", error, copy.staging)
        return copy


def _matching_copy(fs: FileSystem, layout: PublicationLayout, text: str) -> Commit | None:
    """The one readable copy of a commit record that begins with `text` (what is left of the
    record), or None when none or several do: never a guess."""
    found = []
    for folder in fs.children(layout.base(STAGING_DIR)):
        path = copy_path(folder.path)
        copied = fs.read_text(path)
        if copied is None or not copied.startswith(text):
            continue
        try:
            found.append(Commit.from_json(parse_record(copied, path, _WHAT), path))
        except StateNotReadable:
            continue
    return found[0] if len(found) == 1 else None


def recover(fs: FileSystem, layout: PublicationLayout) -> Commit | None:
    """Finish the publication a dead run left half done, if any; returns it. Call with the
    output's lock held: no live run is publishing then."""
    publication = recorded(fs, layout)
    if publication is None:
        return None
    _apply(fs, publication)
    fs.delete(layout.commit)
    fs.delete(publication.staging)
    log.warning(
        "finished an interrupted publication on %s: %d files moved into place, manifest %s",
        layout.root,
        len(publication.moves),
        publication.manifest_path,
    )
    return publication


def abandon(fs: FileSystem, layout: PublicationLayout) -> bool:
    """--repair on a commit record that cannot be read or recovered: remove it (the publication it
    recorded is given up; its staging folder goes with the stale ones). False when there was
    nothing to abandon."""
    if fs.read_text(layout.commit) is None:
        return False
    try:
        recorded(fs, layout)
    except StateNotReadable as error:
        fs.delete(layout.commit)
        log.warning("abandoned the publication its commit record recorded: %s", error)
        return True
    return False
