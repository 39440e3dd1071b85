"""A refusal in a process of its own, as a scheduler sees it: stderr holds the one line and
nothing from the JVM beyond its start-up notice. An unknown --baseline found while the main pass
writes (a writing pass the test stands in for, cancelled mid-write) used to print the writer's
SPARK_JOB_CANCELLED stack, 38 lines; a local input that is not there is refused before a JVM
starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_USAGE
from tests.conftest import HANG_SECONDS, JUDGMENTS, RESULTS, job_env, write

pytestmark = pytest.mark.slow

_JVM_NOTICE = "WARNING: Using incubator modules"  # the JVM's own, at every start of Spark 4's
# The main pass replaced by one that writes until it is cancelled, then the command's main.
_SCRIPT = """
import sys
import ndcg_spark.job.run as job_run
from ndcg_spark.job.cli import main

def writing_pass(spark, *args, **kwargs):
    for i in range(600):
        spark.range(2 * 10**6).selectExpr("id", "id % 7 AS x").write.mode("overwrite").parquet(sys.argv[1] + "/scratch")

job_run.evaluate_checked = writing_pass
sys.exit(main(sys.argv[2:]))
"""


def _stderr(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.strip() and not line.startswith(_JVM_NOTICE)]


def _python(script: str, *argv: str) -> subprocess.CompletedProcess[str]:
    """The script in a Python of its own, as a scheduler starts the command."""
    command = [sys.executable, "-c", script, *argv]
    return subprocess.run(command, env=job_env(), capture_output=True, text=True, timeout=HANG_SECONDS, check=False)


def test_an_unknown_baseline_found_mid_write_prints_one_line(tmp_path: Path) -> None:
    judgments, results = write(tmp_path / "j.parquet", JUDGMENTS), write(tmp_path / "r.parquet", RESULTS)
    argv = ["--judgments", judgments, "--results", results, "--output", str(tmp_path / "out"), "--baseline", "nope"]
    done = _python(_SCRIPT, str(tmp_path), *argv)
    assert done.returncode == EXIT_USAGE, done.stderr[-3000:]
    assert _stderr(done) == ["ndcg-spark: baseline run 'nope' is not in the results (runs: r1, r2)"]


def test_a_missing_local_input_is_refused_before_spark(tmp_path: Path) -> None:
    judgments = write(tmp_path / "j.parquet", JUDGMENTS)
    missing = str(tmp_path / "nowhere")
    script = (
        "import sys\n"
        "from ndcg_spark.job.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print(sorted(name for name in ('pyspark.sql.session',) if name in sys.modules and\n"
        "    sys.modules[name].SparkSession._instantiatedSession is not None))\n"
        "sys.exit(code)\n"
    )
    done = _python(script, "--judgments", judgments, "--results", missing, "--output", str(tmp_path / "out"))
    assert done.returncode == EXIT_INPUT_REJECTED, done.stderr[-3000:]
    assert _stderr(done) == [f"ndcg-spark: results {missing}: no such file or folder"]
    assert done.stdout.strip() == "[]"  # no session was started
    assert not (tmp_path / "out").exists()
