"""The warm benchmark: one session, its inputs cached, each call timed after a warm-up, the
cases in turn within each round. What a notebook user waits for on a second call, and what
CrossValidator pays per fold and parameter map.

- `RankingEvaluator`: Spark MLlib's `RankingEvaluator(metricName="ndcgAtK")`, including the
  window and `collect_list` that build its arrays (predictions in the job's order: score, then
  doc_id as a string, both descending; every judged query's relevant documents, empty for none).
- `evaluate`: `ndcg_spark.evaluate(judgments, results, ks=[k])`, then its summary read.
- `NdcgEvaluator`: `NdcgEvaluator(k=k).evaluate(rows)` on the retrieved rows with their labels
  (a model's transformed test set): its ideal DCG sees only those rows.

With --tuning, instead: ALS tuned by `CrossValidator` (3 folds, 4 parameter maps: rank 4 or 8,
regParam 0.05 or 0.2) on generated ratings (--users users, 50 items each of --items, a binary
label), each evaluator in turn: `RankingEvaluator` (inside an Evaluator that builds its arrays
from the fold's rows, as above) and `NdcgEvaluator`. --connect runs it on a Spark Connect
session (`remote("local[2]")`) instead of a classic one.

Labels are binary (relevance > 0), the only kind RankingEvaluator takes; `evaluate`'s mean must
equal RankingEvaluator's to 1e-9. For each case: the median wall time of a call, its ratio to
RankingEvaluator's, and the Spark jobs one call launches.

    .venv/bin/python scripts/bench.py --warm --queries 10000 --depth 100 --repeat 4
    .venv/bin/python scripts/bench_warm.py --tuning --repeat 2 [--connect]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOLERANCE = 1e-9
REFERENCE = "RankingEvaluator"
TUNING_PARTITIONS = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="a dataset folder of scripts/bench.py (judgments/, results/)")
    parser.add_argument("--tuning", action="store_true", help="instead, ALS tuned by CrossValidator with each evaluator")
    parser.add_argument("--connect", action="store_true", help="with --tuning: on a Spark Connect session")
    parser.add_argument("--users", type=int, default=4000, help="with --tuning: users (queries) of the ratings")
    parser.add_argument("--items", type=int, default=1000, help="with --tuning: items (documents) of the ratings")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--out", default=str(ROOT / "bench-results"))
    args = parser.parse_args()

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from ndcg_spark import evaluate
    from ndcg_spark.tuning import NdcgEvaluator

    builder = SparkSession.builder.remote("local[2]") if args.connect else SparkSession.builder.master("local[2]")
    spark = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", args.driver_memory)
        .getOrCreate()
    )
    if args.tuning:
        tuning(spark, args)
        return
    if args.data is None:
        parser.error("--data is needed (or --tuning)")
    k, data = args.k, Path(args.data)
    judgments = (
        spark.read.parquet(str(data / "judgments"))
        .select("query_id", "doc_id", (F.col("relevance") > 0).cast("int").alias("relevance"))
        .cache()
    )
    results = spark.read.parquet(str(data / "results")).select("query_id", "doc_id", "score").cache()
    labelled = (
        results.join(judgments, ["query_id", "doc_id"], "left")
        .select("query_id", "doc_id", "score", F.coalesce("relevance", F.lit(0)).alias("label"))
        .cache()
    )
    rows = {name: frame.count() for name, frame in (("judgments", judgments), ("results", results), ("labelled", labelled))}

    def ranking_evaluator() -> float:
        return ranking_ndcg(results, judgments, ("query_id", "doc_id", "score", "relevance"), k)

    def evaluate_summary() -> float:
        report = evaluate(judgments, results, ks=[k])
        value = next(row["value"] for row in report.evaluation.summary if row["measure"] == "ndcg_cut" and row["k"] == k)
        report.unpersist()
        return float(value)

    def ndcg_evaluator() -> float:
        evaluator = NdcgEvaluator(k=k, queryCol="query_id", docCol="doc_id", labelCol="label", predictionCol="score")
        return evaluator.evaluate(labelled)

    cases: dict[str, Callable[[], float]] = {
        REFERENCE: ranking_evaluator,
        "evaluate": evaluate_summary,
        "NdcgEvaluator": ndcg_evaluator,
    }
    context = spark.sparkContext  # the benchmark's own session: jobs are counted by group
    means = {name: case() for name, case in cases.items()}  # warm-up
    if abs(means["evaluate"] - means[REFERENCE]) > TOLERANCE:
        raise SystemExit(f"evaluate's mean {means['evaluate']!r} differs from RankingEvaluator's {means[REFERENCE]!r}")
    times: dict[str, list[float]] = {name: [] for name in cases}
    jobs: dict[str, int] = {}
    for round_ in range(args.repeat):
        for name, case in cases.items():
            group = f"{name}-{round_}"
            context.setJobGroup(group, name)
            start = time.perf_counter()
            case()
            times[name].append(time.perf_counter() - start)
            jobs[name] = len(context.statusTracker().getJobIdsForGroup(group))
            print(f"round {round_ + 1} {name}: {times[name][-1]:.2f} s", flush=True)
    reference = statistics.median(times[REFERENCE])
    medians = {name: statistics.median(taken) for name, taken in times.items()}
    table = [
        "| call | median (s) | ratio to RankingEvaluator | Spark jobs a call | mean NDCG@k |",
        "|---|---|---|---|---|",
        *[f"| {name} | {t:.2f} | {t / reference:.2f} | {jobs[name]} | {means[name]:.6f} |" for name, t in medians.items()],
    ]
    summary = {
        "data": data.name,
        "rows": rows,
        "k": k,
        "repeat": args.repeat,
        "seconds": times,
        "jobs": jobs,
        "means": means,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"warm-{data.name}.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / f"warm-{data.name}.md").write_text("\n".join(table) + "\n")
    print(f"\n{data.name}: {rows['results']} result rows, {rows['judgments']} judgments, NDCG@{k}, medians of {args.repeat}")
    print("\n".join(table))


def ranking_ndcg(ranked: DataFrame, judged: DataFrame, columns: tuple[str, str, str, str], k: int) -> float:
    """Spark MLlib's RankingEvaluator's NDCG@k, its arrays built from rows: each query's top k of
    `ranked` in the job's order (score, then the document as a string, both descending), and the
    documents `judged` relevant (label > 0). columns: the query, document, score and label."""
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    query, doc, score, label = columns
    order = Window.partitionBy(query).orderBy(F.col(score).desc(), F.col(doc).cast("string").desc())
    top = ranked.withColumn("position", F.row_number().over(order)).filter(F.col("position") <= k)
    predicted = top.groupBy(query).agg(
        F.sort_array(F.collect_list(F.struct("position", F.col(doc).cast("double").alias("doc")))).alias("ranked")
    )
    relevant = F.when(F.col(label) > 0, F.col(doc).cast("double"))
    labels = judged.groupBy(query).agg(F.collect_list(relevant).alias("label"))
    both = predicted.select(query, F.col("ranked.doc").alias("prediction")).join(labels, query)
    return float(RankingEvaluator(metricName="ndcgAtK", k=k).evaluate(both))


def tuning(spark: SparkSession, args: argparse.Namespace) -> None:
    """ALS tuned by CrossValidator with each evaluator in turn, --repeat rounds after a warm-up."""
    from pyspark.ml.evaluation import Evaluator
    from pyspark.ml.recommendation import ALS
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder
    from pyspark.sql import functions as F

    from ndcg_spark.tuning import NdcgEvaluator

    k, per_user = args.k, 50
    # Each user rates 50 items (a hash of its row), liked (1) when user and item fall in the
    # same of 5 groups give or take the hash's noise; copies of a (user, item) dropped.
    row = F.col("id")
    ratings = (
        spark.range(args.users * per_user)
        .select(
            (row / per_user).cast("int").alias("user"),
            F.pmod(F.xxhash64(row), F.lit(args.items)).cast("int").alias("item"),
            F.pmod(F.xxhash64(row, F.lit(1)), F.lit(10)).alias("noise"),
        )
        .dropDuplicates(["user", "item"])
        .select(
            "user",
            "item",
            F.expr("CAST((user % 5 = item % 5) != (noise = 0) AS INT) AS label"),
        )
        .cache()
    )
    rows = ratings.count()

    class ArraysRankingEvaluator(Evaluator):
        """RankingEvaluator on a fold's (user, item, label, prediction) rows, its arrays built first."""

        def _evaluate(self, dataset: DataFrame) -> float:
            return ranking_ndcg(dataset, dataset, ("user", "item", "prediction", "label"), k)

    # Two blocks a side and few shuffle partitions: local[2]'s cores (ALS's default, 10 blocks and
    # 200 partitions, spent most of a tuning scheduling tiny tasks).
    spark.conf.set("spark.sql.shuffle.partitions", str(TUNING_PARTITIONS))
    als = ALS(
        userCol="user",
        itemCol="item",
        ratingCol="label",
        maxIter=5,
        numUserBlocks=2,
        numItemBlocks=2,
        coldStartStrategy="drop",
        seed=1,
    )
    grid = ParamGridBuilder().addGrid(als.rank, [4, 8]).addGrid(als.regParam, [0.05, 0.2]).build()
    evaluators = {
        REFERENCE: ArraysRankingEvaluator(),
        "NdcgEvaluator": NdcgEvaluator(k=k, queryCol="user", docCol="item", labelCol="label"),
    }

    def tune(evaluator: Evaluator) -> list[float]:
        cross = CrossValidator(estimator=als, estimatorParamMaps=grid, evaluator=evaluator, numFolds=3, seed=7)
        return [float(value) for value in cross.fit(ratings).avgMetrics]

    metrics = {name: tune(evaluator) for name, evaluator in evaluators.items()}  # warm-up
    times: dict[str, list[float]] = {name: [] for name in evaluators}
    for round_ in range(args.repeat):
        for name, evaluator in evaluators.items():
            start = time.perf_counter()
            tune(evaluator)
            times[name].append(time.perf_counter() - start)
            print(f"round {round_ + 1} {name}: {times[name][-1]:.2f} s", flush=True)
    reference = statistics.median(times[REFERENCE])
    session = "Spark Connect" if args.connect else "classic"
    table = [
        "| evaluator | median (s) | ratio to RankingEvaluator | mean NDCG@k of the 4 maps |",
        "|---|---|---|---|",
        *[
            f"| {name} | {statistics.median(taken):.2f} | {statistics.median(taken) / reference:.2f} |"
            f" {', '.join(f'{value:.4f}' for value in metrics[name])} |"
            for name, taken in times.items()
        ],
    ]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = f"tuning-{'connect' if args.connect else 'classic'}-u{args.users}"
    summary = {"session": session, "ratings": rows, "k": k, "repeat": args.repeat, "seconds": times, "metrics": metrics}
    (out / f"{name}.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / f"{name}.md").write_text("\n".join(table) + "\n")
    print(f"\nCrossValidator (3 folds x 4 maps) of ALS on {rows} ratings, {session} session, medians of {args.repeat}")
    print("\n".join(table))


if __name__ == "__main__":
    main()
