"""The report for people: one self-contained HTML file per eval date.

Plotly draws the charts: its figures are plain JSON, its JavaScript library is shipped inside the
Python package and inlined here once, so the file opens with no network, and readers can hover a
point to read its run, k and value, zoom into a tail of the distribution and hide runs from the
legend. (Static images from matplotlib would be smaller but give none of that; Vega-Lite via
Altair needs its JavaScript fetched or another package to inline it; Bokeh would do, with a
less familiar API.) The cost is about 5 MB of JavaScript per file.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import qualitative
from plotly.offline import get_plotlyjs

from ndcg_spark import columns as c
from ndcg_spark.comparison import rows as cmp
from ndcg_spark.formats import format_signed
from ndcg_spark.gate.verdict import FAILED, PASSED
from ndcg_spark.measures import NDCG_MEASURES, family_of, label
from ndcg_spark.report.data import HISTOGRAM_BINS, QUANTILES, ReportData
from ndcg_spark.report.formatting import (
    INTERVAL,
    WINS_TIES_LOSSES,
    comparison_cells,
    format_number,
    format_p,
    format_value,
    is_wide,
    slice_lines,
    summary_cutoffs,
    summary_variants,
    transposed,
)

CHART_CLASS = "chart"
_TEMPLATE = "plotly_white"
_HEIGHT = 420
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2.2rem; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.warning { color: #a40; } .note { color: #555; font-size: 0.9rem; }
.gate { padding: 0.6rem 1rem; border-radius: 6px; margin: 1rem 0; }
.gate.passed { background: #e6f4ea; border-left: 6px solid #1e8e3e; }
.gate.failed { background: #fce8e6; border-left: 6px solid #d93025; }
.gate h2 { margin-top: 0.2rem; }
"""


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(cell))}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _chart(figure: go.Figure, chart_id: str) -> str:
    figure.update_layout(template=_TEMPLATE, height=_HEIGHT, margin={"l": 60, "r": 20, "t": 40, "b": 50})
    inner = pio.to_html(figure, include_plotlyjs=False, full_html=False, div_id=chart_id)
    return f'<div class="{CHART_CLASS}">{inner}</div>'


def _runs(data: ReportData) -> list[str]:
    """Today's runs, the baseline first, then by name."""
    return sorted({row[c.RUN_ID] for row in data.summary}, key=lambda run: (run != data.baseline, run))


def _colors(data: ReportData) -> dict[str, str]:
    """One color per run on every chart: today's runs in table order, then runs seen only on
    earlier dates of the trend. (Plotly's own cycle colors each chart's traces in its order, so
    a chart without the baseline drew every run in the next run's color.)"""
    earlier = sorted({run for _, run, _ in data.trend} - set(_runs(data)))
    palette = qualitative.Plotly
    return {run: palette[i % len(palette)] for i, run in enumerate([*_runs(data), *earlier])}


def _summary_section(data: ReportData) -> str:
    cutoffs = summary_cutoffs(data.summary)
    values = {(row[c.RUN_ID], row[c.MEASURE], row[c.K]): row for row in data.summary}
    rows = []
    for run in _runs(data):
        cells = [format_value(cut[0], values[(run, *cut)][c.VALUE]) if (run, *cut) in values else "-" for cut in cutoffs]
        judged = values.get((run, c.MEASURE_CUT, data.k))
        queries = max(row[c.NUM_QUERIES] for (r, *_), row in values.items() if r == run)
        rows.append([run, *cells, queries, format_number(judged[c.JUDGED_AT_K], 2) if judged else "-"])
    header = ["run", *[label(*cut) for cut in cutoffs], "queries", f"judged@{data.k}"]
    if is_wide(cutoffs):  # trec_eval's layout: a line per measure, a column per run
        turned = transposed([header, *rows], "measure")
        header, rows = turned[0], turned[1:]
    variants = summary_variants(data.summary)
    scored = f"<p>Scored with {html.escape(', '.join(variants))}.</p>" if variants else ""
    titled = "NDCG by run and cutoff" if {name for name, _ in cutoffs} <= set(NDCG_MEASURES) else "Measures by run"
    return f"<h2>{titled}</h2>" + _table(header, rows) + scored


def _line(points: Sequence[tuple[Any, float]], run: str, color: str) -> go.Scatter:
    """One run's points joined by a line, in the run's color."""
    return go.Scatter(
        x=[x for x, _ in points], y=[y for _, y in points], mode="lines+markers", name=run, marker_color=color, line_color=color
    )


def _by_k_chart(data: ReportData) -> str:
    figure, colors = go.Figure(), _colors(data)
    for run in _runs(data):
        points = sorted(
            (row[c.K], row[c.NDCG]) for row in data.summary if row[c.RUN_ID] == run and row[c.MEASURE] == c.MEASURE_CUT
        )
        figure.add_trace(_line(points, run, colors[run]))
    figure.update_layout(xaxis_title="k", yaxis_title="mean NDCG@k")
    return "<h2>NDCG@k against k</h2>" + _chart(figure, "ndcg-by-k")


IPREC = "iprec_at_recall"


def _precision_recall_chart(data: ReportData) -> str:
    """Each run's interpolated precision at the recall levels it was scored at (the classic
    recall-precision curve), when the report holds iprec_at_recall; else how to ask for it."""
    curves: dict[str, list[tuple[float, float]]] = {}
    for row in data.summary:
        family, level = family_of(row[c.MEASURE])
        if family == IPREC and level and row[c.K] is None and row[c.VALUE] is not None:
            curves.setdefault(row[c.RUN_ID], []).append((float(level), row[c.VALUE]))
    title = "<h2>Interpolated precision against recall</h2>"
    if not curves:
        return title + (
            '<p class="note">Ask for iprec_at_recall (--measure iprec_at_recall, or official or all_trec) to draw each'
            " run's precision-recall curve here.</p>"
        )
    figure, colors = go.Figure(), _colors(data)
    for run in _runs(data):
        if run in curves:
            figure.add_trace(_line(sorted(curves[run]), run, colors[run]))
    figure.update_layout(xaxis_title="recall", yaxis_title="mean interpolated precision", xaxis_range=[-0.02, 1.02])
    return title + _chart(figure, "precision-recall")


def _distribution_chart(data: ReportData) -> str:
    width = 1.0 / HISTOGRAM_BINS
    figure, colors = go.Figure(), _colors(data)
    for run in _runs(data):
        counts = data.histogram.get(run, [0] * HISTOGRAM_BINS)
        total = sum(counts) or 1
        figure.add_trace(
            go.Bar(
                x=[(i + 0.5) * width for i in range(HISTOGRAM_BINS)],
                y=[n / total for n in counts],
                name=run,
                marker_color=colors[run],
                width=width * 0.9 / max(1, len(_runs(data))),
            )
        )
    figure.update_layout(barmode="group", xaxis_title=f"NDCG@{data.k} of a query", yaxis_title="share of queries")
    return f"<h2>Distribution of per-query NDCG@{data.k}</h2>" + _chart(figure, "distribution")


def _differences_section(data: ReportData) -> str:
    if not data.baseline or not data.differences:
        return ""
    figure, colors = go.Figure(), _colors(data)
    for run, quantiles in sorted(data.differences.items()):
        figure.add_trace(
            go.Scatter(
                x=[100 * i / QUANTILES for i in range(len(quantiles))],
                y=quantiles,
                mode="lines",
                name=run,
                line_color=colors.get(run),
            )
        )
    figure.add_hline(y=0, line_color="#888")
    figure.update_layout(
        xaxis_title="queries, sorted by difference (percentile)",
        yaxis_title=f"NDCG@{data.k} run - {data.baseline}",
    )
    parts = [
        f"<h2>Per-query differences against {html.escape(data.baseline)}, sorted</h2>",
        _chart(figure, "differences"),
    ]
    for run in sorted(data.differences):
        wins, losses = data.wins.get(run, []), data.losses.get(run, [])
        parts.append(f"<h3>{html.escape(run)}: biggest wins and losses at k={data.k}</h3>")
        rows = [
            [
                wins[i][0] if i < len(wins) else "",
                format_number(wins[i][1]) if i < len(wins) else "",
                losses[i][0] if i < len(losses) else "",
                format_number(losses[i][1]) if i < len(losses) else "",
            ]
            for i in range(max(len(wins), len(losses)))
        ]
        header = ["win: query", "difference", "loss: query", "difference"]
        parts.append(_table(header, rows) if rows else "<p class='note'>no differences</p>")
    return "".join(parts)


def _comparison_section(data: ReportData) -> str:
    if not data.comparison:
        return ""
    columns = (
        (c.RUN_ID, "run"),
        (c.MEASURE, "measure"),
        (cmp.NUM_QUERIES, "queries"),
        (cmp.NDCG_BASELINE, "baseline"),
        (cmp.NDCG_RUN, "run"),
        (cmp.MEAN_DIFFERENCE, "diff"),
        (WINS_TIES_LOSSES, "W/T/L"),
        (cmp.P_T, "p(t)"),
        (cmp.P_T_HOLM, "Holm"),
        (cmp.P_RANDOMIZATION, "p(rand)"),
        (cmp.P_RANDOMIZATION_HOLM, "Holm"),
        (INTERVAL, "95% CI"),
    )
    rows = [[cells[name] for name, _ in columns] for cells in map(comparison_cells, data.comparison)]
    header = [title for _, title in columns]
    return f"<h2>Against the baseline {html.escape(data.baseline or '')}</h2>" + _table(header, rows)


def _trend_chart(data: ReportData) -> str:
    figure, colors = go.Figure(), _colors(data)
    for run in colors:
        points = [(date, value) for date, r, value in data.trend if r == run]
        if points:
            figure.add_trace(_line(points, run, colors[run]))
    figure.update_layout(xaxis_title="eval date", yaxis_title=f"mean NDCG@{data.k}", xaxis_type="category")
    return f"<h2>NDCG@{data.k} across eval dates</h2>" + _chart(figure, "trend")


def _slices_section(data: ReportData) -> str:
    """Each slice value's means: NDCG@k, and every other measure at k or without a cutoff."""
    shown = [row for row in data.slices if row[c.K] in (data.k, None) and row[c.MEASURE] != c.MEASURE_UNCUT]
    if not shown:
        return ""
    cutoffs, rows = slice_lines(shown)
    header = ["slice", "value", "run", *[label(*cut) for cut in cutoffs], "queries"]
    titled = f"NDCG@{data.k}" if len(cutoffs) == 1 else f"The measures at k = {data.k}"
    return f"<h2>{titled} by slice</h2>" + _table(header, rows)


GATE_CLASS = "gate"


def _gate_section(data: ReportData) -> str:
    """The gate's verdict, first on the page: green when it passed, red when it failed."""
    verdict = data.verdict
    if verdict is None:
        return ""
    state = PASSED if verdict.passed else FAILED
    head = verdict.headline
    header = ["run", "measure", "against", "before", "after", "difference", INTERVAL, "p (Holm)", "outcome"]
    rows = [
        [
            row.run_id,
            row.label,
            row.reference,
            format_number(row.mean_reference),
            format_number(row.mean_run),
            format_signed(row.difference),
            f"[{format_signed(row.ci_low)}, {format_signed(row.ci_high)}]",
            format_p(row.p_value_randomization_holm),
            row.outcome,
        ]
        for row in verdict.in_order
    ]
    fallen = "".join(
        f"<h3>{html.escape(row.run_id)} {html.escape(row.label)}: queries that fell most"
        f" against {html.escape(row.reference)}</h3>"
        + _table(
            ["query", "before", "after"],
            [[query, format_number(before), format_number(after)] for query, before, after in row.fell_most],
        )
        for row in verdict.rows
        if row.dropped and row.fell_most
    )
    notes = "".join(f'<p class="note">{html.escape(note)}</p>' for note in verdict.notes)
    table = _table(header, rows) if rows else ""
    return f'<section class="{GATE_CLASS} {state.lower()}"><h2>Gate: {html.escape(head)}</h2>{table}{notes}{fallen}</section>'


def render(data: ReportData) -> str:
    warnings = "".join(f'<p class="warning">{html.escape(text)}</p>' for text in data.warnings)
    body = "".join(
        [
            f"<h1>ndcg-spark report: {html.escape(data.title)}</h1>",
            _gate_section(data),
            warnings,
            _summary_section(data),
            _by_k_chart(data),
            _precision_recall_chart(data),
            _distribution_chart(data),
            _comparison_section(data),
            _differences_section(data),
            _trend_chart(data),
            _slices_section(data),
        ]
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>ndcg-spark {html.escape(data.title)}</title><style>{_STYLE}</style>"
        f"<script>{get_plotlyjs()}</script></head><body>{body}</body></html>\n"
    )
