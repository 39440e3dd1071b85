"""NdcgEvaluator: trec_eval's NDCG@k from a frame of (query, candidate, label, prediction), in
pyspark.ml's tuning and persistence."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pyspark.ml import Pipeline
from pyspark.ml.feature import VectorAssembler
from pyspark.ml.regression import LinearRegression
from pyspark.ml.tuning import CrossValidator, ParamGridBuilder, TrainValidationSplit
from pyspark.sql import SparkSession

from ndcg_spark import ConfigError, NdcgEvaluator
from tests import oracle
from tests.conftest import rows_frame
from tests.connect_scenarios import tuning_frame


def test_mean_ndcg_at_k_with_ties_and_an_all_zero_query(spark: SparkSession) -> None:
    rows = [
        ("q1", "a", 3.0, 0.9),
        ("q1", "b", 2.0, 0.8),
        ("q1", "c", 3.0, 0.7),
        ("q1", "d", 0.0, 0.6),
        ("q1", "e", 1.0, 0.5),
        ("q2", "x", 1.0, 0.5),
        ("q2", "y", 2.0, 0.5),  # a tie: y before x (doc id descending)
        ("q3", "m", 0.0, 0.1),  # IDCG 0: scores 0, still counted
    ]
    frame = rows_frame(spark, rows, "qid string, doc string, label double, prediction double")
    evaluator = NdcgEvaluator(k=5, queryCol="qid", docCol="doc")
    expected = oracle.ndcg([("run", q, d, p) for q, d, _, p in rows], [(q, d, int(label)) for q, d, label, _ in rows], ks=[5])
    per_query = [expected[("run", q, 5)] for q in ("q1", "q2", "q3")]
    worked = (3 + 2 / math.log2(3) + 3 / 2 + 1 / math.log2(6)) / (3 + 3 / math.log2(3) + 2 / 2 + 1 / math.log2(5))
    assert per_query[0] == pytest.approx(worked, rel=1e-12) and per_query[2] == 0.0
    assert evaluator.evaluate(frame) == pytest.approx(sum(per_query) / 3, abs=1e-12)
    exponential = NdcgEvaluator(k=5, queryCol="qid", docCol="doc", gain="exponential").evaluate(frame)
    assert exponential != pytest.approx(evaluator.evaluate(frame))
    assert evaluator.isLargerBetter()
    with pytest.raises(ConfigError, match="gain must be one of linear, exponential, got 'cubic'"):
        NdcgEvaluator(k=5, queryCol="qid", docCol="doc", gain="cubic").evaluate(frame)


@pytest.mark.parametrize(
    ("metric", "k", "level", "measure"),
    [
        ("ndcgAtK", 3, 1, ("ndcg_cut", 3)),
        ("precisionAtK", 2, 1, ("P", 2)),
        ("recallAtK", 2, 2, ("recall", 2)),
        ("meanAveragePrecision", 10, 1, ("map", None)),
        ("meanAveragePrecisionAtK", 2, 2, ("map_cut", 2)),
        ("P@1", 10, 1, ("P", 1)),
        ("RR", 10, 2, ("recip_rank", None)),
        ("bpref", 10, 1, ("bpref", None)),
        ("success", 1, 3, ("success", 1)),
    ],
)
def test_metric_name_takes_sparks_names_and_trec_evals(spark: SparkSession, metric: str, k: int, level: int, measure) -> None:
    """Each name gives the oracle's mean of that measure (at k when it names no cutoff), at the
    relevance level; Spark's own names included, so a tuning script keeps its parameters."""
    rows = [
        ("q1", "a", 3.0, 0.9),
        ("q1", "b", 0.0, 0.8),
        ("q1", "c", 2.0, 0.7),
        ("q1", "d", 1.0, 0.6),
        ("q2", "x", 1.0, 0.5),
        ("q2", "y", 2.0, 0.5),
        ("q3", "m", 0.0, 0.1),
    ]
    frame = rows_frame(spark, rows, "query_id string, doc_id string, label double, prediction double")
    evaluator = NdcgEvaluator(metricName=metric, k=k, relevanceLevel=level)
    results = [("run", q, d, p) for q, d, _, p in rows]
    judgments = [(q, d, int(label)) for q, d, label, _ in rows]
    if measure[0] == "ndcg_cut":
        values = [value for (_, _, key), value in oracle.ndcg(results, judgments, ks=[k]).items() if key == k]
    else:
        values = list(oracle.binary(results, judgments, [measure], level=level).values())
    assert len(values) == 3
    assert evaluator.evaluate(frame) == pytest.approx(sum(values) / 3, abs=1e-12)
    assert evaluator.isLargerBetter() and evaluator.getMetricName() == metric


def test_an_unknown_metric_name_is_refused_naming_it(spark: SparkSession) -> None:
    frame = rows_frame(spark, [("q", "a", 1.0, 0.5)], "query_id string, doc_id string, label double, prediction double")
    with pytest.raises(ConfigError, match="metricName.*'areaUnderROC'.*ndcgAtK, precisionAtK"):
        NdcgEvaluator(metricName="areaUnderROC").evaluate(frame)


def _fold_mean(model, validation) -> float:
    """The oracle's mean NDCG@3 of a model's predictions on a validation frame (every candidate
    judged: its label, the grade)."""
    rows = model.transform(validation).select("query_id", "doc_id", "label", "prediction").collect()
    per_query = oracle.ndcg(
        [("run", r.query_id, r.doc_id, r.prediction) for r in rows],
        [(r.query_id, r.doc_id, int(r.label)) for r in rows],
        ks=[3],
    )
    at_3 = [value for (_, _, k), value in per_query.items() if k == 3]
    return sum(at_3) / len(at_3)


def _pipeline() -> tuple[Pipeline, list]:
    """A regression on one feature, chosen by the grid: `good` (the label itself) or `noise`."""
    regression = LinearRegression(maxIter=5)
    pipeline = Pipeline(
        stages=[
            VectorAssembler(inputCols=["good"], outputCol="by_good"),
            VectorAssembler(inputCols=["noise"], outputCol="by_noise"),
            regression,
        ]
    )
    return pipeline, ParamGridBuilder().addGrid(regression.featuresCol, ["by_noise", "by_good"]).build()


def test_cross_validator_picks_the_telling_feature_with_the_oracles_fold_values(spark: SparkSession, tmp_path: Path) -> None:
    frame = tuning_frame(spark)
    pipeline, grid = _pipeline()
    evaluator = NdcgEvaluator(k=3)
    tuning = CrossValidator(
        estimator=pipeline, estimatorParamMaps=grid, evaluator=evaluator, numFolds=2, seed=7, collectSubModels=True
    )
    model = tuning.fit(frame)
    assert model.bestModel.stages[-1].getFeaturesCol() == "by_good"
    folds = tuning._kFold(frame)  # the folds fit() drew: the same seed, the same split
    for j in range(len(grid)):
        by_fold = [_fold_mean(model.subModels[i][j], validation) for i, (_, validation) in enumerate(folds)]
        assert model.avgMetrics[j] == pytest.approx(sum(by_fold) / len(folds), abs=1e-12)
    noise, good = model.avgMetrics
    assert good > noise + 0.03, model.avgMetrics

    evaluator.save(str(tmp_path / "evaluator"))
    loaded = NdcgEvaluator.load(str(tmp_path / "evaluator"))
    assert (loaded.getK(), loaded.getGain(), loaded.getQueryCol()) == (3, "linear", "query_id")
    scored = model.transform(frame)
    assert loaded.evaluate(scored) == evaluator.evaluate(scored) == pytest.approx(_fold_mean(model, frame), abs=1e-12)
    tuning.save(str(tmp_path / "tuning"))
    assert isinstance(CrossValidator.load(str(tmp_path / "tuning")).getEvaluator(), NdcgEvaluator)


def test_train_validation_split_picks_the_telling_feature(spark: SparkSession) -> None:
    pipeline, grid = _pipeline()
    split = TrainValidationSplit(estimator=pipeline, estimatorParamMaps=grid, evaluator=NdcgEvaluator(k=3), seed=7)
    model = split.fit(tuning_frame(spark))
    assert model.bestModel.stages[-1].getFeaturesCol() == "by_good"
    noise, good = model.validationMetrics
    assert good > noise + 0.03 and 0.0 <= noise, model.validationMetrics
