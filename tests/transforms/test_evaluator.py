"""NdcgEvaluator: trec_eval's NDCG@k from a frame of (query, candidate, label, prediction), in
pyspark.ml's tuning and persistence."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pyspark.ml import Pipeline
from pyspark.ml.feature import VectorAssembler
from pyspark.ml.regression import LinearRegression
from pyspark.ml.tuning import CrossValidator, ParamGridBuilder
from pyspark.sql import SparkSession

from ndcg_spark import ConfigError, NdcgEvaluator
from tests import oracle
from tests.conftest import rows_frame


def test_mean_ndcg_at_k_with_ties_and_an_all_zero_query(spark: SparkSession) -> None:
    rows = [
        ("q1", "a", 3.0, 0.9), ("q1", "b", 2.0, 0.8), ("q1", "c", 3.0, 0.7), ("q1", "d", 0.0, 0.6), ("q1", "e", 1.0, 0.5),
        ("q2", "x", 1.0, 0.5), ("q2", "y", 2.0, 0.5),  # a tie: y before x (doc id descending)
        ("q3", "m", 0.0, 0.1),  # IDCG 0: scores 0, still counted
    ]
    frame = rows_frame(spark, rows, "qid string, doc string, label double, prediction double")
    evaluator = NdcgEvaluator(k=5, queryCol="qid", docCol="doc")
    expected = oracle.ndcg(
        [("run", q, d, p) for q, d, _, p in rows], [(q, d, int(label)) for q, d, label, _ in rows], ks=[5]
    )
    per_query = [expected[("run", q, 5)] for q in ("q1", "q2", "q3")]
    worked = (3 + 2 / math.log2(3) + 3 / 2 + 1 / math.log2(6)) / (3 + 3 / math.log2(3) + 2 / 2 + 1 / math.log2(5))
    assert per_query[0] == pytest.approx(worked, rel=1e-12) and per_query[2] == 0.0
    assert evaluator.evaluate(frame) == pytest.approx(sum(per_query) / 3, abs=1e-12)
    exponential = NdcgEvaluator(k=5, queryCol="qid", docCol="doc", gain="exponential").evaluate(frame)
    assert exponential != pytest.approx(evaluator.evaluate(frame))
    assert evaluator.isLargerBetter()
    with pytest.raises(ConfigError, match="gain must be one of linear, exponential, got 'cubic'"):
        NdcgEvaluator(k=5, queryCol="qid", docCol="doc", gain="cubic").evaluate(frame)


def test_cross_validator_and_save_load(spark: SparkSession, tmp_path: Path) -> None:
    rows = [(f"q{q}", f"d{d}", float((q + d) % 3), float(d), float((q * d) % 5)) for q in range(12) for d in range(6)]
    frame = rows_frame(spark, rows, "query_id string, doc_id string, label double, f1 double, f2 double")
    assembler = VectorAssembler(inputCols=["f1", "f2"], outputCol="features")
    regression = LinearRegression(maxIter=5)
    evaluator = NdcgEvaluator(k=3)
    grid = ParamGridBuilder().addGrid(regression.regParam, [0.0, 1.0]).build()
    tuning = CrossValidator(
        estimator=Pipeline(stages=[assembler, regression]), estimatorParamMaps=grid, evaluator=evaluator,
        numFolds=2, seed=7,
    )
    model = tuning.fit(frame)
    assert len(model.avgMetrics) == 2 and all(0.0 <= metric <= 1.0 for metric in model.avgMetrics)

    evaluator.save(str(tmp_path / "evaluator"))
    loaded = NdcgEvaluator.load(str(tmp_path / "evaluator"))
    assert (loaded.getK(), loaded.getGain(), loaded.getQueryCol()) == (3, "linear", "query_id")
    scored = model.transform(frame)
    assert loaded.evaluate(scored) == evaluator.evaluate(scored)
    tuning.save(str(tmp_path / "tuning"))
    assert isinstance(CrossValidator.load(str(tmp_path / "tuning")).getEvaluator(), NdcgEvaluator)
