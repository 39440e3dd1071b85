"""One NDCG mean over a frame of labelled candidates, computed for that mean alone: the
evaluator's path, which CrossValidator takes once per fold and parameter map.

The frame is shuffled once by query and each query's rows are collected into one list
(scoring.lists): no join of the frame with itself, no window, nothing materialized. Both inputs'
checks are counted on the way, in the one job that computes the mean, and enforced before it is
returned, so the evaluator refuses what evaluate refuses. The mean is evaluate's bit for bit: the
same per-query formula (dcg.measured), summed exactly (summary.part_sums)."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ndcg_spark.checks.inputs import labelled_inputs
from ndcg_spark.checks.observe import count_copies, enforce, no_rows, observe_together
from ndcg_spark.measures import NDCG_MEASURES, Measure
from ndcg_spark.options import Options
from ndcg_spark.scoring.dcg import measured, measured_rows, value_column
from ndcg_spark.scoring.lists import COPIES, labelled_lists
from ndcg_spark.scoring.plan import ScoringPlan
from ndcg_spark.scoring.summary import mean_of, part_sums
from ndcg_spark.spark_conf import PLAN_CONF, session_settings


def labelled_mean(frame: DataFrame, options: Options, measure: Measure) -> float:
    """The mean of `measure` (ndcg_cut at a k of options.ks, or ndcg with options.uncut) over
    the queries of `frame`, whose columns options.columns names: query_id, doc_id, relevance
    (the label) and score (the prediction)."""
    if measure.name not in NDCG_MEASURES:
        raise ValueError(f"labelled_mean computes NDCG, not {measure.name!r}")
    plan = ScoringPlan.of(options)
    (row,) = [row for row in measured_rows(plan) if (row.measure, row.k) == (measure.reported, measure.k)]
    judged, retrieved, rows = labelled_inputs(frame, options)
    together = observe_together(judged, retrieved, rows)
    lists = count_copies(together, labelled_lists(together.rows, plan), F.col(COPIES))
    value = value_column(0)
    with session_settings(frame.sparkSession, PLAN_CONF):
        sums = measured(lists, [row]).agg(*part_sums(value)).collect()
    mean = mean_of(sums[0], value)  # an aggregation without groups: one row
    if mean is None:
        # Every row is in a list, and every list has a value: no rows. Checked here, for Spark
        # prunes a plan it knows to be empty (an empty local frame), observations and all.
        raise no_rows(judged)
    enforce(together.judgments)
    enforce(together.results)
    return mean
