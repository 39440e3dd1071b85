"""The HTML page draws each run in one color on every chart, the baseline first (no Spark)."""

from __future__ import annotations

import json
import re

# plotly is a dependency of the package: without it this file fails to import, not skips.
from ndcg_spark.report.data import HISTOGRAM_BINS, ReportData
from ndcg_spark.report.html import render


def _row(run: str, k: int, ndcg: float) -> dict:
    return {
        "run_id": run,
        "measure": "ndcg_cut",
        "k": k,
        "ndcg": ndcg,
        "num_queries": 3,
        "judged_at_k": 1.0,
        "variant": "gain=linear",
        "value": ndcg,
    }


def test_each_run_keeps_its_color_on_every_chart() -> None:
    runs = ["bm25", "dense", "hybrid"]
    data = ReportData(
        title="2026-12-01",
        k=10,
        summary=[_row(run, k, 0.5) for run in runs for k in (5, 10)],
        comparison=[],
        slices=[],
        histogram={run: [1] * HISTOGRAM_BINS for run in runs},
        baseline="hybrid",
        differences={"bm25": [-0.1, 0.0, 0.1], "dense": [-0.2, 0.1, 0.3]},
        trend=[("2026-11-30", "old", 0.4), *[("2026-12-01", run, 0.5) for run in runs]],
    )
    page = render(data).html
    colors: dict[str, set[str]] = {}
    for chart in re.findall(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*(\[.*?\]),\s*\{", page, re.DOTALL):
        for trace in json.loads(chart):
            color = (trace.get("line") or {}).get("color") or (trace.get("marker") or {}).get("color")
            colors.setdefault(trace["name"], set()).add(color)
    assert set(colors) == {*runs, "old"}
    assert all(len(found) == 1 and None not in found for found in colors.values()), colors
    assert len({next(iter(found)) for found in colors.values()}) == 4  # four runs, four colors
    # the summary table: the baseline first
    table = page.split("NDCG by run and cutoff", 1)[1]
    assert table.index(">hybrid<") < table.index(">bm25<") < table.index(">dense<")


def _iprec(run: str, level: float, value: float) -> dict:
    return {**_row(run, 0, value), "measure": f"iprec_at_recall_{level:.2f}", "k": None, "ndcg": None}


def _charts(page: str) -> dict[str, list[dict]]:
    found = re.findall(r"Plotly\.newPlot\(\s*\"([^\"]+)\",\s*(\[.*?\]),\s*\{", page, re.DOTALL)
    return {chart_id: json.loads(traces) for chart_id, traces in found}


def test_the_precision_recall_curve_draws_each_run_in_its_color() -> None:
    runs, levels = ["bm25", "dense"], [0.0, 0.5, 1.0]
    summary = [_row(run, 10, 0.5) for run in runs]
    summary += [_iprec(run, level, 1 - level / (2 if run == "bm25" else 4)) for run in runs for level in levels]
    data = ReportData(
        title="t", k=10, summary=summary, comparison=[], slices=[], histogram={run: [1] * HISTOGRAM_BINS for run in runs}
    )
    page = render(data).html
    charts = _charts(page)
    (curve_id,) = [chart_id for chart_id in charts if "precision-recall" in chart_id]
    curve = {trace["name"]: trace for trace in charts[curve_id]}
    assert curve["dense"]["x"] == levels and curve["dense"]["y"] == [1.0, 0.875, 0.75]
    assert curve["bm25"]["y"] == [1.0, 0.75, 0.5]
    by_k = {
        trace["name"]: trace["line"]["color"] for chart_id, traces in charts.items() if "by-k" in chart_id for trace in traces
    }
    assert {run: trace["line"]["color"] for run, trace in curve.items()} == by_k


def test_without_iprec_at_recall_the_page_says_how_to_ask_for_the_curve() -> None:
    data = ReportData(
        title="t", k=10, summary=[_row("a", 10, 0.5)], comparison=[], slices=[], histogram={"a": [1] * HISTOGRAM_BINS}
    )
    page = render(data).html
    assert "Ask for iprec_at_recall" in page and not any("precision-recall" in chart_id for chart_id in _charts(page))
