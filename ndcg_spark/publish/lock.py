"""One publisher at a time per output folder: a lock file created only if absent.

Held only while a run moves its staged files into place and writes its manifest (seconds), never
during the main pass. A run that finds it taken waits, up to a bound, then fails naming the
holder. A lock whose holder died (same host, no such process) or that is older than any
publication takes is taken over, with a log line that says so."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass

from ndcg_spark.errors import NdcgSparkError
from ndcg_spark.io.storage import FileSystem
from ndcg_spark.progress import LOGGER
from ndcg_spark.publish.events import reached

log = logging.getLogger(LOGGER)

DEFAULT_LOCK_TIMEOUT_SECONDS = 600
DEFAULT_LOCK_STALE_SECONDS = 3600
_POLL_SECONDS = 0.5
# A lock file that does not parse was cut short by a kill while being written (a few bytes, so a
# live writer finishes within milliseconds): stale once this old.
_UNREADABLE_STALE_SECONDS = 60


@dataclass(frozen=True)
class Clock:
    """Time as the lock reads it: the system's, or a test's that moves only when told (a lock
    stale after 60 s or a 600 s wait, checked without waiting)."""

    wall: Callable[[], float] = time.time
    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep

    def now(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.wall(), dt.UTC)


SYSTEM_CLOCK = Clock()


class LockTimeout(NdcgSparkError):
    """Another run kept the output's lock longer than we may wait: nothing was published (exit 1)."""


@dataclass(frozen=True)
class Holder:
    """Who holds the lock and since when, as written in the lock file."""

    token: str
    host: str
    pid: int
    since: str  # ISO 8601, UTC
    eval_date: str | None

    @staticmethod
    def me(eval_date: str | None, clock: Clock = SYSTEM_CLOCK) -> Holder:
        now = clock.now().isoformat(timespec="seconds")
        return Holder(uuid.uuid4().hex, socket.gethostname(), os.getpid(), now, eval_date)

    def describe(self) -> str:
        date = f" for {self.eval_date}" if self.eval_date else ""
        return f"{self.host} pid {self.pid} since {self.since}{date}"

    def age_seconds(self, clock: Clock = SYSTEM_CLOCK) -> float:
        return (clock.now() - dt.datetime.fromisoformat(self.since)).total_seconds()

    def dead(self) -> bool:
        """Known dead: it ran on this host and its process is gone."""
        if self.host != socket.gethostname():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # alive, another user's
            return False
        return False


def _holder(text: str | None) -> Holder | None:
    if text is None:
        return None
    try:
        return Holder(**json.loads(text))
    except (ValueError, TypeError):
        return None  # unreadable: treated as stale once old enough, see acquire


@contextmanager
def publication_lock(
    fs: FileSystem,
    path: str,
    eval_date: str | None,
    timeout_seconds: float = DEFAULT_LOCK_TIMEOUT_SECONDS,
    stale_seconds: float = DEFAULT_LOCK_STALE_SECONDS,
    clock: Clock = SYSTEM_CLOCK,
) -> Iterator[Holder]:
    """Hold the lock at `path` for the block; released (if still ours) whatever happens."""
    me = Holder.me(eval_date, clock)
    _acquire(fs, path, me, timeout_seconds, stale_seconds, clock)
    try:
        yield me
    finally:
        if _holder(fs.read_text(path)) == me:
            fs.delete(path)


def _acquire(fs: FileSystem, path: str, me: Holder, timeout_seconds: float, stale_seconds: float, clock: Clock) -> None:
    deadline = clock.monotonic() + timeout_seconds
    text = json.dumps(asdict(me))
    waiting = False
    while True:
        if fs.create_exclusive(path, text):
            reached("locked")
            return
        found = fs.read_text(path)
        if found is None:  # released since: try again at once
            continue
        holder = _holder(found)
        if _is_stale(fs, path, holder, stale_seconds, clock):
            _take_over(fs, path, found, holder)
            continue
        who = holder.describe() if holder else "an unreadable lock"
        if not waiting:
            waiting = True
            log.info("waiting for the publication lock %s held by %s (up to %g s)", path, who, timeout_seconds)
            reached("waiting", who)
        if clock.monotonic() >= deadline:
            raise LockTimeout(f"output is being published by {who} ({path}); waited {timeout_seconds:g} s: nothing published")
        clock.sleep(_POLL_SECONDS)


def _is_stale(fs: FileSystem, path: str, holder: Holder | None, stale_seconds: float, clock: Clock) -> bool:
    if holder is None:
        modified = fs.modified_ms(path)
        return modified is not None and clock.wall() - modified / 1000 > _UNREADABLE_STALE_SECONDS
    return holder.dead() or holder.age_seconds(clock) > stale_seconds


def _take_over(fs: FileSystem, path: str, found: str, holder: Holder | None) -> None:
    """Move the stale lock aside under a name of our own, in one step: of two runs taking over,
    one moves it. If what we moved is not the lock we judged stale (its holder released it and a
    live run took it in between), it goes back."""
    aside = f"{path}.{uuid.uuid4().hex}.stale"
    if not fs.move_to_new(path, aside):
        return
    moved = fs.read_text(aside)
    if moved == found:
        why = "its process is gone" if holder and holder.dead() else "it is older than allowed"
        who = holder.describe() if holder else "an unreadable holder"
        log.warning("took over the publication lock %s held by %s: %s", path, who, why)
        fs.delete(aside)
        return
    if moved is not None:
        back = fs.create_exclusive(path, moved)
        log.warning(
            "publication lock %s changed hands while taking over a stale one: %s",
            path,
            "put back for its new holder" if back else "a third run has taken it since",
        )
    fs.delete(aside)
