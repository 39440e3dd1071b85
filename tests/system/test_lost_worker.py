"""A lost machine changes no number: the job runs on a Spark standalone cluster on 127.0.0.1 (a
master and two one-core workers from the pip-installed pyspark), one worker is killed with its
executor from inside the main pass (a task of its second stage kills its own worker: see
tests/fault_injection.py), and the report must equal a clean local run exactly. Its per_query is
written by several tasks there, as a large input's is, and published whole. The cluster is always
torn down."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pyspark
import pytest

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.job.cli import main
from tests.conftest import HANG_SECONDS, ROOT, SHORT_LIVED_JVM, job_env, parquet_rows
from tests.fault_injection import LOSE_WORKER

HARNESS = ROOT / "tests" / "fault_injection.py"

SPARK_CLASS = Path(pyspark.__file__).parent / "bin" / "spark-class"
DATE = "2026-12-01"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# The cluster's JVMs (master, workers, executors) live for the test's minute, as a job's does: the
# short-lived options for them too (with the class data archive scripts/test.sh gives daemons).
# Six JVMs share the machine here: C1 alone took the test from 143 to 95 CPU seconds.
_CLUSTER_JVM = f"{os.environ.get('SPARK_DAEMON_JAVA_OPTS', '')} {SHORT_LIVED_JVM}".strip()


def _env() -> dict[str, str]:
    return job_env(pythonpath=True, SPARK_LOCAL_IP="127.0.0.1", SPARK_DAEMON_JAVA_OPTS=_CLUSTER_JVM)


def _spark_class(*args: str, log: Path) -> subprocess.Popen:
    # Its own process group: killing it takes the worker's executor down too, as a lost machine.
    handle = open(log, "w")  # noqa: SIM115 - closed with the process
    return subprocess.Popen(
        [str(SPARK_CLASS), *args], env=_env(), stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _alive_workers(ui_port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json", timeout=2) as reply:
            return int(json.load(reply).get("aliveworkers", 0))
    except OSError:
        return 0


@pytest.fixture()
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen]]]:
    port, ui = _free_port(), _free_port()
    processes = [
        _spark_class(
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(ui),
            log=tmp_path / "master.log",
        )
    ]
    try:
        for i in range(2):
            work = tmp_path / f"worker{i}"
            work.mkdir()
            processes.append(
                _spark_class(
                    "org.apache.spark.deploy.worker.Worker",
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    "1",
                    "--memory",
                    "1g",
                    "--work-dir",
                    str(work),
                    "--webui-port",
                    str(_free_port()),
                    f"spark://127.0.0.1:{port}",
                    log=tmp_path / f"worker{i}.log",
                )
            )
        deadline = time.time() + HANG_SECONDS  # the workers registered: polled, a bound only
        while _alive_workers(ui) < 2:
            assert time.time() < deadline, (tmp_path / "master.log").read_text()[-3000:]
            time.sleep(1)
        yield f"spark://127.0.0.1:{port}", processes
    finally:
        for process in reversed(processes):
            _stop(process)


def _inputs(folder: Path) -> tuple[str, str]:
    """1,000 queries x 20 results in 4 files: both executors hold shuffle files when one is lost."""
    rng = random.Random(5)
    queries, depth, judged, parts = 1_000, 20, 10, 4
    for name in ("judgments", "results"):
        (folder / name).mkdir(parents=True)
    for part in range(parts):
        ids = range(part * queries // parts, (part + 1) * queries // parts)
        results = {"query_id": [q for q in ids for _ in range(depth)], "doc_id": [2 * d for _ in ids for d in range(depth)]}
        results["score"] = [round(rng.random(), 2) for _ in results["query_id"]]
        judgments = {"query_id": [q for q in ids for _ in range(judged)], "doc_id": [d for _ in ids for d in range(judged)]}
        judgments["relevance"] = [rng.randrange(4) for _ in judgments["query_id"]]
        pq.write_table(pa.table(results), folder / "results" / f"part-{part}.parquet")
        pq.write_table(pa.table(judgments), folder / "judgments" / f"part-{part}.parquet")
    return str(folder / "judgments"), str(folder / "results")


@pytest.mark.slow
def test_killing_a_worker_changes_no_number(tmp_path: Path, cluster) -> None:
    master, processes = cluster
    judgments, results = _inputs(tmp_path / "data")
    flags = ["--judgments", judgments, "--results", results, "--eval-date", DATE, "--k", "5,10", "--no-html-report"]
    assert main([*flags, "--output", str(tmp_path / "local")]) == EXIT_OK

    output, mark = tmp_path / "cluster", tmp_path / "worker-lost"
    submit = Path(sys.executable).parent / "spark-submit"
    job = subprocess.run(
        [
            str(submit),
            "--master",
            master,
            "--total-executor-cores",
            "2",
            "--executor-memory",
            "512m",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            f"spark.executor.extraJavaOptions={_CLUSTER_JVM}",
            # per_query's 3,000 rows as a large one's: a file (and a task) per 500 rows.
            "--conf",
            "spark.sql.files.maxRecordsPerFile=500",
            str(HARNESS),
            f"{LOSE_WORKER}{mark}",
            *flags,
            "--output",
            str(output),
        ],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert job.returncode == EXIT_OK, job.stdout[-4000:]
    assert mark.read_text().startswith("stage "), "no task of the main pass killed its worker"
    assert sum(process.poll() is not None for process in processes[1:]) == 1  # one worker gone, one left
    assert "Lost executor" in job.stdout, job.stdout[-4000:]
    for name in ("per_query", "summary"):
        assert parquet_rows(output / name / f"eval_date={DATE}") == parquet_rows(tmp_path / "local" / name / f"eval_date={DATE}")
    # per_query written by several tasks (part-NNNNN is the task's partition; c00N its files) into
    # files of at most 500 rows, and published whole: the manifest records every file, and nothing
    # staged or set aside is left.
    parts = sorted(path.name for path in (output / "per_query" / f"eval_date={DATE}").glob("part-*.parquet"))
    assert len(parts) >= 6 and len({name.split("-")[1] for name in parts}) >= 2, parts
    recorded = json.loads((output / "_manifests" / f"{DATE}.json").read_text())["outputs"]["per_query"]
    assert sorted(item["name"] for item in recorded["files"]) == parts
    assert max(item["rows"] for item in recorded["files"]) <= 500 and recorded["rows"] == 3_000
    assert sum(item["rows"] for item in recorded["files"]) == 3_000
    assert not (output / "_staging").exists()
