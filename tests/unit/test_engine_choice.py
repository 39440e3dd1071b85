"""auto's choice of engine for the job: local paths that fit in memory run in this process, anything
else on Spark, each with the reason it logs; --engine local refuses what it cannot read."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import ConfigError
from ndcg_spark.job import engine
from ndcg_spark.job.command_line import parse_args
from ndcg_spark.job.engine import BYTES_PER_ROW, choose_engine
from ndcg_spark.progress import SPARK_SUBMIT_GATEWAY


@pytest.fixture()
def paths(tmp_path: Path) -> tuple[str, str]:
    judgments, results = tmp_path / "j.parquet", tmp_path / "r"
    pq.write_table(pa.table({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]}), judgments)
    results.mkdir()
    for part in range(2):  # a folder of two files: 5 rows each
        pq.write_table(
            pa.table({"query_id": ["q"] * 5, "doc_id": list("abcde"), "score": [1.0] * 5}), results / f"p{part}.parquet"
        )
    return str(judgments), str(results)


def _config(judgments: str, results: str, *extra: str):  # noqa: ANN202 - a JobConfig
    return parse_args(["--judgments", judgments, "--results", results, "--output", "out", *extra])


def test_local_paths_that_fit_run_locally_and_say_how_much(paths: tuple[str, str], monkeypatch) -> None:
    monkeypatch.delenv(SPARK_SUBMIT_GATEWAY, raising=False)
    monkeypatch.setattr(engine, "available_memory", lambda: 10 * 2**30)
    chosen = choose_engine(_config(*paths))
    assert chosen.engine == "local"
    assert chosen.reason == "auto: every path is local and 13 input rows need about 0.0 GB, 10.0 GB available"


def test_inputs_past_half_the_memory_go_to_spark(paths: tuple[str, str], monkeypatch) -> None:
    monkeypatch.delenv(SPARK_SUBMIT_GATEWAY, raising=False)
    monkeypatch.setattr(engine, "available_memory", lambda: 2 * 13 * BYTES_PER_ROW - 1)  # 13 rows need half of it, and 1 byte
    chosen = choose_engine(_config(*paths))
    assert chosen.engine == "spark" and chosen.reason.endswith("more than 50% of it")


def test_a_path_of_another_file_system_or_spark_submit_means_spark(paths: tuple[str, str], monkeypatch) -> None:
    monkeypatch.delenv(SPARK_SUBMIT_GATEWAY, raising=False)
    chosen = choose_engine(_config(paths[0], "s3a://bucket/runs"))
    assert (chosen.engine, chosen.reason) == ("spark", "auto: results s3a://bucket/runs is not a local path")
    assert choose_engine(parse_args(["--judgments", paths[0], "--results", paths[1], "--output", "hdfs:///x"])).engine == "spark"
    monkeypatch.setenv(SPARK_SUBMIT_GATEWAY, "12345")
    assert choose_engine(_config(*paths)) == engine.EngineChoice("spark", "auto: run by spark-submit")


def test_forced_engines(paths: tuple[str, str], monkeypatch) -> None:
    monkeypatch.setenv(SPARK_SUBMIT_GATEWAY, "12345")  # forced: spark-submit or not
    assert choose_engine(_config(*paths, "--engine", "local")).engine == "local"
    monkeypatch.delenv(SPARK_SUBMIT_GATEWAY)
    assert choose_engine(_config(*paths, "--engine", "spark")).engine == "spark"
    with pytest.raises(ConfigError, match=r"--engine local reads and writes local paths only: results s3a://b/r is not"):
        choose_engine(_config(paths[0], "s3a://b/r", "--engine", "local"))


def test_text_inputs_are_bounded_from_their_size(tmp_path: Path, monkeypatch) -> None:
    """A trec_eval text's rows are bounded by its size (at least 12 bytes a line): 120 bytes, 10 rows."""
    monkeypatch.delenv(SPARK_SUBMIT_GATEWAY, raising=False)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_bytes(b"q 0 d 1\n" * 15)  # 120 bytes
    run.write_bytes(b"q Q0 d 1 1.0 r\n" * 8)  # 120 bytes
    config = _config(str(qrels), str(run), "--judgments-format", "trec", "--results-format", "trec")
    assert engine.input_rows(config) == 20
