"""An evaluation of tables a notebook holds (pandas, Polars, Arrow), in-process on the embedded
engine: the same checks, plan, formulas and summary as the Spark engine's, with no JVM. What
evaluation.py is to Spark DataFrames."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from pyspark.sql import Row

from ndcg_spark import columns as c
from ndcg_spark.checks.kinds import GIVEN
from ndcg_spark.checks.tables import Checked, checked
from ndcg_spark.comparison.rows import Resampling
from ndcg_spark.evaluation import Evaluation, RunCounts, measure_order, slice_order
from ndcg_spark.measures import Measure
from ndcg_spark.options import Options
from ndcg_spark.scoring.embedded.per_query import score
from ndcg_spark.scoring.embedded.slices import query_slices, slice_rows
from ndcg_spark.scoring.embedded.summary import summary_rows
from ndcg_spark.scoring.plan import ScoringPlan


@dataclass(frozen=True)
class SliceTable:
    """Where the slice columns come from (scoring.slices.SliceSource's, as a table in memory)."""

    label: str
    path: str
    table: pa.Table
    query_column: str


def evaluate_tables(
    judgments: object,
    results: object | Mapping[str, object],
    options: Options,
    where: tuple[str, str] = (GIVEN, GIVEN),
    slices: SliceTable | None = None,
) -> tuple[pa.Table, Evaluation]:
    """per_query's rows and the evaluation (summary, counts, slices) of in-memory tables (`where`:
    how messages name them, checks.tables.checked's)."""
    return evaluate_checked_tables(checked(judgments, results, options, where), options, slices)


def evaluate_checked_tables(
    inputs: Checked, options: Options, slices: SliceTable | None = None, page_measures: tuple[Measure, ...] = ()
) -> tuple[pa.Table, Evaluation]:
    """evaluate_tables of inputs already checked (the job keeps them, for trec_eval's relstrings);
    page_measures: scored for the HTML page alone (Evaluation.curves), reported nowhere else."""
    by_query = None
    if options.slices and slices is not None:  # checked before the scoring, as the Spark engine does
        by_query = query_slices(slices.table, slices.label, slices.path, slices.query_column, options.slices)
    plan = ScoringPlan.of(options, page_measures)
    scored = score(inputs.judgments, inputs.results, plan, inputs.codes)
    every = sorted(
        (Row(**row) for row in summary_rows(scored.per_query, scored.measures, options.variant)),
        key=lambda row: (row[c.RUN_ID], *measure_order(row)),
    )
    drawn = {(measure.reported, measure.k) for measure in plan.page_measures}
    summary = [row for row in every if (row[c.MEASURE], row[c.K]) not in drawn]
    curves = [row for row in every if (row[c.MEASURE], row[c.K]) in drawn]
    per_query = _reported(scored.per_query, len(plan.measures), len(plan.scored))
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

        comparison = compare_table(per_query, options.baseline, Resampling.of(options))
    slice_summary = []
    if by_query is not None:
        rows = slice_rows(per_query, by_query, options.slices)
        slice_summary = sorted((Row(**row) for row in rows), key=slice_order)
    evaluation = Evaluation(
        summary=summary,
        runs=runs,
        judgment_rows=inputs.judgment_rows,
        result_rows=inputs.result_rows,
        judged_queries=judged,
        duplicate_judgments_dropped=inputs.duplicate_judgments_dropped,
        duplicate_results_dropped=inputs.duplicate_results_dropped,
        complete=options.complete,
        pair_rows=per_query.num_rows // max(len(plan.measures), 1),
        comparison=comparison,
        slices=slice_summary,
        curves=curves,
    )
    return per_query, evaluation


def _reported(per_query: pa.Table, reported: int, scored: int) -> pa.Table:
    """per_query without the page's own measures: each pair's rows are its measures in turn, the
    page's last."""
    if reported == scored:
        return per_query
    keep = np.arange(per_query.num_rows) % scored < reported
    return per_query.filter(pa.array(keep))
