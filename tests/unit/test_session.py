"""Which kind of session the job is asked for, known before Spark starts: it refuses Spark Connect."""

from __future__ import annotations

import json

import pytest

from ndcg_spark.errors import ConfigError
from ndcg_spark.job import run
from ndcg_spark.job.session import asks_for_connect
from ndcg_spark.job.settings import JobConfig
from ndcg_spark.sessions import is_connect

_MODE_VARIABLES = ("SPARK_API_MODE", "SPARK_REMOTE", "PYSPARK_REMOTE_INIT_CONF_LEN", "PYSPARK_REMOTE_INIT_CONF_0")


@pytest.fixture()
def clean(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _MODE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _config(**spark: str) -> JobConfig:
    return JobConfig(judgments="j", results=((None, "r"),), output="o", spark_conf=spark)


def test_classic_by_default(clean: pytest.MonkeyPatch) -> None:
    assert not asks_for_connect(_config())
    assert not asks_for_connect(_config(**{"spark.api.mode": "classic"}))


def test_the_config_files_spark_table(clean: pytest.MonkeyPatch) -> None:
    assert asks_for_connect(_config(**{"spark.api.mode": "Connect"}))


def test_spark_submits_conf_and_the_environment(clean: pytest.MonkeyPatch) -> None:
    # spark-submit --conf spark.api.mode=connect hands a Python driver its settings this way
    clean.setenv("PYSPARK_REMOTE_INIT_CONF_LEN", "1")
    clean.setenv("PYSPARK_REMOTE_INIT_CONF_0", json.dumps({"spark.api.mode": "connect", "spark.master": "local[*]"}))
    assert asks_for_connect(_config())
    clean.setenv("PYSPARK_REMOTE_INIT_CONF_0", json.dumps({"spark.master": "local[*]"}))
    assert not asks_for_connect(_config())
    clean.setenv("SPARK_API_MODE", "connect")
    assert asks_for_connect(_config())
    clean.delenv("SPARK_API_MODE")
    clean.setenv("SPARK_REMOTE", "sc://localhost")
    assert asks_for_connect(_config())


class ConnectLike:
    """A stand-in whose class lives where Spark Connect's do."""


ConnectLike.__module__ = "pyspark.sql.connect.session"


def test_a_session_is_told_by_its_class() -> None:
    assert is_connect(ConnectLike())  # type: ignore[arg-type]
    assert not is_connect(object())  # type: ignore[arg-type]


def test_a_connect_session_missed_before_it_starts_is_refused_once_built(clean: pytest.MonkeyPatch) -> None:
    """The fallback of asks_for_connect: spark-submit's variables not seen (say, a later Spark
    passes them otherwise), the session built is Connect's, and the job refuses it all the same."""

    class Builder:
        def appName(self, name: str) -> Builder:  # noqa: N802 - pyspark's spelling
            return self

        def config(self, key: str, value: str) -> Builder:
            return self

        def getOrCreate(self) -> ConnectLike:  # noqa: N802
            return ConnectLike()

    clean.setattr(run.SparkSession, "builder", Builder())
    with pytest.raises(ConfigError, match="the job runs on a classic Spark session, not on Spark Connect"):
        run.build_session(_config(), interactive=False)
