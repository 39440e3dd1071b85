"""A run killed the instant the first file of its report is moved into place: the next run on the
output, whatever its date, or --repair, finishes that publication, so the date is one run's whole
report again."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.io.layout import COMMIT_FILE, LOCK_FILE
from ndcg_spark.job.cli import main
from tests.conftest import JUDGMENTS, ROOT, write
from tests.system.test_overlapping_runs import DATE, JOB, _command, _env, _results, _whole_report_of

KILLER = str(ROOT / "tests" / "kill_on_first_move.py")


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path, Path]:
    """One killed run for both cases: (judgments, old results, the output as the kill left it, a
    copy of it). The output's record and lock hold absolute paths, so each case puts the copy back
    at the same place before it runs."""
    root = tmp_path_factory.mktemp("interrupted")
    judgments = write(root / "j" / "part-0.parquet", JUDGMENTS)
    old, new = _results(root, "old"), _results(root, "new")
    output = root / "out"
    assert main(_command(JOB, judgments, old, output)[2:]) == EXIT_OK  # in this process: the report to replace
    killed = subprocess.run(_command(KILLER, judgments, new, output), env=_env(), capture_output=True, text=True,
                            start_new_session=True, timeout=300)
    assert killed.returncode < 0, killed.stderr[-2000:]  # killed by the signal
    kept = root / "as-killed"
    shutil.copytree(output, kept, symlinks=True)
    return judgments, old, output, kept


@pytest.mark.slow
@pytest.mark.parametrize("then", ["repair", "another date"])
def test_a_kill_at_the_first_move_is_finished_by_the_next_run(capsys, interrupted, then: str) -> None:
    judgments, old, output, kept = interrupted
    shutil.rmtree(output)
    shutil.copytree(kept, output, symlinks=True)
    # Killed between moves: the new per_query beside the old summary, until someone finishes it.
    assert (output / COMMIT_FILE).exists()
    per_query = {run.split("-")[0] for run in pq.read_table(output / "per_query").column("run_id").to_pylist()}
    summary = {run.split("-")[0] for run in pq.read_table(output / "summary").column("run_id").to_pylist()}
    assert per_query == {"new"} and summary == {"old"}
    assert (output / LOCK_FILE).exists()  # the killed run's, taken over below: its process is gone
    capsys.readouterr()
    if then == "repair":
        assert main(["--output", str(output), "--repair"]) == EXIT_OK
    else:
        other = _command(JOB, judgments, old, output)[2:]
        other[other.index(DATE)] = "2026-12-02"
        assert main(other) == EXIT_OK
    printed = capsys.readouterr()
    assert "took over the publication lock" in printed.err and "its process is gone" in printed.err
    assert "finished an interrupted publication" in printed.err
    if then == "repair":
        # the record's moves: per_query (already made by the killed run), summary, the table
        assert f"repaired {output}: 3 files moved into place" in printed.out
    assert not (output / LOCK_FILE).exists()
    assert _whole_report_of(output) == "new"
    assert not (output / "_staging").exists() or not any((output / "_staging").iterdir())
