"""An evaluation of tables a notebook holds (pandas, Polars, Arrow), in-process on the embedded
engine: the same checks, plan, formulas and summary as the Spark engine's, with no JVM. What
evaluation.py is to Spark DataFrames."""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa
from pyspark.sql import Row

from ndcg_spark import columns as c
from ndcg_spark.checks.kinds import GIVEN
from ndcg_spark.checks.tables import Checked, checked
from ndcg_spark.comparison.rows import Resampling
from ndcg_spark.errors import ConfigError
from ndcg_spark.evaluation import Evaluation, RunCounts, measure_order
from ndcg_spark.options import Options
from ndcg_spark.scoring.embedded.per_query import score
from ndcg_spark.scoring.embedded.summary import summary_rows
from ndcg_spark.scoring.plan import ScoringPlan


def evaluate_tables(
    judgments: object, results: object | Mapping[str, object], options: Options, where: tuple[str, str] = (GIVEN, GIVEN)
) -> tuple[pa.Table, Evaluation]:
    """per_query's rows and the evaluation (summary, counts) of in-memory tables (`where`: how
    messages name them, checks.tables.checked's)."""
    if options.slices:
        raise ConfigError(
            "slices are computed on Spark DataFrames only for now: pass spark.createDataFrame(...) of the"
            " judgments and results, or leave out the slices"
        )
    return evaluate_checked_tables(checked(judgments, results, options, where), options)


def evaluate_checked_tables(inputs: Checked, options: Options) -> tuple[pa.Table, Evaluation]:
    """evaluate_tables of inputs already checked (the job keeps them, for trec_eval's relstrings)."""
    scored = score(inputs.judgments, inputs.results, ScoringPlan.of(options))
    summary = sorted(
        (Row(**row) for row in summary_rows(scored.per_query, scored.measures, options.variant)),
        key=lambda row: (row[c.RUN_ID], *measure_order(row)),
    )
    judged = scored.judged_queries
    runs = [
        RunCounts(
            run_id=run,
            evaluated=judged if options.complete else retrieved_judged,
            missing=judged - retrieved_judged,
            skipped=retrieved - retrieved_judged,
        )
        for run, (retrieved, retrieved_judged) in sorted(scored.retrieved.items())
    ]
    comparison = []
    if options.baseline is not None:
        from ndcg_spark.comparison.tables import compare_table  # numpy's draws: a comparison's only

        comparison = compare_table(scored.per_query, options.baseline, Resampling.of(options))
    evaluation = Evaluation(
        summary=summary,
        runs=runs,
        judgment_rows=inputs.judgment_rows,
        result_rows=inputs.result_rows,
        judged_queries=judged,
        duplicate_judgments_dropped=inputs.duplicate_judgments_dropped,
        duplicate_results_dropped=inputs.duplicate_results_dropped,
        complete=options.complete,
        pair_rows=scored.per_query.num_rows // max(len(scored.measures), 1),
        comparison=comparison,
    )
    return scored.per_query, evaluation
