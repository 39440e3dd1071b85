from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

from ndcg_spark.job.session import BASE_CONF


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("ndcg-spark-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.ansi.enabled", "true")
    )
    for key, value in BASE_CONF.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def conformance_dir() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "shared", "conformance", "trec_eval")
    path = os.path.normpath(os.environ.get("NDCG_CONFORMANCE_DIR", path))
    if not os.path.isdir(path):
        pytest.fail(f"conformance data not found at {path} (set NDCG_CONFORMANCE_DIR)")
    return path
