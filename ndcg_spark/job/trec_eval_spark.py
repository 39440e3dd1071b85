"""ndcg-spark trec_eval on the Spark engine (--engine spark): the inputs read with Spark's text
source, evaluate() on the DataFrames, the lines built and sorted by Spark."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.api import evaluate_sources
from ndcg_spark.checks.inputs import Source
from ndcg_spark.errors import InputError
from ndcg_spark.io.trec import read_trec
from ndcg_spark.io.trec_formats import QRELS, RUN
from ndcg_spark.job.session import BASE_CONF, quiet_conf
from ndcg_spark.job.trec_eval_args import TrecEvalArgs, relstring_name
from ndcg_spark.measures import Measure, parse_measures, scored
from ndcg_spark.option_values import ColumnNames
from ndcg_spark.options import Options
from ndcg_spark.report.relstring import relstrings
from ndcg_spark.report.result import Report
from ndcg_spark.report.trec_eval import report_lines, sorted_lines


def _printed(
    per_query: DataFrame, summary: DataFrame, asked: tuple[Measure, ...], gains_text: str
) -> tuple[DataFrame, DataFrame]:
    """The rows of the measures asked for (evaluate also reports NDCG at its own cutoffs), ndcg
    under trec_eval's name with its gains (ndcg_1=3,2=9)."""
    keys = {(m.reported, m.k) for m in asked}
    wanted = F.lit(False)
    for reported, k in keys:
        wanted = wanted | ((F.col(c.MEASURE) == reported) & (F.col(c.K).isNull() if k is None else F.col(c.K) == k))
    renamed = F.when(F.col(c.MEASURE) == c.MEASURE_UNCUT, F.lit(f"ndcg_{gains_text}")).otherwise(F.col(c.MEASURE))
    if gains_text:
        return per_query.filter(wanted).withColumn(c.MEASURE, renamed), summary.filter(wanted).withColumn(c.MEASURE, renamed)
    return per_query.filter(wanted), summary.filter(wanted)


def _score(args: TrecEvalArgs, judgments: DataFrame, results: DataFrame) -> tuple[DataFrame, DataFrame, DataFrame]:
    """per_query and summary of what -m asked, and the (run, query) pairs evaluated. trec_eval
    gives ndcg's gains to ndcg alone: with gains, ndcg is scored apart and the rest without them."""
    asked = scored(parse_measures(args.measures)) if args.measures else []
    options: dict[str, Any] = {"complete": args.complete, "judged_only": args.judged_only, "max_depth": args.max_depth}
    plain = tuple(m for m in asked if not (args.ndcg_gains and m.name == c.MEASURE_UNCUT))
    frames = []

    def evaluate(**keywords: Any) -> Report:
        """evaluate() of the two files, each named by its path in a refusal (not "DataFrame")."""
        chosen = Options.of({"ks": (10,), "relevance_level": args.level, **options, **keywords})
        return evaluate_sources(Source(judgments, args.qrels), [Source(results, args.run)], chosen)

    if plain or not args.ndcg_gains:  # nothing numeric asked (-m relstring): the pairs alone
        report = evaluate(measures=[m.asked for m in plain])
        frames.append(_printed(report.per_query, report.summary, plain, ""))
        pairs = report.per_query.select(c.RUN_ID, c.QUERY_ID).distinct()
    if args.ndcg_gains:
        gained = evaluate(gains=dict(args.ndcg_gains))
        frames.append(_printed(gained.per_query, gained.summary, (Measure(c.MEASURE_UNCUT),), args.ndcg_gains_text))
        pairs = gained.per_query.select(c.RUN_ID, c.QUERY_ID).distinct()
    per_query, summary = frames[0]
    for more_per_query, more_summary in frames[1:]:
        per_query, summary = per_query.unionByName(more_per_query), summary.unionByName(more_summary)
    return per_query, summary, pairs


def run(spark: SparkSession, args: TrecEvalArgs) -> list[str]:
    """trec_eval's printed lines for these inputs: one run (trec_eval reads one per file)."""
    names = ColumnNames()
    judgments = read_trec(spark, args.qrels, "qrels", QRELS, names)
    results = read_trec(spark, args.run, "run", RUN, names)
    runs = [row[0] for row in results.select(c.RUN_ID).distinct().limit(2).collect()]
    if len(runs) != 1:
        raise InputError(f"run {args.run}: column 'run_id': {len(runs)} run names; trec_eval reads one run per file")
    per_query, summary, pairs = _score(args, judgments, results)
    texts = None
    if args.relstring is not None and args.per_query:
        texts = relstrings(
            judgments,
            results,
            pairs,
            args.relstring,
            judged_only=args.judged_only,
            max_depth=args.max_depth,
        )
    if not args.per_query:
        per_query = per_query.limit(0)
    name = relstring_name(args)
    runids = results.select(c.RUN_ID).distinct() if args.runid else None
    lines = report_lines(per_query, summary, texts, name, summary_lines=args.summary, runids=runids)
    return [row[0] for row in sorted_lines(lines, runs[0]).toLocalIterator()]


def spark_lines(args: TrecEvalArgs) -> list[str]:
    """The lines, on a session of this command's own (a local one, or spark-submit's)."""
    builder = SparkSession.builder.appName("ndcg-spark trec_eval")
    for key, value in {**BASE_CONF, **quiet_conf(), "spark.ui.showConsoleProgress": "false"}.items():
        builder = builder.config(key, value)
    return run(builder.getOrCreate(), args)
