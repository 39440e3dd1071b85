"""The output's publication lock: waited for while held, taken over when its holder is dead or
too old, and a timeout that names the holder."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from ndcg_spark.errors import EXIT_FAILURE, EXIT_OK
from ndcg_spark.io.layout import LOCK_FILE
from ndcg_spark.job.cli import main
from tests.conftest import error_lines, run_job, snapshot


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
    lock = _lock(output, socket.gethostname(), _dead_pid(), dt.datetime.now(dt.timezone.utc))
    assert run_job(*inputs, output, "--lock-timeout", "30") == EXIT_OK
    assert not lock.exists()
    log = capsys.readouterr().err  # the job's step log: JSON lines off a terminal
    assert "took over the publication lock" in log and "its process is gone" in log
    assert (output / "_manifests" / "latest.json").exists()


def test_an_old_lock_is_taken_over(inputs, tmp_path: Path, capsys) -> None:
    output = tmp_path / "out"
    old = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=3)
    _lock(output, "elsewhere.example", 12345, old)
    assert run_job(*inputs, output, "--lock-stale-after", "3600", "--lock-timeout", "30") == EXIT_OK
    log = capsys.readouterr().err
    assert "held by elsewhere.example pid 12345" in log and "older than allowed" in log


def test_a_live_lock_is_waited_for_then_named(inputs, tmp_path: Path, capsys) -> None:
    output = tmp_path / "out"
    lock = _lock(output, socket.gethostname(), os.getpid(), dt.datetime.now(dt.timezone.utc))
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
