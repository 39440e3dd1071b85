"""What the HTML report shows, reduced in Spark to a few hundred numbers per run: a histogram
of per-query NDCG, quantiles of the per-query differences against the baseline and the biggest
wins and losses, and each run's history from the summaries already published."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.comparison.pairing import cutoff_column, paired, wide_values
from ndcg_spark.comparison.rows import ComparisonRow, Cutoff
from ndcg_spark.evaluation import Evaluation
from ndcg_spark.gate.verdict import Verdict
from ndcg_spark.io.layout import SUMMARY_DIR, OutputLayout
from ndcg_spark.measures import Measure, parse_measures
from ndcg_spark.options import Options

HISTOGRAM_BINS = 20
QUANTILES = 200  # points on the sorted-differences curve
QUANTILE_ACCURACY = 100_000  # percentile_approx: exact below this many queries
EXTREMES = 10  # wins and losses named per run
TREND_K = 10
_BIN = "_bin"
_PLACE = "_place"


@dataclass(frozen=True)
class ReportData:
    title: str
    k: int
    summary: list[dict[str, Any]]
    comparison: list[ComparisonRow]
    slices: list[dict[str, Any]]
    histogram: dict[str, list[int]]  # run -> query counts per bin of width 1/HISTOGRAM_BINS
    baseline: str | None = None
    differences: dict[str, list[float]] = field(default_factory=dict)  # run -> quantiles
    wins: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    losses: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    trend: list[tuple[str, str, float]] = field(default_factory=list)  # (date, run, ndcg@k)
    warnings: list[str] = field(default_factory=list)
    verdict: Verdict | None = None  # the regression gate's, when one was asked for
    # Summary rows of what the page alone draws (Evaluation.curves: the precision-recall curve).
    curves: list[dict[str, Any]] = field(default_factory=list)


PRECISION_RECALL = "iprec_at_recall"


def page_measures() -> tuple[Measure, ...]:
    """What the page draws beside the asked measures, scored in the same pass: interpolated
    precision at trec_eval's 11 recall levels, for the precision-recall curve."""
    return tuple(parse_measures([PRECISION_RECALL]))


def report_k(ks: tuple[int, ...]) -> int:
    """The cutoff the charts of a single k use: 10 when evaluated (the usual headline), else the
    smallest."""
    return TREND_K if TREND_K in ks else min(ks)


def _at(per_query: DataFrame, k: int) -> DataFrame:
    return per_query.filter((F.col(c.MEASURE) == c.MEASURE_CUT) & (F.col(c.K) == k))


def _histogram(per_query: DataFrame, k: int) -> dict[str, list[int]]:
    bin_of = F.least(F.floor(F.col(c.NDCG) * HISTOGRAM_BINS), F.lit(HISTOGRAM_BINS - 1)).cast("int")
    counts: dict[str, list[int]] = {}
    for row in _at(per_query, k).groupBy(c.RUN_ID, bin_of.alias(_BIN)).count().collect():
        counts.setdefault(row[c.RUN_ID], [0] * HISTOGRAM_BINS)[row[_BIN]] = row["count"]
    return counts


def _differences(per_query: DataFrame, baseline: str, k: int) -> tuple[dict, dict, dict]:
    cutoff = Cutoff(c.MEASURE_CUT, k)
    pairs = paired(wide_values(per_query, [cutoff]), baseline, [cutoff])
    d = cutoff_column("d", cutoff)
    points = [i / QUANTILES for i in range(QUANTILES + 1)]
    quantiles = {
        row[c.RUN_ID]: row["q"]
        for row in pairs.groupBy(c.RUN_ID).agg(F.percentile_approx(d, points, QUANTILE_ACCURACY).alias("q")).collect()
    }
    wins: dict[str, list[tuple[str, float]]] = {}
    losses: dict[str, list[tuple[str, float]]] = {}
    for target, order, side in ((wins, F.col(d).desc(), F.col(d) > 0), (losses, F.col(d).asc(), F.col(d) < 0)):
        place = F.row_number().over(Window.partitionBy(c.RUN_ID).orderBy(order, F.col(c.QUERY_ID)))
        extremes = (
            pairs.filter(side).withColumn(_PLACE, place).filter(F.col(_PLACE) <= EXTREMES).orderBy(c.RUN_ID, _PLACE).collect()
        )
        for row in extremes:
            target.setdefault(row[c.RUN_ID], []).append((row[c.QUERY_ID], row[d]))
    return quantiles, wins, losses


_NOTHING_THERE = "PATH_NOT_FOUND"


def _trend(
    spark: SparkSession, layout: OutputLayout, evaluation: Evaluation, k: int, left_out: Collection[str] = ()
) -> list[tuple[str, str, float]]:
    """NDCG@k per run for every eval date already published with the same variant, with
    today's values in place of any published for this date. A summary without the variant
    column (written before it existed) counts as the default variant. The dates `left_out`
    (their manifests cannot be read: the caller warns of each) are not drawn. Only a summary
    folder that is not there means nothing published; any other read error is raised."""
    today = layout.label
    variants = {row[c.VARIANT] for row in evaluation.summary}
    points = today_points(layout, evaluation, k)
    if layout.eval_date is None:
        return points
    folder = layout.base(SUMMARY_DIR)
    try:
        published = spark.read.option("basePath", folder).option("mergeSchema", "true").parquet(f"{folder}/{c.EVAL_DATE}=*")
        recorded = F.col(c.VARIANT) if c.VARIANT in published.columns else F.lit(None).cast("string")
        same = F.coalesce(recorded, F.lit(Options().variant)).isin(*variants)
        history = (
            published.filter((F.col(c.MEASURE) == c.MEASURE_CUT) & (F.col(c.K) == k) & same)
            .select(F.col(c.EVAL_DATE).cast("string").alias(c.EVAL_DATE), c.RUN_ID, c.NDCG)
            .filter(~F.col(c.EVAL_DATE).isin(today, *left_out))
            .collect()
        )
    except AnalysisException as error:
        if _condition(error) != _NOTHING_THERE:
            raise
        history = []
    points += [(row[c.EVAL_DATE], row[c.RUN_ID], row[c.NDCG]) for row in history if row[c.NDCG] is not None]
    return sorted(points)


def today_points(layout: OutputLayout, evaluation: Evaluation, k: int) -> list[tuple[str, str, float]]:
    """This run's points of the trend: (its date, run, NDCG@k)."""
    return [
        (layout.label, row[c.RUN_ID], row[c.NDCG])
        for row in evaluation.summary
        if row[c.MEASURE] == c.MEASURE_CUT and row[c.K] == k and row[c.NDCG] is not None
    ]


def _condition(error: AnalysisException) -> str | None:
    """The error's condition (Spark 4's name; getErrorClass before it)."""
    named = getattr(error, "getCondition", None) or error.getErrorClass
    return named()


@dataclass(frozen=True)
class Page:
    """A report's page, and the files beside it that it loads by a relative path (plotly's
    JavaScript: one copy per output's report/ folder, not one per page)."""

    html: str
    assets: Mapping[str, str] = field(default_factory=dict)  # file name -> text


Renderer = Callable[[ReportData], Page]
"""Draws a report's page from its numbers (the HTML report's render, when plotly is installed)."""


def gather(
    spark: SparkSession,
    layout: OutputLayout,
    per_query: DataFrame,
    evaluation: Evaluation,
    ks: tuple[int, ...],
    baseline: str | None,
    warnings: list[str],
    verdict: Verdict | None = None,
    left_out: Collection[str] = (),
) -> ReportData:
    """The page's numbers; `layout` locates the summaries already published, for the trend
    (`left_out`: dates whose manifests cannot be read)."""
    k = report_k(ks)
    data = page_data(layout, evaluation, k, _histogram(per_query, k), _trend(spark, layout, evaluation, k, left_out))
    data = replace(data, baseline=baseline, warnings=warnings, verdict=verdict)
    if baseline is None:
        return data
    quantiles, wins, losses = _differences(per_query, baseline, k)
    return replace(data, differences=quantiles, wins=wins, losses=losses)


def page_data(
    layout: OutputLayout,
    evaluation: Evaluation,
    k: int,
    histogram: dict[str, list[int]],
    trend: list[tuple[str, str, float]],
) -> ReportData:
    """The page's numbers that come from the evaluation as it is, beside those each engine
    computes from per_query (`histogram`) and the published summaries (`trend`)."""
    return ReportData(
        title=layout.label,
        k=k,
        summary=[row.asDict() for row in evaluation.summary],
        comparison=evaluation.comparison,
        slices=[row.asDict() for row in evaluation.slices],
        histogram=histogram,
        trend=trend,
        curves=[row.asDict() for row in evaluation.curves],
    )
