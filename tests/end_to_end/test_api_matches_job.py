"""The Python API against the job on the same data: the same rows, in the same schemas."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

from ndcg_spark import evaluate
from tests.conftest import JUDGMENTS, RESULTS, run_job, write
from tests.transforms.test_api import _frames, _types


def test_same_numbers_and_schemas_as_the_job(spark: SparkSession, tmp_path: Path) -> None:
    judgments, results = _frames(spark)
    report = evaluate(judgments, results, ks=(1, 2), baseline="r1", permutations=50, bootstrap=50)
    paths = (write(tmp_path / "j" / "part-0.parquet", JUDGMENTS), write(tmp_path / "r" / "part-0.parquet", RESULTS))
    output = tmp_path / "out"
    assert run_job(*paths, output, "--k", "1,2", "--baseline", "r1", "--permutations", "50", "--bootstrap", "50") == 0
    for name, frame in (("per_query", report.per_query), ("summary", report.summary), ("comparison", report.comparison)):
        published = spark.read.parquet(str(output / name))
        assert _types(frame) == _types(published), name
        assert sorted(map(tuple, frame.collect()), key=repr) == sorted(map(tuple, published.collect()), key=repr), name
    assert report.evaluation.judged_queries == 3 and report.evaluation.result_rows == 9
    assert "ndcg@1" in str(report) and "against baseline r1" in str(report)
