"""The evaluation end to end: one pass over the data, checks, summary, comparison, slices.

The one pass reads and shuffles each input once and materializes one small row per (run, query)
(the job stages them as Parquet, the Python API checkpoints them), counting every row check on the
way. Only when the checks pass is the report derived from those rows (a few rows per query, so the
rest costs little)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pyspark.sql import DataFrame, Observation, Row, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.checks.inputs import Input
from ndcg_spark.checks.observe import InputCounts, Observed, enforce, observe
from ndcg_spark.comparison.compare import compare
from ndcg_spark.comparison.pairing import cutoff_column
from ndcg_spark.comparison.resampling import start_python_workers
from ndcg_spark.comparison.rows import ComparisonRow, Cutoff, Resampling, comparison_rows_frame, cutoffs_of
from ndcg_spark.errors import InputError
from ndcg_spark.frames import local_frame
from ndcg_spark.measures import Measure
from ndcg_spark.options import Options
from ndcg_spark.progress import step
from ndcg_spark.scoring.dcg import (
    JUDGED_QUERIES,
    MeasuredRow,
    evaluated_pairs,
    measured,
    measured_rows,
    page_rows,
    per_query_rows,
    query_pairs,
    value_column,
)
from ndcg_spark.scoring.plan import ScoringPlan
from ndcg_spark.scoring.ranking import FIRST_INPUT, LAST_INPUT
from ndcg_spark.scoring.slices import (
    SLICE,
    SLICE_SUMMARY_SCHEMA,
    SLICE_VALUE,
    SliceSource,
    query_slices,
    slice_summary,
)
from ndcg_spark.scoring.summary import (
    RETRIEVED_JUDGED,
    count_rows,
    summarize,
    summary_and_counts,
    summary_and_counts_of_long,
    summary_rows,
)
from ndcg_spark.spark_conf import post_pass_settings, session_settings

Materialize = Callable[[DataFrame], DataFrame]
"""Computes a plan once and returns a frame over its stored rows (observations fire on the way)."""
WritePerQuery = Callable[[DataFrame, int], DataFrame]
"""Writes the per-query rows (given an estimate of their count) and returns a frame over them."""

PAIR_ROWS = "pair_rows"


@dataclass(frozen=True)
class RunCounts:
    run_id: str
    evaluated: int
    missing: int
    skipped: int


@dataclass(frozen=True)
class Evaluation:
    """What the job computed and wrote, small enough to print."""

    summary: list[Row]
    runs: list[RunCounts]
    judgment_rows: int
    result_rows: int
    judged_queries: int
    duplicate_judgments_dropped: int
    duplicate_results_dropped: int
    complete: bool
    comparison: list[ComparisonRow] = field(default_factory=list)
    slices: list[Row] = field(default_factory=list)
    # The (run, query) rows the main pass materialized, what the report is derived from.
    pair_rows: int = 0
    # The shuffle settings the report was derived with (post_pass_settings): publishing reads
    # the same few rows per query, and uses them too.
    post_pass: dict[str, str] = field(default_factory=dict)
    # The summary's rows of the measures the HTML page alone draws (its precision-recall curve,
    # ScoringPlan.page_measures): in no dataset or table.
    curves: list[Row] = field(default_factory=list)

    @property
    def run_ids(self) -> list[str]:
        return [run.run_id for run in self.runs]

    @property
    def per_query_rows(self) -> int:
        return sum(row[c.NUM_QUERIES] for row in self.summary)


@dataclass(frozen=True)
class MainPass:
    """The plan of the one pass over the data, and what it observes on the way."""

    pairs: DataFrame
    judgments: Observed
    results: Observed
    judged_queries: Observation
    pair_rows: Observation


def main_pass(judgments: Input, results: Input, plan: ScoringPlan) -> MainPass:
    """The plan of the one pass over the data: (run, query) rows, and both inputs' observed checks."""
    observed_judgments, observed_results = observe(judgments), observe(results)
    judged_queries, pair_rows = Observation("judged_queries"), Observation(PAIR_ROWS)
    # When copies are refused, a run with copies publishes nothing: the ideal side can read the
    # judgments' exchange as it is, and only the join's side sorts them for the copies check.
    lenient = judgments.duplicates.lenient
    pairs = query_pairs(
        observed_results.frame,
        observed_judgments.frame,
        plan,
        judged_queries=judged_queries,
        ideal_judgments=observed_judgments.frame if lenient else observed_judgments.checked,
        inputs=len(results.sources) > 1,
    ).observe(pair_rows, F.count(F.lit(1)).alias(PAIR_ROWS))
    return MainPass(pairs, observed_judgments, observed_results, judged_queries, pair_rows)


@dataclass(frozen=True)
class Scored:
    """The materialized (run, query) rows and the counts the main pass observed."""

    pairs: DataFrame
    judgments: InputCounts
    results: InputCounts
    judged_queries: int
    pair_rows: int


def score_pairs(scoring: MainPass, materialize: Materialize) -> Scored:
    """The one pass: materialize the (run, query) rows, then enforce the row checks it counted."""
    pairs = materialize(scoring.pairs)
    judged, retrieved = enforce(scoring.judgments), enforce(scoring.results)
    judged_queries = int(scoring.judged_queries.get[JUDGED_QUERIES] or 0)
    return Scored(pairs, judged, retrieved, judged_queries, int(scoring.pair_rows.get[PAIR_ROWS] or 0))


def evaluate_checked(
    spark: SparkSession,
    judgments: Input,
    results: Input,
    options: Options,
    materialize: Materialize,
    slice_input: SliceSource | None = None,
    write_per_query: WritePerQuery | None = None,
    page_measures: tuple[Measure, ...] = (),
) -> tuple[DataFrame, Evaluation]:
    """Validate and score; returns the per-query report (a plan over the materialized rows) and
    the summary, comparison, slices and counts, collected (a few rows per run and cutoff).

    write_per_query, when given, writes the per-query rows once the checks pass (the job's
    staging) and returns a frame over what it wrote: the summary and all that follows read
    those, and no measure is computed twice. page_measures: scored in the same pass for the HTML
    page alone (Evaluation.curves)."""
    plan = ScoringPlan.of(options, page_measures)
    with step("main pass") as counts:
        scoring = main_pass(judgments, results, plan)
        scored = score_pairs(scoring, materialize)
        result_rows = scored.results.rows_read
        counts.update(judgment_rows=scored.judgments.rows_read, result_rows=result_rows, pair_rows=scored.pair_rows)
    settings = post_pass_settings(spark, result_rows, scored.pair_rows)
    with session_settings(spark, settings):
        per_query, evaluation = _report(spark, scored, options, plan, results.sources, slice_input, write_per_query)
    return per_query, replace(evaluation, post_pass=settings)


def _report(
    spark: SparkSession,
    scored: Scored,
    options: Options,
    plan: ScoringPlan,
    sources: tuple[str, ...],
    slice_input: SliceSource | None,
    write_per_query: WritePerQuery | None,
) -> tuple[DataFrame, Evaluation]:
    """The summary, comparison and slices, from the materialized (run, query) rows."""
    pairs, judged, retrieved = scored.pairs, scored.judgments, scored.results
    resampling = Resampling.of(options)
    if options.baseline is not None:  # the comparison's Python workers start during the reports
        start_python_workers(spark, resampling, scored.pair_rows)
    evaluated = evaluated_pairs(pairs, plan)
    per_query = per_query_rows(evaluated, plan)
    measures = measured_rows(plan)
    if write_per_query is not None:
        with step("per_query"):
            # A row per (run, query) pair and measure: how many files to write, not a check.
            per_query = write_per_query(per_query, max(scored.pair_rows, 1) * len(measures))
    with step("summary") as counts:
        if write_per_query is not None:
            aggregated = summary_and_counts_of_long(per_query, measures, pairs)
        else:
            aggregated = summary_and_counts(measured(evaluated, measures), measures, pairs)
        rows = aggregated.collect()
        summary = sorted(summary_rows(rows, measures, options.variant), key=lambda row: (row[c.RUN_ID], *measure_order(row)))
        judged_queries = scored.judged_queries
        runs = _run_counts(count_rows(rows), judged_queries, options.complete, sources)
        counts.update(runs=len(runs), judged_queries=judged_queries, per_query_rows=sum(row[c.NUM_QUERIES] for row in summary))
    curves = []
    drawn = page_rows(plan)
    if drawn:  # the page's own means, from the materialized pairs: a few rows per run
        aggregated_curves = summary_and_counts(measured(evaluated, drawn), drawn, pairs).collect()
        curves = sorted(
            summary_rows(aggregated_curves, drawn, options.variant), key=lambda row: (row[c.RUN_ID], *measure_order(row))
        )
    comparison: list[ComparisonRow] = []
    if options.baseline is not None:
        with step("comparison") as counts:
            run_ids = [run.run_id for run in runs]
            cutoffs = cutoffs_of(options.scored_measures)
            wide = _wide_values(evaluated, measures, cutoffs)
            comparison = compare(spark, wide, options.baseline, run_ids, cutoffs, resampling, scored.pair_rows)
            counts.update(baseline=options.baseline, rows=len(comparison))
    slices = []
    if slice_input is not None and options.slices:
        with step("slices") as counts:
            by_query = query_slices(slice_input, options.slices)
            slices = sorted(slice_summary(per_query, by_query, options.slices).collect(), key=slice_order)
            counts.update(rows=len(slices))
    return per_query, Evaluation(
        summary=summary,
        runs=runs,
        judgment_rows=judged.rows_read,
        result_rows=retrieved.rows_read,
        judged_queries=judged_queries,
        duplicate_judgments_dropped=judged.duplicates_dropped,
        duplicate_results_dropped=retrieved.duplicates_dropped,
        complete=options.complete,
        comparison=comparison,
        slices=slices,
        pair_rows=scored.pair_rows,
        curves=curves,
    )


def _wide_values(evaluated: DataFrame, measures: list[MeasuredRow], cutoffs: list[Cutoff]) -> DataFrame:
    """Per (run, query), each compared cutoff's value (pairing.wide_values' columns), from the
    wide rows the long per_query rows are made of: the same doubles, without the shuffle that
    pivots the long rows back (at 20k queries and 13 cutoffs the pairs took 1.2 s, not 2.6 s)."""
    column = {(row.measure, row.k): value_column(index) for index, row in enumerate(measures)}
    values = [F.col(column[(cut.measure, cut.k)]).alias(cutoff_column("v", cut)) for cut in cutoffs]
    return measured(evaluated, measures).select(c.RUN_ID, c.QUERY_ID, *values)


def measure_order(row: Row) -> tuple[object, ...]:
    """Rows of a few per run and cutoff are put in order on the driver (by run, measure, then k,
    NULL last): an orderBy in Spark costs a sampling job and a shuffle. Python orders strings by
    code point, which is Spark's order of their UTF-8 bytes."""
    return (row[c.MEASURE], *c.cutoff_order(row[c.K]))


def slice_order(row: Row) -> tuple[object, ...]:
    """The slices' rows in reading order (see measure_order): by slice, its value (NULL last),
    run, measure and k."""
    return (row[SLICE], row[SLICE_VALUE] is None, row[SLICE_VALUE] or "", row[c.RUN_ID], *measure_order(row))


def _run_counts(count_rows: list[Row], judged_queries: int, complete: bool, sources: tuple[str, ...]) -> list[RunCounts]:
    """Per run, from its counts (summary_and_counts): queries scored, judged queries it lacks
    (scored 0 with --complete), unjudged ones. With several results inputs, a run that two of
    them produce is refused."""
    counts = sorted(count_rows, key=lambda row: row[c.RUN_ID])
    for row in counts:
        if sources and row[FIRST_INPUT] != row[LAST_INPUT]:
            raise InputError(
                f"results: run {row[c.RUN_ID]!r} comes from two inputs, {sources[row[FIRST_INPUT]]} and"
                f" {sources[row[LAST_INPUT]]}; each run must come from one input"
            )
    return [
        RunCounts(
            run_id=row[c.RUN_ID],
            evaluated=judged_queries if complete else row[RETRIEVED_JUDGED],
            missing=judged_queries - row[RETRIEVED_JUDGED],
            skipped=row[c.NUM_QUERIES] - row[RETRIEVED_JUDGED],
        )
        for row in counts
    ]


def summary_frame(spark: SparkSession, per_query: DataFrame, evaluation: Evaluation) -> DataFrame:
    """The collected summary as a DataFrame of the summary's schema: exactly what was printed."""
    return local_frame(spark, evaluation.summary, summarize(per_query).schema)


def comparison_frame(spark: SparkSession, evaluation: Evaluation) -> DataFrame:
    return comparison_rows_frame(spark, evaluation.comparison)


def slices_frame(spark: SparkSession, evaluation: Evaluation) -> DataFrame:
    return local_frame(spark, evaluation.slices, SLICE_SUMMARY_SCHEMA)
