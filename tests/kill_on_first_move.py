"""Test helper, run as a script: the job, killed (its whole process group: Python and the JVM)
the instant the first file of its report is moved into place.

    python tests/kill_on_first_move.py JOB ARGUMENTS...
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ndcg_spark.publish.commit as commit  # noqa: E402
from ndcg_spark.job.cli import main  # noqa: E402

_place = commit.place


def place_then_die(fs, move) -> None:  # noqa: ANN001 - the signature of commit.place
    _place(fs, move)
    os.killpg(os.getpgid(0), signal.SIGKILL)


commit.place = place_then_die
sys.exit(main(sys.argv[1:]))
