"""The installed command as a team's script calls it: `ndcg-spark trec_eval -q -m all_trec QRELS
RUN` in place of `trec_eval ...`, its stdout byte for byte trec_eval's, Spark's logs on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import HANG_SECONDS, job_env


@pytest.mark.slow
def test_the_installed_command_prints_trec_evals_output(tmp_path: Path, conformance_dir: str) -> None:
    command = Path(sys.executable).parent / "ndcg-spark"
    assert command.exists(), "the ndcg-spark console script is not installed"
    files = [os.path.join(conformance_dir, name) for name in ("qrels.test", "results.test")]
    done = subprocess.run(
        [str(command), "trec_eval", "-q", "-m", "all_trec", *files],
        cwd=tmp_path,
        env=job_env(),
        capture_output=True,
        timeout=HANG_SECONDS,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout == Path(conformance_dir, "out.test.aq").read_bytes()
