"""One publisher at a time per output folder: a lock file created only if absent.

Held only while a run moves its staged files into place and writes its manifest (seconds), never
during the main pass. A run that finds it taken waits, up to a bound, then fails naming the
holder. A lock whose holder died (same host, no such process) or that is older than any
publication takes is taken over, with a log line that says so.

A lock is written whole and synced before it appears under its name (storage.create_exclusive),
so no live run's lock is ever empty or cut short: one that is was damaged on disk, and a run
refuses it (exit 3) rather than guess whose it was; --repair removes it.

Taking over is claimed first: each stale lock's claim is a file named by a hash of its text,
created only if absent, so of the runs that judged the same lock stale one moves it aside. Without
the claim, a second run could move aside the lock the first had taken since, and a third take the
empty name: two publishers. Claims stay as long as a lock may be judged stale
(docs/operations.md)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass

from ndcg_spark.errors import NdcgSparkError, StateNotReadable
from ndcg_spark.io.storage import CONDITIONAL_CREATE, FileSystem, parse_record
from ndcg_spark.progress import LOGGER
from ndcg_spark.publish.events import reached

log = logging.getLogger(LOGGER)

DEFAULT_LOCK_TIMEOUT_SECONDS = 600
DEFAULT_LOCK_STALE_SECONDS = 3600
_POLL_SECONDS = 0.5
_WHAT = "publication lock"
_CLAIM_SUFFIX = ".claim"


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


def _holder(text: str, path: str) -> Holder:
    """The holder a lock's text names; StateNotReadable, naming the file, when it is empty, cut
    short or not of a lock's shape."""
    record = parse_record(text, path, _WHAT)
    try:
        holder = Holder(**record)
        texts = (holder.token, holder.host, holder.since)
        if not all(isinstance(value, str) for value in texts) or not isinstance(holder.pid, int):
            raise TypeError("a field of the wrong type")
        holder.age_seconds()
    except (TypeError, ValueError) as error:
        raise StateNotReadable(f"{_WHAT} {path} holds JSON of the wrong shape ({error})") from None
    return holder


def lock_unreadable(fs: FileSystem, path: str) -> bool:
    """Whether a lock is there that cannot be read (see _holder)."""
    text = fs.read_text(path)
    if text is None:
        return False
    try:
        _holder(text, path)
    except StateNotReadable:
        return True
    return False


def _unreadable(error: StateNotReadable) -> StateNotReadable:
    return StateNotReadable(
        f"{error}: no run writes its lock that way (a lock is written whole before it appears), so it was"
        " damaged on disk; pass --repair to remove it"
    )


@contextmanager
def publication_lock(
    fs: FileSystem,
    path: str,
    eval_date: str | None,
    timeout_seconds: float = DEFAULT_LOCK_TIMEOUT_SECONDS,
    stale_seconds: float = DEFAULT_LOCK_STALE_SECONDS,
    clock: Clock = SYSTEM_CLOCK,
    *,
    repairing: bool = False,
) -> Iterator[Holder]:
    """Hold the lock at `path` for the block; released (if still ours) whatever happens.
    repairing: an unreadable lock is taken over (--repair), instead of refused."""
    me = Holder.me(eval_date, clock)
    text = json.dumps(asdict(me))
    if not fs.conditional_create:
        log.warning(
            "the publication lock %s is not exclusive on this store: it offers no conditional create (%s), so two"
            " runs publishing at the same moment could both take it; enable it (S3A: Hadoop 3.4.2 or later,"
            " fs.s3a.create.conditional.enabled=true) or schedule one run per output at a time (docs/operations.md)",
            path,
            CONDITIONAL_CREATE,
        )
    _acquire(fs, path, me, text, timeout_seconds, stale_seconds, clock, repairing)
    try:
        yield me
    finally:
        if fs.read_text(path) == text:
            fs.delete(path)


def _acquire(
    fs: FileSystem,
    path: str,
    me: Holder,
    text: str,
    timeout_seconds: float,
    stale_seconds: float,
    clock: Clock,
    repairing: bool,
) -> None:
    deadline = clock.monotonic() + timeout_seconds
    waiting = False
    _sweep_claims(fs, path, stale_seconds, clock)
    while True:
        if fs.create_exclusive(path, text):
            reached("locked")
            return
        found = fs.read_text(path)
        if found is None:  # released since: try again at once
            continue
        try:
            holder = _holder(found, path)
        except StateNotReadable as error:
            if not repairing:
                raise _unreadable(error) from None
            _take_over(fs, path, found, None, me)
            continue
        if holder.dead() or holder.age_seconds(clock) > stale_seconds:
            _take_over(fs, path, found, holder, me)
            continue
        if not waiting:
            waiting = True
            log.info("waiting for the publication lock %s held by %s (up to %g s)", path, holder.describe(), timeout_seconds)
            reached("waiting", holder.describe())
        if clock.monotonic() >= deadline:
            raise LockTimeout(
                f"output is being published by {holder.describe()} ({path}); waited {timeout_seconds:g} s: nothing published"
            )
        clock.sleep(_POLL_SECONDS)


def _claim(path: str, found: str) -> str:
    """The claim on taking over the lock whose text is `found`: one per stale lock."""
    return f"{path}.{hashlib.sha256(found.encode('utf-8')).hexdigest()[:32]}{_CLAIM_SUFFIX}"


def _sweep_claims(fs: FileSystem, path: str, stale_seconds: float, clock: Clock) -> None:
    """Remove the claims older than twice the age that makes a lock stale: no run still holds
    the view of the lock they were made for."""
    folder, name = path.rsplit("/", 1)
    for info in fs.children(folder):
        claimed = info.path.rsplit("/", 1)[1]
        if claimed.startswith(f"{name}.") and claimed.endswith(_CLAIM_SUFFIX):
            if clock.wall() - info.modified_ms / 1000 > 2 * stale_seconds:
                fs.delete(info.path)


def _take_over(fs: FileSystem, path: str, found: str, holder: Holder | None, me: Holder) -> None:
    """Move the stale lock aside under a name of our own, once this run holds its claim: of the
    runs that judged it stale, one moves it. If what we moved is not the lock we judged stale
    (its holder, judged stale by age yet alive, released it and another run took it in between),
    it goes back."""
    if not fs.create_exclusive(_claim(path, found), json.dumps(asdict(me))):
        return  # another run is taking this lock over: look again
    aside = f"{path}.{uuid.uuid4().hex}.stale"
    if not fs.move_to_new(path, aside):
        return
    moved = fs.read_text(aside)
    if moved == found:
        if holder is None:
            who, why = "an unreadable holder", "it was unreadable (--repair)"
        else:
            who, why = holder.describe(), "its process is gone" if holder.dead() else "it is older than allowed"
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
