"""The Python API's scenarios that must give the same rows on both kinds of SparkSession.

Each scenario takes a session and a scratch folder and returns plain data (rows as lists, errors
as their type and message), which JSON carries bit for bit (floats as their shortest round-trip
text). pyspark picks Spark Connect or classic for a whole process (SPARK_CONNECT_MODE_ENABLED
switches every function of pyspark.sql.functions), so the Connect side runs in a process of its
own:

    python -m tests.connect_scenarios OUT.json SCRATCH_DIR

starts a local Connect server from the pyspark package (`SparkSession.builder.remote("local[2]")`,
no network, no download) and writes every scenario's result; tests/system/test_connect.py runs the
same functions on the classic test session and compares."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import NdcgSparkError, compare, evaluate, gate, published_dates, read_qrels, read_report, read_run
from ndcg_spark import columns as c
from ndcg_spark.checks.inputs import JUDGMENTS, RESULTS, Source, canonical_inputs
from ndcg_spark.evaluation import main_pass
from ndcg_spark.options import Options
from ndcg_spark.scoring.plan import ScoringPlan
from ndcg_spark.sessions import is_connect
from ndcg_spark.spark_conf import ADAPTIVE, PLAN_CONF, session_settings
from tests.conftest import CODEGEN_CACHE, rows_frame
from tests.plans import counts
from tests.references import generated
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL

Result = dict[str, Any]
Scenario = Callable[[SparkSession, Path], Result]

WORKED_EXAMPLE = [3, 2, 3, 0, 1]  # grades of docs d1..d5, ranked in this order: DCG@5 6.149, IDCG@5 6.323


def _frames(spark: SparkSession, seed: int) -> tuple[DataFrame, DataFrame]:
    results, judgments = generated(seed)
    return (
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
    )


def _rows(frame: DataFrame | None) -> list[list[Any]]:
    """Every row as a list, in one fixed order, whatever the partitioning."""
    if frame is None:
        return []
    return sorted(([*row] for row in frame.collect()), key=repr)


def _report(report: Any) -> Result:
    return {
        "per_query": _rows(report.per_query),
        "summary": _rows(report.summary),
        "comparison": _rows(report.comparison),
        "slices": _rows(report.slices),
        "schemas": [frame.schema.simpleString() for frame in (report.per_query, report.summary)],
    }


def _refusal(call: Callable[[], object]) -> Result:
    try:
        call()
    except NdcgSparkError as error:
        return {"error": type(error).__name__, "message": str(error)}
    return {"error": None}


def worked_example(spark: SparkSession, scratch: Path) -> Result:
    judgments = rows_frame(spark, [("q1", f"d{i}", grade) for i, grade in enumerate(WORKED_EXAMPLE, 1)], JUDGMENTS_DDL)
    results = rows_frame(spark, [("r", "q1", f"d{i}", 10.0 - i, None) for i in range(1, 6)], RESULTS_DDL)
    return _report(evaluate(judgments, results, ks=(5,)))


# trec_eval's variants, combined: two passes cover -J, -M, -c, custom gains and both gain kinds.
VARIANTS: list[dict[str, Any]] = [
    {
        "gain": "exponential",
        "gains": {3: 2.0},
        "judged_only": True,
        "max_depth": 6,
        "complete": True,
        "measures": ["P.1,5", "recall.5", "map", "map_cut.3", "recip_rank", "Rprec", "success.1", "bpref"],
        "relevance_level": 2,
    },
    {"gains": {0: 0.5, 1: 3.0, 2: 1.0, 3: 7.25}, "max_depth": 3},
]


def variants(spark: SparkSession, scratch: Path) -> Result:
    judgments, results = _frames(spark, seed=11)
    return {str(i): _report(evaluate(judgments, results, ks=(1, 3, 5, 20), **kw)) for i, kw in enumerate(VARIANTS)}


def ties(spark: SparkSession, scratch: Path) -> Result:
    """Generated data with ties, for pytrec_eval and the classic session (--complete is a variant's)."""
    judgments, results = _frames(spark, seed=5)
    return {"plain": _report(evaluate(judgments, results, ks=(1, 3, 5, 20)))}


def several_inputs(spark: SparkSession, scratch: Path) -> Result:
    judgments, results = _frames(spark, seed=7)
    named = {
        "r1": results.filter(F.col(c.RUN_ID) == "r1").drop(c.RUN_ID),
        "other": results.filter(F.col(c.RUN_ID) == "r2"),
    }
    return _report(evaluate(judgments, named, ks=(3,)))


def comparison(spark: SparkSession, scratch: Path) -> Result:
    """A baseline, slices from query metadata, compare() on the per-query rows, and the tables."""
    judgments, results = _frames(spark, seed=3)
    metadata = rows_frame(spark, [(f"q{q}", "short" if q % 3 else "long") for q in range(12)], "query_id string, length string")
    report = evaluate(
        judgments,
        results,
        ks=(3, 10),
        measures=["P@3", "AP"],
        baseline="r1",
        permutations=50,
        bootstrap=50,
        slices=["length"],
        query_metadata=metadata,
    )
    return {
        **_report(report),
        "compare": _rows(compare(report.per_query, "r1", permutations=50, bootstrap=50)),
        # The draws as arrays (Python workers, Arrow batches) on either kind of session.
        "compare_arrays": _rows(compare(report.per_query, "r1", permutations=50, bootstrap=50, resampling="arrays")),
        "printed": str(report),
        "markdown": report.table(),
        "latex": report.table("latex", title="connect"),
    }


def refusals(spark: SparkSession, scratch: Path) -> Result:
    judgments, results = _frames(spark, seed=3)
    nan = results.withColumn(c.SCORE, F.when(F.col(c.DOC_ID) == "d1", F.lit(float("nan"))).otherwise(F.col(c.SCORE)))
    return {
        "duplicates": _refusal(lambda: evaluate(judgments, results.unionByName(results), ks=(3,))),
        "nan": _refusal(lambda: evaluate(judgments, nan, ks=(3,))),
        "column": _refusal(lambda: evaluate(judgments.drop(c.RELEVANCE), results, ks=(3,))),
        "option": _refusal(lambda: evaluate(judgments, results, ks=(0,))),
        "baseline": _refusal(lambda: evaluate(judgments, results, ks=(3,), baseline="nope")),
    }


def trec_files(spark: SparkSession, scratch: Path) -> Result:
    """read_qrels and read_run on trec_eval's text files, then evaluate every measure of all_trec
    (the arrays and lambdas of G, ndcg_rel and Rndcg included)."""
    results, judgments = generated(seed=9)
    qrels, run = scratch / "qrels.txt", scratch / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in judgments))
    run.write_text("".join(f"{q} Q0 {d} {i} {s} {r}\n" for i, (r, q, d, s) in enumerate(results, 1)))
    judged, retrieved = read_qrels(spark, str(qrels)), read_run(spark, str(run))
    report = evaluate(judged, retrieved, ks=(5,), measures=["all_trec"])
    return {"qrels": _rows(judged), "run": _rows(retrieved), **_report(report)}


def tuning_frame(spark: SparkSession) -> DataFrame:
    """Candidates of 12 queries: the label is the feature `good` (graded 0-3); `noise` says nothing."""
    rows = [
        (f"q{q}", f"d{d}", float((q + d) % 4), float((q + d) % 4), float((q * 7 + d * 5) % 6))
        for q in range(12)
        for d in range(6)
    ]
    return rows_frame(spark, rows, "query_id string, doc_id string, label double, good double, noise double")


def evaluator(spark: SparkSession, scratch: Path) -> Result:
    """NdcgEvaluator alone, and its two refusals in its own words."""
    from ndcg_spark import NdcgEvaluator

    metric = NdcgEvaluator(k=3)
    scored = tuning_frame(spark).withColumn("prediction", F.col("noise"))
    nan = scored.withColumn("prediction", F.when(F.col("doc_id") == "d1", F.lit(float("nan"))).otherwise(F.col("noise")))
    return {
        "alone": metric.evaluate(scored),
        "nan": _refusal(lambda: metric.evaluate(nan)),
        "misnamed": _refusal(lambda: metric.copy({metric.labelCol: "rating"}).evaluate(scored)),
    }


def cold_start(spark: SparkSession, scratch: Path) -> Result:
    """The NaN refusal on what it is worded for: ALS's predictions for a user unseen in training
    (its default coldStartStrategy "nan")."""
    from pyspark.ml.recommendation import ALS

    from ndcg_spark import NdcgEvaluator

    ratings = tuning_frame(spark).select(
        F.substring("query_id", 2, 2).cast("int").alias("user"), F.substring("doc_id", 2, 1).cast("int").alias("item"), "label"
    )
    als = ALS(userCol="user", itemCol="item", ratingCol="label", rank=2, maxIter=2, seed=1)
    cold = NdcgEvaluator(k=3, queryCol="user", docCol="item", labelCol="label")
    return {"cold_start_nan": _refusal(lambda: cold.evaluate(als.fit(ratings.filter(F.col("user") > 0)).transform(ratings)))}


def tuning(spark: SparkSession, scratch: Path) -> Result:
    """NdcgEvaluator in CrossValidator, choosing between a model of the telling feature (the ideal
    order of every query's candidates) and one of noise (TrainValidationSplit, and the folds'
    values against the oracle: tests/transforms/test_evaluator.py, on the classic session)."""
    from pyspark.ml import Pipeline
    from pyspark.ml.feature import VectorAssembler
    from pyspark.ml.regression import LinearRegression
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder

    from ndcg_spark import NdcgEvaluator

    frame = tuning_frame(spark)
    regression = LinearRegression(maxIter=5)
    pipeline = Pipeline(
        stages=[
            VectorAssembler(inputCols=["good"], outputCol="by_good"),
            VectorAssembler(inputCols=["noise"], outputCol="by_noise"),
            regression,
        ]
    )
    grid = ParamGridBuilder().addGrid(regression.featuresCol, ["by_noise", "by_good"]).build()
    metric = NdcgEvaluator(k=3)
    cross = CrossValidator(estimator=pipeline, estimatorParamMaps=grid, evaluator=metric, numFolds=2, seed=7).fit(frame)
    return {
        "cross_validator": [float(value) for value in cross.avgMetrics],
        "cross_validator_best": cross.bestModel.stages[-1].getFeaturesCol(),
    }


_EXPLAINED = "== Physical Plan =="


def plan(spark: SparkSession, scratch: Path) -> Result:
    """The main pass's physical plan over Parquet inputs, with the settings evaluate() sets, as
    planned up front (AQE off): its shuffles, reused shuffles, broadcasts and sorts, counted as
    tests/transforms/test_plan.py counts them."""
    judgments, results = scratch / "plan_judgments.parquet", scratch / "plan_results.parquet"
    pq.write_table(pa.table({"query_id": ["1", "2"], "doc_id": ["1", "2"], "relevance": [1, 0]}), judgments)
    pq.write_table(pa.table({"run_id": ["r", "r"], "query_id": ["1", "2"], "doc_id": ["1", "2"], "score": [1.0, 2.0]}), results)
    with session_settings(spark, {**PLAN_CONF, ADAPTIVE: "false"}):
        options = Options(ks=(5, 10)).validated()
        judged, retrieved = canonical_inputs(
            Source(spark.read.parquet(str(judgments)), JUDGMENTS),
            [Source(spark.read.parquet(str(results)), RESULTS)],
            options,
            located=True,
        )
        pairs = main_pass(judged, retrieved, ScoringPlan.of(options)).pairs
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            pairs.explain()
    return counts(printed.getvalue().split(_EXPLAINED, 1)[-1])


PUBLISHED = "published"  # a job's output of two dates, which the test puts in each scratch folder


def read_back(spark: SparkSession, scratch: Path) -> Result:
    """A published output read back and gated: read_report, published_dates and gate()."""
    output = str(scratch / PUBLISHED)
    now, before = read_report(output, spark=spark), read_report(output, "2026-12-01", spark=spark)
    verdict = gate(now, before, fail_on_drop=0.01, measures=["ndcg_cut.2"])
    refused = _refusal(lambda: read_report(output, "2026-11-30", spark=spark))
    return {
        **_report(now),
        "gate": _rows(now.gate),
        "dates": [str(date) for date in published_dates(output, spark=spark)],
        "verdict": str(verdict),
        "verdict_rows": _rows(verdict.frame(spark)),
        "against_baseline": str(gate(now, "r1", fail_on_drop="2%")),
        "refused": {**refused, "message": refused["message"].replace(output, "OUT")},
    }


SCENARIOS: dict[str, Scenario] = {
    "worked_example": worked_example,
    "variants": variants,
    "ties": ties,
    "several_inputs": several_inputs,
    "comparison": comparison,
    "refusals": refusals,
    "trec_files": trec_files,
    "evaluator": evaluator,
    "plan": plan,
    "read_back": read_back,
}
# Run on Connect only, and checked against exact expectations: the classic session's tuning is
# tests/transforms/test_evaluator.py's, and its NaN refusal the evaluator scenario's (a model
# fitted on the classic side too, only to show the same message twice, cost 12-19 CPU seconds).
CONNECT_ONLY: dict[str, Scenario] = {"cold_start": cold_start, "tuning": tuning}


def run_all(spark: SparkSession, scratch: Path, scenarios: dict[str, Scenario]) -> dict[str, Result]:
    return {name: scenario(spark, scratch) for name, scenario in scenarios.items()}


def main(out: str, scratch: str) -> int:
    spark = (
        SparkSession.builder.remote("local[2]")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.ansi.enabled", "true")
        .config(map=CODEGEN_CACHE)
        .getOrCreate()
    )
    try:
        assert is_connect(spark), type(spark)
        results = run_all(spark, Path(scratch), {**SCENARIOS, **CONNECT_ONLY})
    finally:
        spark.stop()  # a Connect session left open keeps the local server's JVM alive
    Path(out).write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
