"""The documented command itself: spark-submit of the pip-installed pyspark runs the job."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import HANG_SECONDS, JUDGMENTS, RESULTS, job_env, write

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_spark_submit_runs_the_job(tmp_path: Path) -> None:
    spark_submit = Path(sys.executable).parent / "spark-submit"
    if not spark_submit.exists():
        found = shutil.which("spark-submit")
        assert found, "spark-submit of the installed pyspark not found"
        spark_submit = Path(found)
    judgments = write(tmp_path / "j.parquet", JUDGMENTS)
    results = write(tmp_path / "r.parquet", RESULTS)
    output = tmp_path / "out"
    events = tmp_path / "events"
    events.mkdir()
    env = job_env()
    done = subprocess.run(
        [
            str(spark_submit),
            "--conf",
            "spark.ui.enabled=false",
            # Spark's event log records the settings the session ran with: the progress bar's too.
            "--conf",
            "spark.eventLog.enabled=true",
            "--conf",
            f"spark.eventLog.dir={events.as_uri()}",
            "--conf",
            "spark.eventLog.compress=false",
            "--driver-java-options",
            f"-Dlog4j2.configurationFile={ROOT / 'ndcg_spark' / 'log4j2.properties'}",
            str(ROOT / "jobs" / "evaluate_ndcg.py"),
            "--judgments",
            judgments,
            "--results",
            results,
            "--output",
            str(output),
            "--k",
            "1,2",
            "--no-html-report",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ndcg@1" in done.stdout
    # Not a terminal: the steps as JSON lines, and Spark's progress bar off. Asserted on the
    # setting the session ran with, from the event log: the bar itself is drawn only for a stage
    # slower than half a second, so its absence from the output proves nothing on a fast machine.
    assert '"step": "main pass"' in done.stderr and "[Stage" not in done.stdout + done.stderr
    # stdout holds the tables alone: spark-submit merges the driver's stderr into its stdout, so the
    # logs go to the JVM's own stderr.
    assert '"step"' not in done.stdout
    logged = [path for path in events.rglob("*") if path.is_file() and not path.name.startswith(".")]
    environment = next(
        json.loads(line)
        for path in logged
        for line in path.read_text().splitlines()
        if '"Event":"SparkListenerEnvironmentUpdate"' in line
    )
    assert environment["Spark Properties"]["spark.ui.showConsoleProgress"] == "false"
    assert pq.read_table(output / "summary").num_rows == 2 * 3  # runs x (k=1, 2, uncut)

    rejected = subprocess.run(
        [
            str(spark_submit),
            "--conf",
            "spark.ui.enabled=false",
            str(ROOT / "jobs" / "evaluate_ndcg.py"),
            "--judgments",
            judgments,
            "--results",
            str(tmp_path / "missing"),
            "--output",
            str(tmp_path / "o2"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert rejected.returncode == 3
    # The refusal on stderr, the JVM's (spark-submit's PythonRunner merges the driver's own stderr into stdout)
    assert "ndcg-spark: results" in rejected.stderr and "ndcg-spark:" not in rejected.stdout
    assert not (tmp_path / "o2").exists()

    # Spark Connect: refused before anything is read, as a usage error (docs/operations.md).
    connect = subprocess.run(
        [
            str(spark_submit),
            "--conf",
            "spark.api.mode=connect",
            str(ROOT / "jobs" / "evaluate_ndcg.py"),
            "--judgments",
            judgments,
            "--results",
            results,
            "--output",
            str(tmp_path / "o3"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert connect.returncode == 2, connect.stdout[-3000:] + connect.stderr[-3000:]
    refusal = [line for line in (connect.stdout + connect.stderr).splitlines() if line.startswith("ndcg-spark:")]
    assert len(refusal) == 1 and "runs on a classic Spark session, not on Spark Connect" in refusal[0], refusal
    assert not (tmp_path / "o3").exists()


@pytest.mark.slow
def test_installed_command_runs_in_local_mode_and_on_a_terminal(tmp_path: Path) -> None:
    """`pip install .` puts `ndcg-spark` on the PATH: the job with no spark-submit, in local mode.
    It runs under a pseudo-terminal (script(1)), as a person at a terminal sees it: readable steps
    (the JSON lines of a scheduler's log are checked above). Spark's progress bar is not asserted:
    Spark draws it only for a stage slower than half a second, which a tiny job on a fast machine
    never has; that a terminal turns it on is checked in tests/unit/test_progress.py."""
    command = Path(sys.executable).parent / "ndcg-spark"
    assert command.exists(), "the ndcg-spark console script is not installed"
    judgments = write(tmp_path / "j.parquet", JUDGMENTS)
    results = write(tmp_path / "r.parquet", RESULTS)
    argv = [
        str(command),
        "--judgments",
        judgments,
        "--results",
        results,
        "--output",
        str(tmp_path / "out"),
        "--k",
        "1,2",
        "--no-html-report",
        "--engine",
        "spark",  # Spark's local mode on purpose: its progress bar on a terminal
    ]
    script = shutil.which("script")
    log = tmp_path / "terminal.log"
    if script is None:
        done = subprocess.run(argv, cwd=tmp_path, env=job_env(), capture_output=True, text=True, timeout=HANG_SECONDS)
        log.write_text(done.stdout + done.stderr)
    else:
        done = subprocess.run(
            [script, "-qec", shlex.join(argv), str(log)],
            cwd=tmp_path,
            env=job_env(),
            capture_output=True,
            text=True,
            timeout=HANG_SECONDS,
        )
    seen = log.read_text(errors="replace")
    assert done.returncode == 0, seen[-3000:]
    assert "ndcg@1" in seen
    assert pq.read_table(tmp_path / "out" / "summary").num_rows == 2 * 3
    usage = subprocess.run(
        [str(command), "--judgments", judgments, "--results", results, "--output", "o", "--k", "0"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert usage.returncode == 2 and "ks must be positive integers" in usage.stderr
    if script is None:
        pytest.skip("the terminal part needs script(1) from util-linux")
    assert "ndcg-spark: summary done in" in seen and '"step"' not in seen
    # quiet by default (the package's log4j2.properties): none of Spark's own console lines
    assert "Setting default log level" not in seen and "log4j" not in seen and " WARN " not in seen, seen[-3000:]
