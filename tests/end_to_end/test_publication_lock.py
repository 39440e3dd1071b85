"""The output's publication lock: waited for while held, taken over when its holder is dead or
too old, given back when it changed hands during a takeover, and a timeout that names the holder;
the sweep of staging folders. The lock's clock is injected: no test waits for a minute to pass."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from ndcg_spark.errors import EXIT_FAILURE, EXIT_OK, StateNotReadable
from ndcg_spark.io.storage import FileSystem
from ndcg_spark.job.cli import main
from ndcg_spark.publish.events import listening
from ndcg_spark.publish.layout import COMMIT_FILE, LOCK_FILE
from ndcg_spark.publish.lock import Clock, Holder, LockTimeout, _take_over, publication_lock
from ndcg_spark.publish.staging import STAGING_DIR, STALE_STAGING_SECONDS, Staging
from tests.conftest import HANG_SECONDS, error_lines, run_job, snapshot


def _lock(output: Path, host: str, pid: int, since: dt.datetime) -> Path:
    output.mkdir(parents=True, exist_ok=True)
    path = output / LOCK_FILE
    holder = {"token": "t0", "host": host, "pid": pid, "since": since.isoformat(timespec="seconds"), "eval_date": None}
    path.write_text(json.dumps(holder))
    return path


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_a_lock_of_a_dead_process_is_taken_over(inputs, tmp_path: Path, capsys) -> None:
    output = tmp_path / "out"
    lock = _lock(output, socket.gethostname(), _dead_pid(), dt.datetime.now(dt.UTC))
    assert run_job(*inputs, output, "--lock-timeout", "30") == EXIT_OK
    assert not lock.exists()
    log = capsys.readouterr().err  # the job's step log: JSON lines off a terminal
    assert "took over the publication lock" in log and "its process is gone" in log
    assert (output / "_manifests" / "latest.json").exists()


def test_an_old_lock_is_taken_over(inputs, tmp_path: Path, capsys) -> None:
    output = tmp_path / "out"
    old = dt.datetime.now(dt.UTC) - dt.timedelta(hours=3)
    _lock(output, "elsewhere.example", 12345, old)
    assert run_job(*inputs, output, "--lock-stale-after", "3600", "--lock-timeout", "30") == EXIT_OK
    log = capsys.readouterr().err
    assert "held by elsewhere.example pid 12345" in log and "older than allowed" in log


def test_a_live_lock_is_waited_for_then_named(inputs, tmp_path: Path, capsys) -> None:
    output = tmp_path / "out"
    lock = _lock(output, socket.gethostname(), os.getpid(), dt.datetime.now(dt.UTC))
    assert run_job(*inputs, output, "--lock-timeout", "2") == EXIT_FAILURE
    (line,) = error_lines(capsys.readouterr().err)
    assert line.startswith("ndcg-spark: output is being published by ") and f"pid {os.getpid()}" in line, line
    assert "waited 2 s: nothing published" in line
    assert lock.exists() and not (output / "summary").exists() and not (output / "_manifests").exists()


def test_repair_of_an_output_with_nothing_to_finish(inputs, tmp_path: Path, capsys) -> None:
    output = tmp_path / "out"
    assert main(["--output", str(output), "--repair"]) == EXIT_OK
    assert capsys.readouterr().out.strip() == f"nothing to repair in {output}"
    assert not output.exists()
    assert run_job(*inputs, output) == EXIT_OK
    before = snapshot(output)
    assert main(["--output", str(output), "--repair"]) == EXIT_OK
    assert snapshot(output) == before


# The time the tests' fake clocks start at, and their locks were written at: what is judged stale
# follows from these numbers alone, never from how long the test took to get there.
NOW = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.UTC)


class _Clock:
    """The lock's clock, moved by its own waiting only: 60 s pass without being waited for. It
    starts at NOW, whatever the machine's clock says."""

    def __init__(self) -> None:
        self.wall_now, self.monotonic_now = NOW.timestamp(), 0.0

    def sleep(self, seconds: float) -> None:
        self.wall_now += seconds
        self.monotonic_now += seconds

    def clock(self) -> Clock:
        return Clock(wall=lambda: self.wall_now, monotonic=lambda: self.monotonic_now, sleep=self.sleep)


def test_a_held_lock_is_waited_for_and_taken_once_released(spark: SparkSession, tmp_path: Path) -> None:
    fs, path = FileSystem(spark, str(tmp_path)), str(tmp_path / LOCK_FILE)
    seen: list[tuple[str, str]] = []
    second_waits = threading.Event()

    def listener(point: str, detail: str) -> None:
        seen.append((threading.current_thread().name, point))
        if point == "waiting":
            second_waits.set()

    def second() -> None:
        with publication_lock(fs, path, "2026-12-02", timeout_seconds=600):
            seen.append(("second", "published"))

    with listening(listener):
        with publication_lock(fs, path, "2026-12-01") as first:
            waiter = threading.Thread(target=second, name="second")
            waiter.start()
            assert second_waits.wait(timeout=HANG_SECONDS), "the second never found the lock taken"
            assert json.loads((tmp_path / LOCK_FILE).read_text())["token"] == first.token
        waiter.join(timeout=HANG_SECONDS)
    assert seen == [("MainThread", "locked"), ("second", "waiting"), ("second", "locked"), ("second", "published")]
    assert not (tmp_path / LOCK_FILE).exists()


def test_an_unreadable_lock_is_refused_and_taken_over_only_when_repairing(spark: SparkSession, tmp_path: Path, caplog) -> None:
    """A lock is written whole before it appears: one cut short was damaged on disk, and no
    live run can be writing it. A run refuses it without waiting (exit 3, naming it); --repair's
    lock takes it over at once."""
    (tmp_path / LOCK_FILE).write_text('{"token": "t0", "ho')
    fs, fake = FileSystem(spark, str(tmp_path)), _Clock()
    path = str(tmp_path / LOCK_FILE)
    with pytest.raises(StateNotReadable, match=f"publication lock {path} is cut short or not JSON .*pass --repair to remove it"):
        with publication_lock(fs, path, None, timeout_seconds=600, clock=fake.clock()):
            pytest.fail("took an unreadable lock")
    assert fake.monotonic_now == 0 and (tmp_path / LOCK_FILE).exists()
    with (
        caplog.at_level(logging.INFO, logger="ndcg_spark"),
        publication_lock(fs, path, None, timeout_seconds=600, clock=fake.clock(), repairing=True) as me,
    ):
        assert json.loads((tmp_path / LOCK_FILE).read_text())["token"] == me.token
    assert "took over the publication lock" in caplog.text and "it was unreadable (--repair)" in caplog.text


def test_of_two_runs_that_judge_one_lock_stale_one_takes_it_over(spark: SparkSession, tmp_path: Path, caplog) -> None:
    """The three-run race: runs A and B both find a dead run's lock; B takes it over and holds the
    lock. A, late, must not move B's lock aside (a third run could then take the empty name, and
    two would publish): its takeover finds the dead lock claimed, looks again, and waits for B."""
    path = str(tmp_path / LOCK_FILE)
    dead = _lock(tmp_path, socket.gethostname(), _dead_pid(), NOW)
    found = dead.read_text()
    fs = FileSystem(spark, str(tmp_path))
    fake = _Clock()
    with publication_lock(fs, path, "2026-12-01", clock=fake.clock()) as b:  # B took it over
        held = (tmp_path / LOCK_FILE).read_text()
        assert json.loads(held)["token"] == b.token
        third = json.dumps({"token": "t3", "host": "elsewhere.example", "pid": 3, "since": b.since, "eval_date": None})

        class ThirdRunRaces(FileSystem):
            """C creates its lock the moment A's move leaves the name empty."""

            def move_to_new(self, source: str, target: str) -> bool:
                moved = super().move_to_new(source, target)
                if moved and source == path:
                    self.create_exclusive(path, third)
                return moved

        _take_over(ThirdRunRaces(spark, str(tmp_path)), path, found, None, Holder.me(None))  # A, late
        assert (tmp_path / LOCK_FILE).read_text() == held
        with pytest.raises(LockTimeout, match="output is being published by"):
            with publication_lock(fs, path, None, timeout_seconds=5, clock=fake.clock()):
                pytest.fail("took a lock a live run holds")
    assert not (tmp_path / LOCK_FILE).exists()


def test_a_lock_that_changes_hands_during_a_takeover_goes_back_to_its_new_holder(
    spark: SparkSession, tmp_path: Path, caplog
) -> None:
    """The dead holder's lock is judged stale; before it is moved aside, a live run takes the
    lock (as if the dead one had been released and taken in between): what was moved goes back,
    and this run waits for the live one, then times out naming it."""
    path = str(tmp_path / LOCK_FILE)
    dead = _lock(tmp_path, socket.gethostname(), _dead_pid(), NOW)
    live = {
        "token": "t1",
        "host": "elsewhere.example",
        "pid": 4242,
        "since": NOW.isoformat(timespec="seconds"),
        "eval_date": "2026-12-01",
    }

    class Racing(FileSystem):
        def move_to_new(self, source: str, target: str) -> bool:
            if source == path and "t0" in dead.read_text():
                dead.write_text(json.dumps(live))  # the live run's lock, where the stale one was
            return super().move_to_new(source, target)

    fake = _Clock()
    with caplog.at_level(logging.INFO, logger="ndcg_spark"), pytest.raises(LockTimeout) as refused:
        with publication_lock(Racing(spark, str(tmp_path)), path, None, timeout_seconds=30, clock=fake.clock()):
            pytest.fail("took a lock a live run holds")
    assert "changed hands while taking over a stale one: put back for its new holder" in caplog.text
    assert "output is being published by elsewhere.example pid 4242" in str(refused.value)
    assert json.loads(dead.read_text()) == live
    assert not list(tmp_path.glob("*.stale"))


def test_the_sweep_keeps_young_staging_and_what_a_commit_record_needs(spark: SparkSession, tmp_path: Path) -> None:
    staging = tmp_path / STAGING_DIR
    old = time.time() - STALE_STAGING_SECONDS - 60
    for name in ("young", "old", "old-recorded"):
        (staging / name).mkdir(parents=True)
        (staging / name / "part-0.parquet").write_text("x")
    for name in ("old", "old-recorded"):
        os.utime(staging / name, (old, old))
    (tmp_path / COMMIT_FILE).write_text(json.dumps({"staging": str(staging / "old-recorded")}))
    run = Staging(FileSystem(spark, str(tmp_path)), str(tmp_path))
    kept = sorted(path.name for path in staging.iterdir())
    assert kept == ["old-recorded", "young"]  # a live run's, and one a dead run's record needs
    run.discard()
    assert sorted(path.name for path in staging.iterdir()) == ["old-recorded", "young"]


def test_staleness_is_decided_by_the_locks_clock_alone(spark: SparkSession, tmp_path: Path) -> None:
    """A lock one second past the stale age is taken over; one second short of it is waited for:
    decided on the fake clock's numbers, however long the test takes between the two."""
    fs, path = FileSystem(spark, str(tmp_path)), str(tmp_path / LOCK_FILE)
    _lock(tmp_path, "elsewhere.example", 12345, NOW - dt.timedelta(seconds=61))
    with publication_lock(fs, path, None, timeout_seconds=0, stale_seconds=60, clock=_Clock().clock()) as me:
        assert json.loads((tmp_path / LOCK_FILE).read_text())["token"] == me.token
    _lock(tmp_path, "elsewhere.example", 12345, NOW - dt.timedelta(seconds=59))
    with pytest.raises(LockTimeout, match="elsewhere.example pid 12345"):
        with publication_lock(fs, path, None, timeout_seconds=0, stale_seconds=60, clock=_Clock().clock()):
            pytest.fail("took a lock 59 s old, stale only after 60 s")
