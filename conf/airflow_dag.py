"""Airflow: score yesterday's rankings every night with ndcg-spark, and stop what depends on the
model when quality dropped.

Copy into the DAGs folder of Airflow 2.7+ with spark-submit on its workers' PATH. `{{ ds }}` is
the run's logical date: a backfill or a retry rewrites exactly its own eval date (the job
publishes each date atomically). Each night is gated against the previous published one
(--against-previous --fail-on-drop). The job's exit code decides what Airflow does
(docs/operations.md#a-nightly-setup): 1 is transient and retried; 2 (config), 3 (input) and 4
(quality dropped, the report published) fail the task at once, since a retry gives the same
answer. spark-submit runs in client mode, so that its exit code is the job's.
"""

from __future__ import annotations

import datetime as dt
import subprocess

from airflow import DAG
from airflow.exceptions import AirflowException, AirflowFailException
from airflow.operators.python import PythonOperator

PACKAGE = "/opt/ndcg-spark/dist"  # scripts/package.sh output, deployed to the Airflow workers
CONFIG = "/opt/ndcg-spark/conf/cluster.toml"
# The job's exit codes (ndcg_spark.errors): not worth a retry.
FINAL = {2: "bad config or flags", 3: "an input was rejected", 4: "quality dropped (the report is published)"}


def evaluate(ds: str) -> None:
    command = [
        "spark-submit",
        "--master", "yarn",
        "--deploy-mode", "client",
        "--num-executors", "16", "--executor-cores", "4", "--executor-memory", "8g",
        "--py-files", f"{PACKAGE}/ndcg_spark.zip",
        f"{PACKAGE}/evaluate_ndcg.py",
        "--config", CONFIG,
        "--eval-date", ds,
        "--against-previous", "--fail-on-drop", "0.01",
        "--log-format", "json",
    ]  # fmt: skip
    code = subprocess.run(command, check=False).returncode
    if code in FINAL:
        raise AirflowFailException(f"ndcg-spark exit {code}: {FINAL[code]}")
    if code != 0:
        raise AirflowException(f"ndcg-spark exit {code}: transient, retried")


with DAG(
    dag_id="ndcg_nightly",
    schedule="30 2 * * *",  # after the day's judgments and results have landed
    start_date=dt.datetime(2026, 12, 1),
    catchup=True,
    max_active_runs=1,  # nights in order: each is gated against the one before
    default_args={"retries": 2, "retry_delay": dt.timedelta(minutes=15)},
) as dag:
    PythonOperator(task_id="evaluate_ndcg", python_callable=evaluate, op_kwargs={"ds": "{{ ds }}"})
