"""The report for people: one HTML file per eval date, beside one copy of plotly's JavaScript.

Plotly draws the charts: its figures are plain JSON, its JavaScript library is shipped inside the
Python package and written once per output, beside the pages (report/plotly-VERSION.min.js), so a
page opens with no network, and readers can hover a point to read its run, k and value, zoom into
a tail of the distribution and hide runs from the legend. (Static images from matplotlib would be
smaller but give none of that; Vega-Lite via Altair needs its JavaScript fetched or another
package to inline it; Bokeh would do, with a less familiar API.) Inlined, the library cost about
5 MB per page; shared, a page is tens of kB. A page copied away from its folder needs the file
beside it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import plotly
import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import qualitative
from plotly.offline import get_plotlyjs

from ndcg_spark import columns as c
from ndcg_spark.comparison import rows as cmp
from ndcg_spark.formats import NULL_VALUE, format_signed
from ndcg_spark.gate.verdict import FAILED, PASSED, GateRow
from ndcg_spark.measures import NDCG_MEASURES, cut_head, family_of, label, report_order
from ndcg_spark.report.data import HISTOGRAM_BINS, QUANTILES, Page, ReportData
from ndcg_spark.report.formatting import (
    COMPARISON_COLUMNS,
    INTERVAL,
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
from ndcg_spark.report.tables import significant

CHART_CLASS = "chart"
PLOTLY_FILE = f"plotly-{plotly.__version__}.min.js"  # beside the pages; a new version, a new file
_TEMPLATE = "plotly_white"
_HEIGHT = 420
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2.2rem; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: right; }
td { white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
.warning { color: #a40; } .note { color: #555; font-size: 0.9rem; }
.gate { padding: 0.6rem 1rem; border-radius: 6px; margin: 1rem 0; }
.gate.passed { background: #e6f4ea; border-left: 6px solid #1e8e3e; }
.gate.failed { background: #fce8e6; border-left: 6px solid #d93025; }
.gate h2 { margin-top: 0.2rem; }
.headline { padding: 0.4rem 1rem; border-radius: 6px; margin: 1rem 0; background: #eef3fb; border-left: 6px solid #1a73e8; }
.headline h2 { margin-top: 0.2rem; } .headline li { margin: 0.2rem 0; }
.fallen { display: flex; gap: 2.5rem; align-items: flex-start; }
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
    """Each measure with cutoffs against k, one measure at a time (a menu picks it: NDCG first);
    k is a category, so that the axis shows the cutoffs evaluated and no others."""
    families = sorted({row[c.MEASURE] for row in data.summary if row[c.K] is not None}, key=lambda name: report_order(name, 1))
    if not families:
        return ""
    ks = sorted({row[c.K] for row in data.summary if row[c.K] is not None})
    figure, colors, runs = go.Figure(), _colors(data), _runs(data)
    for index, family in enumerate(families):
        for run in runs:
            points = sorted(
                (row[c.K], row[c.VALUE])
                for row in data.summary
                if row[c.RUN_ID] == run and row[c.MEASURE] == family and row[c.K] is not None
            )
            trace = _line([(str(k), value) for k, value in points], run, colors[run])
            trace.update(visible=index == 0, legendgroup=run, meta=family)
            figure.add_trace(trace)
    names = {family: cut_head(family) for family in families}
    title = {family: f"mean {names[family]}@k" for family in families}
    figure.update_layout(
        xaxis_title="k",
        yaxis_title=title[families[0]],
        xaxis={"type": "category", "categoryorder": "array", "categoryarray": [str(k) for k in ks]},
    )
    if len(families) > 1:
        buttons = [
            {
                "label": names[family],
                "method": "update",
                "args": [{"visible": [item == family for item in families for _ in runs]}, {"yaxis.title.text": title[family]}],
            }
            for family in families
        ]
        figure.update_layout(updatemenus=[{"buttons": buttons, "x": 0.0, "xanchor": "left", "y": 1.15, "yanchor": "top"}])
    named = "NDCG@k against k" if len(families) == 1 else "Each measure against k (the menu picks the measure)"
    return f"<h2>{named}</h2>" + _chart(figure, "ndcg-by-k")


def _uncut_chart(data: ReportData) -> str:
    """The measures without a cutoff (uncut NDCG, map, recip_rank, bpref, ...), side by side."""
    measures = sorted(
        {row[c.MEASURE] for row in data.summary if row[c.K] is None and family_of(row[c.MEASURE])[0] != IPREC},
        key=lambda name: report_order(name, None),
    )
    if not measures:
        return ""
    values = {(row[c.RUN_ID], row[c.MEASURE]): row[c.VALUE] for row in data.summary if row[c.K] is None}
    figure, colors = go.Figure(), _colors(data)
    for run in _runs(data):
        shown = [measure for measure in measures if values.get((run, measure)) is not None]
        figure.add_trace(
            go.Bar(x=[label(m, None) for m in shown], y=[values[(run, m)] for m in shown], name=run, marker_color=colors[run])
        )
    figure.update_layout(barmode="group", xaxis_title="measure", yaxis_title="mean", xaxis_type="category")
    return "<h2>The measures without a cutoff</h2>" + _chart(figure, "uncut")


IPREC = "iprec_at_recall"


def _precision_recall_chart(data: ReportData) -> str:
    """Each run's interpolated precision at the recall levels it was scored at (the classic
    recall-precision curve): iprec_at_recall's, asked for or scored for the page alone."""
    curves: dict[str, list[tuple[float, float]]] = {}
    for row in [*data.summary, *data.curves]:
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
    columns = COMPARISON_COLUMNS
    rows = [[cells[name] for name, _ in columns] for cells in map(comparison_cells, data.comparison)]
    header = [title for _, title in columns]
    baseline = html.escape(data.baseline or "")
    return f"<h2>Against the baseline {baseline}</h2>" + _table(header, rows) + _COMPARISON_LEGEND.format(baseline=baseline)


_COMPARISON_LEGEND = (
    '<p class="note comparison-legend"><b>queries</b>: those both the run and {baseline} scored; a query that one of'
    " them has no value for is left out of the pair, so this can be fewer than the queries of the summary, which counts"
    " each run's own. <b>W/T/L</b>: the queries where the run scored higher than, the same as, or lower than {baseline}."
    " <b>p(t)</b>: the paired t-test's p; <b>p(rand)</b>: the paired randomization test's (the share of random sign"
    " flips of the differences whose mean is at least as far from 0); <b>Holm</b>: each corrected for the runs compared"
    " at that measure and cutoff. <b>95% CI</b>: the bootstrap interval of the mean difference. docs/outputs.md says"
    " more.</p>"
)


def _headline_section(data: ReportData) -> str:
    """Without a gate, the page opens with what the comparison found: at each measure, the run
    that gained most on the baseline, by how much, its interval, and whether that holds after
    Holm's correction (the Markdown table's dagger)."""
    if data.verdict is not None or not data.comparison:
        return ""
    best: dict[tuple[str, int | None], cmp.ComparisonRow] = {}
    for row in data.comparison:
        key = (row.measure, row.k)
        leader = best.get(key)
        if row.mean_difference is not None and (leader is None or row.mean_difference > (leader.mean_difference or 0.0)):
            best[key] = row
    lines = []
    for (measure, k), row in sorted(best.items(), key=lambda item: report_order(*item[0])):
        held = "significant" if significant(row) else "not significant"
        p = row.p_value_randomization_holm if row.p_value_randomization_holm is not None else row.p_value_t_holm
        lines.append(
            f"<li><b>{html.escape(label(measure, k))}</b>: {html.escape(row.run_id)} {format_signed(row.mean_difference)}"
            f" (95% CI [{format_signed(row.ci_low)}, {format_signed(row.ci_high)}]), {held} after Holm"
            f" (p {format_p(p)})</li>"
        )
    baseline = html.escape(data.baseline or "")
    return (
        f'<section class="{HEADLINE_CLASS}"><h2>Against {baseline}: the best run at each measure</h2>'
        f"<ul>{''.join(lines)}</ul></section>"
    )


HEADLINE_CLASS = "headline"


def _trend_chart(data: ReportData) -> str:
    dates = sorted({date for date, _, _ in data.trend})
    title = f"<h2>NDCG@{data.k} across eval dates</h2>"
    if len(dates) < 2:
        only = f" ({html.escape(dates[0])})" if dates else ""
        return title + (
            f'<p class="note trend-note">One eval date is published so far{only}: the trend is drawn from the second'
            " (run the job with --eval-date).</p>"
        )
    figure, colors = go.Figure(), _colors(data)
    for run in colors:
        points = [(date, value) for date, r, value in data.trend if r == run]
        if points:
            figure.add_trace(_line(points, run, colors[run]))
    figure.update_layout(xaxis_title="eval date", yaxis_title=f"mean NDCG@{data.k}", xaxis_type="category")
    return title + _chart(figure, "trend")


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


def _fallen(row: GateRow) -> str:
    """What fell most for one gated row: its queries and its slices, side by side."""
    queries = _table(
        ["query", "before", "after"],
        [[query, format_number(before), format_number(after)] for query, before, after in row.fell_most],
    )
    slices = _table(
        ["slice", "value", "before", "after"],
        [
            [name, NULL_VALUE if value is None else value, format_number(before), format_number(after)]
            for name, value, before, after in row.slices_fell_most
        ],
    )
    parts = ([queries] if row.fell_most else []) + ([slices] if row.slices_fell_most else [])
    return (
        f"<h3>{html.escape(row.run_id)} {html.escape(row.label)} against {html.escape(row.reference_in_words)}:"
        f' what fell most</h3><div class="fallen">{"".join(parts)}</div>'
    )


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
    fallen = "".join(_fallen(row) for row in verdict.in_order if row.dropped and (row.fell_most or row.slices_fell_most))
    notes = "".join(f'<p class="note">{html.escape(note)}</p>' for note in verdict.notes)
    table = _table(header, rows) if rows else ""
    return f'<section class="{GATE_CLASS} {state.lower()}"><h2>Gate: {html.escape(head)}</h2>{table}{notes}{fallen}</section>'


def render(data: ReportData, self_contained: bool = False) -> Page:
    """The page, and plotly's JavaScript to write beside it once (PLOTLY_FILE); self_contained:
    the JavaScript inside the page instead (about 5 MB), for a page sent on its own."""
    warnings = "".join(f'<p class="warning">{html.escape(text)}</p>' for text in data.warnings)
    body = "".join(
        [
            f"<h1>ndcg-spark report: {html.escape(data.title)}</h1>",
            _gate_section(data),
            _headline_section(data),
            warnings,
            _summary_section(data),
            _by_k_chart(data),
            _uncut_chart(data),
            _precision_recall_chart(data),
            _distribution_chart(data),
            _comparison_section(data),
            _differences_section(data),
            _trend_chart(data),
            _slices_section(data),
        ]
    )
    script = f"<script>{get_plotlyjs()}</script>" if self_contained else f'<script src="{PLOTLY_FILE}"></script>'
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>ndcg-spark {html.escape(data.title)}</title><style>{_STYLE}</style>"
        f"{script}</head><body>{body}</body></html>\n"
    )
    return Page(page, {} if self_contained else {PLOTLY_FILE: get_plotlyjs()})
