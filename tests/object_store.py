"""A simulated object store (S3, GCS, ADLS): the job's own FileSystem on a local disk, with an
object store's semantics where they differ from a file system's.

- A rename copies each file, then deletes each source file: a folder's rename is many steps, and
  a kill can land between any two of them (`step` is called after each).
- Each file is written whole or not at all (a PUT, a copy of one object), never seen cut short.
- "Create if absent" is one step only with conditional writes (`conditional`); without them it
  is a look, then a write, and two writers can both win.
- No checksum files: a store keeps none beside the data."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from ndcg_spark.io.storage import LocalFileSystem


def _quiet(detail: str) -> None:
    """No one listens."""


class ObjectStore(LocalFileSystem):
    conditional: ClassVar[bool] = True
    step: ClassVar[Callable[[str], None]] = staticmethod(_quiet)

    @property
    def renames_are_copies(self) -> bool:
        return True

    @property
    def conditional_create(self) -> bool:
        return self.conditional

    def _rename(self, source: str, target: str) -> bool:
        """Copy file by file, then delete file by file (S3A's rename of a folder)."""
        here, there = Path(self._local(source)), Path(self._local(target))
        if not here.exists() or there.exists():
            return False
        if here.is_file():
            _put(here, there)
            self.step(f"copied {here.name}")
            here.unlink()
            self.step(f"deleted {here.name}")
            return True
        files = sorted(path.relative_to(here) for path in here.rglob("*") if path.is_file() and not _checksum(path))
        there.mkdir(parents=True)
        for name in files:
            _put(here / name, there / name)
            self.step(f"copied {name}")
        for name in files:
            (here / name).unlink()
            self.step(f"deleted {name}")
        shutil.rmtree(here)
        return True

    def replace(self, source: str, target: str) -> None:
        """A copy onto the target object (readers see the old one or the new one), then a delete."""
        here = Path(self._local(source))
        _put(here, Path(self._local(target)))
        self.step(f"copied {here.name}")
        here.unlink()
        self.step(f"deleted {here.name}")

    def _put(self, path: str, text: str) -> None:
        """A PUT: the object appears whole, once written."""
        _put_text(Path(self._local(path)), text)

    def _create_in_place(self, path: str, text: str) -> bool:
        target = Path(self._local(path))
        if not self.conditional:  # a look, then a PUT: two writers can both get here
            if target.exists():
                return False
            _put_text(target, text)
            return True
        staged = _staged(target)
        staged.write_text(text, encoding="utf-8")
        try:
            os.link(staged, target)  # one step that fails when the name is taken: If-None-Match: *
        except FileExistsError:
            return False
        finally:
            staged.unlink()
        return True


class PlainObjectStore(ObjectStore):
    """A store without conditional writes."""

    conditional = False


def _checksum(path: Path) -> bool:
    return path.name.startswith(".") and path.name.endswith(".crc")


def _staged(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    return target.with_name(f".{target.name}.{uuid.uuid4().hex}.upload")


def _put(source: Path, target: Path) -> None:
    """Copy one object: the target appears whole, in one step."""
    staged = _staged(target)
    shutil.copyfile(source, staged)
    os.replace(staged, target)
    target.with_name(f".{target.name}.crc").unlink(missing_ok=True)


def _put_text(target: Path, text: str) -> None:
    staged = _staged(target)
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, target)
    target.with_name(f".{target.name}.crc").unlink(missing_ok=True)
