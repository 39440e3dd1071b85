"""The named points of a publication, for whoever must act at an exact one of them.

A scheduler's kill or a second run can land anywhere; the system tests reproduce each case by
killing or holding a run at a point (a sleep would land wherever the machine's speed puts it).
Nothing listens in a normal run: a point costs a loop over an empty list and a debug log line."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from ndcg_spark.progress import LOGGER

log = logging.getLogger(LOGGER)

Point = Literal[
    "staged",  # every file written under staging and checked; no lock yet
    "waiting",  # the lock is held by another run (once per acquisition); the detail names it
    "locked",  # the lock is ours; an interrupted publication, if any, is finished next
    "recorded",  # the commit record is written, nothing moved yet
    "moved",  # one file moved into place; the detail is its dataset
    "manifest",  # the manifest is written, the record not yet removed
    "committed",  # the record is removed; the lock is still ours
]
Listener = Callable[[Point, str], None]

_listeners: list[Listener] = []


def reached(point: Point, detail: str = "") -> None:
    """Say that the publication is at `point`; every listener runs before it goes on."""
    log.debug("publication at %s %s", point, detail)
    for listener in tuple(_listeners):
        listener(point, detail)


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Call `listener` at every point reached inside the block."""
    _listeners.append(listener)
    try:
        yield
    finally:
        _listeners.remove(listener)
