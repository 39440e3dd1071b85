"""What the HTML report shows (report/data.py's numbers), from per_query rows in memory: the
embedded engine's page, computed in this process with numpy and pyarrow."""

from __future__ import annotations

import math
import os
from collections.abc import Collection
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ndcg_spark import columns as c
from ndcg_spark.comparison.rows import Cutoff
from ndcg_spark.comparison.tables import Pairing, values_table
from ndcg_spark.evaluation import Evaluation
from ndcg_spark.gate.verdict import Verdict
from ndcg_spark.io.layout import SUMMARY_DIR, OutputLayout
from ndcg_spark.options import Options
from ndcg_spark.report.data import EXTREMES, HISTOGRAM_BINS, QUANTILES, ReportData, page_data, report_k, today_points


def _at(per_query: pa.Table, k: int) -> pa.Table:
    return per_query.filter(pc.and_(pc.equal(per_query[c.MEASURE], c.MEASURE_CUT), pc.equal(per_query[c.K], k)))


def _histogram(per_query: pa.Table, k: int) -> dict[str, list[int]]:
    """Per run, its queries' count in each bin of NDCG@k (Spark's floor(v x BINS), the last bin closed)."""
    rows = _at(per_query, k)
    values = rows[c.NDCG].to_numpy(zero_copy_only=False).astype(np.float64)
    runs = rows[c.RUN_ID].to_numpy(zero_copy_only=False)
    bins = np.minimum(np.floor(values * HISTOGRAM_BINS), HISTOGRAM_BINS - 1).astype(np.int64)
    counts: dict[str, list[int]] = {}
    for run in sorted(set(runs.tolist())):
        counts[run] = np.bincount(bins[runs == run], minlength=HISTOGRAM_BINS).tolist()
    return counts


def _quantiles(differences: np.ndarray) -> list[float]:
    """Spark's percentile_approx, exact at these sizes: for each point p the smallest value with
    at least p of the values at or below it."""
    ordered = np.sort(differences)
    n = len(ordered)
    return [float(ordered[max(math.ceil(i / QUANTILES * n) - 1, 0)]) for i in range(QUANTILES + 1)]


def _differences(per_query: pa.Table, baseline: str, k: int) -> tuple[dict, dict, dict]:
    cutoff = Cutoff(c.MEASURE_CUT, k)
    pairing = Pairing.against_baseline(values_table(per_query), baseline, [cutoff])
    quantiles, wins, losses = {}, {}, {}
    for run, pairs in pairing.pairs.items():
        difference = pairs.values[cutoff][2]
        quantiles[run] = _quantiles(difference)
        queries = pairing.wide.queries.take(pa.array(pairs.rows)).to_pylist()
        ranked = [(float(d), query) for d, query in zip(difference.tolist(), queries, strict=True)]
        best = sorted((item for item in ranked if item[0] > 0), key=lambda item: (-item[0], item[1]))[:EXTREMES]
        worst = sorted((item for item in ranked if item[0] < 0), key=lambda item: (item[0], item[1]))[:EXTREMES]
        if best:
            wins[run] = [(query, d) for d, query in best]
        if worst:
            losses[run] = [(query, d) for d, query in worst]
    return quantiles, wins, losses


def _trend(layout: OutputLayout, evaluation: Evaluation, k: int, left_out: Collection[str]) -> list[tuple[str, str, float]]:
    """report.data._trend's points, from the published summaries read with pyarrow."""
    points = today_points(layout, evaluation, k)
    if layout.eval_date is None:
        return points
    folder = layout.base(SUMMARY_DIR)
    variants = {row[c.VARIANT] for row in evaluation.summary}
    skipped = {layout.label, *left_out}
    prefix = f"{c.EVAL_DATE}="
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    for name in names:
        date = name.removeprefix(prefix)
        if not name.startswith(prefix) or date in skipped:
            continue
        for row in pq.read_table(f"{folder}/{name}").to_pylist():
            variant = row.get(c.VARIANT) or Options().variant
            same = row[c.MEASURE] == c.MEASURE_CUT and row[c.K] == k and variant in variants
            if same and row[c.NDCG] is not None:
                points.append((date, row[c.RUN_ID], row[c.NDCG]))
    return sorted(points)


def gather_tables(
    layout: OutputLayout,
    per_query: pa.Table,
    evaluation: Evaluation,
    ks: tuple[int, ...],
    baseline: str | None,
    warnings: list[str],
    verdict: Verdict | None = None,
    left_out: Collection[str] = (),
) -> ReportData:
    """report.data.gather, of an embedded evaluation's rows."""
    k = report_k(ks)
    data = page_data(layout, evaluation, k, _histogram(per_query, k), _trend(layout, evaluation, k, left_out))
    data = replace(data, baseline=baseline, warnings=warnings, verdict=verdict)
    if baseline is None:
        return data
    quantiles, wins, losses = _differences(per_query, baseline, k)
    return replace(data, differences=quantiles, wins=wins, losses=losses)
