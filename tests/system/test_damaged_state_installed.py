"""The output's damaged state files through the installed command, as a scheduler runs it: each of
the lock, the commit record and a manifest, cut short, gives exit 3 and one line that names the
file and the remedy; the installed `--repair` carries the remedy out, and the next run publishes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK
from ndcg_spark.publish.layout import COMMIT_FILE, LOCK_FILE, MANIFEST_DIR
from tests.conftest import HANG_SECONDS, JUDGMENTS, RESULTS, job_env, write
from tests.publication import DATE, job_arguments

pytestmark = pytest.mark.slow

_LOCK = '{"token": "t0", "host": "h", "pid": 1, "since": "2026-12-01T00:00:00+00:00", "eval_date": null}'
# A commit record cut short, with no copy to recover it from; a manifest cut short.
_DAMAGED = {
    "lock": (LOCK_FILE, _LOCK[:20], "publication lock", "pass --repair to remove it"),
    "commit record": (COMMIT_FILE, '{"staging": "/nowhere", "mo', "commit record", "pass --repair to abandon that publication"),
}


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    command = Path(sys.executable).parent / "ndcg-spark"
    assert command.exists(), "the ndcg-spark console script is not installed"
    return subprocess.run([str(command), *argv], env=job_env(), capture_output=True, text=True, timeout=HANG_SECONDS, check=False)


def _refusals(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("ndcg-spark:")]


def _job(tmp_path: Path, output: Path) -> list[str]:
    """The job's arguments for DATE (tests.publication's), on the tiny inputs."""
    return job_arguments(write(tmp_path / "j.parquet", JUDGMENTS), write(tmp_path / "r.parquet", RESULTS), output)


@pytest.mark.parametrize("which", list(_DAMAGED))
def test_a_damaged_lock_or_record_exits_3_and_repair_clears_it(tmp_path: Path, which: str) -> None:
    output = tmp_path / "out"
    output.mkdir()
    name, text, what, remedy = _DAMAGED[which]
    (output / name).write_text(text)
    refused = _run(*_job(tmp_path, output))
    assert refused.returncode == EXIT_INPUT_REJECTED, refused.stdout[-3000:] + refused.stderr[-3000:]
    [line] = _refusals(refused)
    assert f"{what} {output / name}" in line and remedy in line, line
    repaired = _run("--output", str(output), "--repair")
    assert repaired.returncode == EXIT_OK, repaired.stdout[-3000:] + repaired.stderr[-3000:]
    assert f"repaired {output}:" in repaired.stdout
    assert not (output / name).exists()
    assert _run(*_job(tmp_path, output)).returncode == EXIT_OK


def test_a_damaged_manifest_exits_3_for_a_gate_and_repair_sets_it_aside(tmp_path: Path) -> None:
    output = tmp_path / "out"
    first = _job(tmp_path, output)
    assert _run(*first).returncode == EXIT_OK
    manifest = output / MANIFEST_DIR / f"{DATE}.json"
    manifest.write_text(manifest.read_text()[:40])
    later = [*first[: first.index("--eval-date")], "--eval-date", "2026-12-02", "--fail-on-drop", "0.05", "--against-previous"]
    refused = _run(*later)
    assert refused.returncode == EXIT_INPUT_REJECTED, refused.stdout[-3000:] + refused.stderr[-3000:]
    [line] = _refusals(refused)
    assert f"manifest {manifest} is cut short or not JSON" in line
    assert line.endswith(f"or set the manifest aside with `ndcg-spark --output {output} --repair`")
    repaired = _run("--output", str(output), "--repair")
    assert repaired.returncode == EXIT_OK and f"set aside the unreadable manifest of {DATE}" in repaired.stdout
    assert _run(*first).returncode == EXIT_OK
    assert manifest.exists() and manifest.read_text().startswith("{")
