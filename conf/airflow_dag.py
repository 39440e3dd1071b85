"""Airflow: score yesterday's rankings every night with ndcg-spark.

Copy into the DAGs folder; needs apache-airflow-providers-apache-spark and a Spark connection
(`spark_default`) pointing at the cluster. `{{ ds }}` is the run's logical date: a backfill or a
retry rewrites exactly its own eval date (the job publishes each date atomically). The job's exit
code drives the retries: 1 is transient (Airflow retries it), 2 and 3 are a bad config or a
rejected input, which a retry cannot fix (see docs/operations.md, exit codes).
"""

from __future__ import annotations

import datetime as dt

from airflow import DAG
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

PACKAGE = "/opt/ndcg-spark/dist"  # scripts/package.sh output, deployed to the Airflow workers

with DAG(
    dag_id="ndcg_nightly",
    schedule="30 2 * * *",  # after the day's judgments and results have landed
    start_date=dt.datetime(2026, 12, 1),
    catchup=True,
    max_active_runs=1,
    default_args={"retries": 2, "retry_delay": dt.timedelta(minutes=15)},
) as dag:
    SparkSubmitOperator(
        task_id="evaluate_ndcg",
        conn_id="spark_default",
        application=f"{PACKAGE}/evaluate_ndcg.py",
        py_files=f"{PACKAGE}/ndcg_spark.zip",
        files="/opt/ndcg-spark/conf/cluster.toml",
        application_args=["--config", "cluster.toml", "--eval-date", "{{ ds }}", "--log-format", "json"],
        conf={"spark.sql.adaptive.enabled": "true"},
        executor_memory="8g",
        num_executors=16,
        executor_cores=4,
        deploy_mode="cluster",
        name="ndcg-nightly-{{ ds }}",
    )
