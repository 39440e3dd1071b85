"""The gate's verdict on a report, against the baseline run of the same report or against an
earlier report of the same runs: what the job publishes as DIR/gate and `ndcg_spark.gate` returns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ndcg_spark import columns as c
from ndcg_spark.comparison.gate import GateRow, GateRule, Verdict, against_baseline, against_earlier, slice_means
from ndcg_spark.comparison.pairing import with_value
from ndcg_spark.comparison.rows import Resampling
from ndcg_spark.publish.manifest import inputs_differ
from ndcg_spark.report.result import Report

EARLIER = "earlier report"  # what an earlier report is called when it has no eval date


def reference_label(reference: Report) -> str:
    """An earlier report's name in the verdict: its eval date, as its manifest records it."""
    date = (reference.manifest or {}).get("eval_date")
    return str(date) if date else EARLIER


def judgments_changed(report: Report, reference: Report, judgments: Mapping[str, Any] | None = None) -> bool | None:
    """Whether the two reports were computed from different judgments (by their manifests;
    `judgments` stands for this report's record when it is not published yet); None if unknown."""
    now = judgments or ((report.manifest or {}).get("inputs") or {}).get("judgments")
    return inputs_differ(((reference.manifest or {}).get("inputs") or {}).get("judgments"), now)


def verdict(
    report: Report,
    rule: GateRule,
    resampling: Resampling,
    *,
    baseline: str | None = None,
    earlier: Report | None = None,
    judgments: Mapping[str, Any] | None = None,
    note: str | None = None,
) -> Verdict:
    """Gate every run of `report` against `baseline` (a run of the same report) and/or against
    itself in `earlier`; `note` says why there is no reference when there is none."""
    spark, evaluation = report.per_query.sparkSession, report.evaluation
    per_query = with_value(report.per_query)
    runs = sorted({row[c.RUN_ID] for row in evaluation.summary})
    rows: list[GateRow] = []
    if baseline is not None:
        known = [row for row in evaluation.comparison if row.baseline == baseline]
        rows += against_baseline(spark, per_query, baseline, runs, rule, resampling, known, slice_means(evaluation.slices))
    if earlier is not None:
        rows += against_earlier(
            spark,
            per_query,
            with_value(earlier.per_query),
            reference_label(earlier),
            runs,
            rule,
            resampling,
            judgments_changed(report, earlier, judgments),
            (slice_means(earlier.evaluation.slices), slice_means(evaluation.slices)),
        )
    return Verdict(tuple(rows), rule, note)
