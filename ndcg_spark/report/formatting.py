"""The table printed at the end of a run: run x (measure, cutoff), and the counts that make it
trustworthy."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ndcg_spark import columns as c
from ndcg_spark.comparison import rows as cmp
from ndcg_spark.evaluation import Evaluation, RunCounts
from ndcg_spark.formats import NULL_VALUE, format_number, format_p
from ndcg_spark.measures import is_whole, label, report_order, trec_eval_order
from ndcg_spark.scoring.slices import SLICE, SLICE_VALUE

LOW_JUDGED_WARNING = 0.5
MAX_SLICE_LINES = 60


Column = tuple[str, int | None]
"""A column of the tables: a measure at a cutoff (None: uncut)."""


# More measure columns than this (all_trec has about 100) and a table turns to trec_eval's
# layout: a line per measure, in trec_eval's order, a column per run.
WIDE_COLUMNS = 12


def summary_cutoffs(rows: Iterable[Any]) -> list[Column]:
    """The (measure, k) of summary-like rows in reading order: NDCG first, k ascending, each
    uncut measure after its cutoffs; when the table is wide, in trec_eval's order."""
    columns = sorted({(row[c.MEASURE], row[c.K]) for row in rows}, key=lambda column: report_order(*column))
    if len(columns) <= WIDE_COLUMNS:
        return columns
    return sorted(columns, key=lambda column: (trec_eval_order(column[0]), *report_order(*column)[1:]))


def format_value(measure: str, value: float | None) -> str:
    """A summary value as the tables print it: a count (num_ret, ...) whole, as trec_eval prints
    it, any other measure to 4 decimals."""
    return format_number(value, 0) if is_whole(measure) else format_number(value)


def is_wide(columns: Sequence[Column]) -> bool:
    """Whether a table of these measure columns is printed a line per measure."""
    return len(columns) > WIDE_COLUMNS


def transposed(lines: Sequence[Sequence[Any]], first: Any) -> list[list[Any]]:
    """A table's lines turned: its columns become lines, its first column the header, headed by
    `first`."""
    return [
        [first, *[line[0] for line in lines[1:]]],
        *[[lines[0][j], *[line[j] for line in lines[1:]]] for j in range(1, len(lines[0]))],
    ]


def summary_values(rows: Iterable[Any]) -> dict[tuple[str, str, int | None], float | None]:
    """(run, measure, k) -> the mean of summary-like rows."""
    return {(row[c.RUN_ID], row[c.MEASURE], row[c.K]): row[c.VALUE] for row in rows}


def summary_variants(rows: Iterable[Any]) -> list[str]:
    """How the summary rows were computed (their `variant` values), as every report shows it."""
    return sorted({str(row[c.VARIANT]) for row in rows})


def _aligned(lines: Sequence[Sequence[str]]) -> list[str]:
    """Columns padded to their widest cell: the first left-aligned, the rest right-aligned."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths, strict=True)))
        for line in lines
    ]


WINS_TIES_LOSSES = "wins_ties_losses"
INTERVAL = "interval"


def comparison_cells(row: cmp.ComparisonRow) -> dict[str, str]:
    """A comparison row's values as shown, by column, for the printed table and the HTML page."""
    difference = row.mean_difference
    return {
        c.RUN_ID: row.run_id,
        c.MEASURE: label(row.measure, row.k),
        cmp.NUM_QUERIES: str(row.num_queries),
        cmp.NDCG_BASELINE: format_number(row.ndcg_baseline),
        cmp.NDCG_RUN: format_number(row.ndcg_run),
        cmp.MEAN_DIFFERENCE: "-" if difference is None else f"{difference:+.4f}",
        WINS_TIES_LOSSES: f"{row.wins}/{row.ties}/{row.losses}",
        cmp.P_T: format_p(row.p_value_t),
        cmp.P_T_HOLM: format_p(row.p_value_t_holm),
        cmp.P_RANDOMIZATION: format_p(row.p_value_randomization),
        cmp.P_RANDOMIZATION_HOLM: format_p(row.p_value_randomization_holm),
        INTERVAL: "-" if row.ci_low is None else f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]",
    }


# The comparison's columns as the console, the page and their legends show them: one list.
COMPARISON_COLUMNS = (
    (c.RUN_ID, "run"),
    (c.MEASURE, "measure"),
    (cmp.NUM_QUERIES, "queries"),
    (cmp.NDCG_BASELINE, "baseline mean"),
    (cmp.NDCG_RUN, "run mean"),
    (cmp.MEAN_DIFFERENCE, "diff"),
    (WINS_TIES_LOSSES, "W/T/L"),
    (cmp.P_T, "p(t)"),
    (cmp.P_T_HOLM, "Holm p(t)"),
    (cmp.P_RANDOMIZATION, "p(rand)"),
    (cmp.P_RANDOMIZATION_HOLM, "Holm p(rand)"),
    (INTERVAL, "95% CI"),
)


def format_comparison(rows: list[cmp.ComparisonRow]) -> str:
    """One line per compared run and cutoff: both means, the difference and its tests."""
    if not rows:
        return ""
    first = rows[0]
    lines: list[Sequence[str]] = [[title for _, title in COMPARISON_COLUMNS]]
    for row in rows:
        cells = comparison_cells(row)
        lines.append([cells[name] for name, _ in COMPARISON_COLUMNS])
    exact = sorted({row.run_id for row in rows if row.randomization_exact})
    notes = [
        f"against baseline {first.baseline}, over the queries scored for both;"
        f" randomization: {max(row.permutations for row in rows)} sign flips,"
        f" bootstrap: {first.bootstrap} resamples (Poisson), seed {first.seed}",
    ]
    if exact:
        notes.append(f"randomization exact (every sign flip) for: {', '.join(exact)}")
    return "\n".join([*_aligned(lines), *notes])


def slice_lines(rows: Sequence[Any]) -> tuple[list[Column], list[list[str]]]:
    """Slice-summary rows as a table's columns and lines: per (slice, value, run), the mean of
    each (measure, k) and the queries, for the printed table and the HTML page."""
    cutoffs = summary_cutoffs(rows)
    groups: dict[tuple[str, str | None, str], dict[Column, Any]] = {}
    for row in rows:
        groups.setdefault((row[SLICE], row[SLICE_VALUE], row[c.RUN_ID]), {})[(row[c.MEASURE], row[c.K])] = row
    lines = [
        [
            name,
            NULL_VALUE if value is None else value,
            run,
            *[format_number(by_cut[cut][c.VALUE]) if cut in by_cut else "-" for cut in cutoffs],
            str(max(row[c.NUM_QUERIES] for row in by_cut.values())),
        ]
        for (name, value, run), by_cut in groups.items()
    ]
    return cutoffs, lines


def format_slices(rows: Sequence[Any]) -> str:
    """Per slice value and run, each measure at each cutoff (the first MAX_SLICE_LINES lines)."""
    if not rows:
        return ""
    cutoffs, lines = slice_lines(rows)
    header = ["slice", "value", "run", *[label(*cut) for cut in cutoffs], "queries"]
    notes = [] if len(lines) <= MAX_SLICE_LINES else [f"... {len(lines) - MAX_SLICE_LINES} more in the slices dataset"]
    return "\n".join([*_aligned([header, *lines[:MAX_SLICE_LINES]]), *notes])


def baseline_first(runs: Sequence[RunCounts], baseline: str | None) -> list[RunCounts]:
    """The runs in their order, the baseline moved to the top: what the others are read against."""
    return sorted(runs, key=lambda counts: counts.run_id != baseline)


# How the caller turns --complete on, in its own words: the job's flag by default.
COMPLETE_FLAG = "--complete"


def format_table(evaluation: Evaluation, complete: str = COMPLETE_FLAG) -> str:
    cutoffs = summary_cutoffs(evaluation.summary)
    values = summary_values(evaluation.summary)
    runs = [counts.run_id for counts in evaluation.runs]
    header = ["run", *[label(*cut) for cut in cutoffs], "queries", "missing", "skipped"]
    lines: list[Sequence[str]] = [header]
    baseline = evaluation.comparison[0].baseline if evaluation.comparison else None
    for counts in baseline_first(evaluation.runs, baseline):
        cells = [format_value(cut[0], values.get((counts.run_id, *cut))) for cut in cutoffs]
        lines.append([counts.run_id, *cells, str(counts.evaluated), str(counts.missing), str(counts.skipped)])
    table = _aligned(transposed(lines, "measure") if is_wide(cutoffs) else lines)
    notes = [
        f"read {_count(evaluation.judgment_rows, 'judgment row')} ({_count(evaluation.judged_queries, 'judged query')})"
        f" and {_count(evaluation.result_rows, 'result row')} ({_count(len(runs), 'run')})",
        "queries: scored per run; missing = judged but absent from the run"
        + (f" (scored 0, {complete})" if evaluation.complete else f" (not scored; {complete} scores them 0)")
        + "; skipped = retrieved but never judged (not scored)",
    ]
    variants = summary_variants(evaluation.summary)
    if variants:
        notes.append(f"scored with {', '.join(variants)}")
        notes += _variant_notes(variants[0])
    if evaluation.duplicate_judgments_dropped:
        notes.append(f"lenient: dropped {evaluation.duplicate_judgments_dropped} duplicate judgment rows")
    if evaluation.duplicate_results_dropped:
        notes.append(f"lenient: dropped {evaluation.duplicate_results_dropped} duplicate result rows")
    notes += [f"warning: {text}" for text in judged_warnings(evaluation)]
    return "\n".join([*table, "", *notes])


def _count(number: int, noun: str) -> str:
    """'1 run', '2 runs', '1 judged query', '3 judged queries'."""
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{number:,} {noun if number == 1 else plural}"


def _variant_notes(variant: str) -> list[str]:
    """What a reader needs to read the variant's numbers right, a line each."""
    notes = []
    if "gains=" in variant:
        notes.append("grades not in gains keep the gain's value")
    if "judged_only" in variant:
        notes.append("judged_only: unjudged documents removed before ranking, so judged@k is 1")
    if "max_depth=" in variant:
        notes.append("max_depth: each list cut after that many documents")
    return notes


def judged_warnings(evaluation: Evaluation) -> list[str]:
    """Runs whose top k is less than half judged: their values are mostly a guess about unjudged
    documents (each counted as non-relevant). Once per run and k, whatever the measures at k."""
    warnings = []
    fractions = {(row[c.RUN_ID], row[c.K]): row[c.JUDGED_AT_K] for row in evaluation.summary if row[c.K] is not None}
    for (run, k), fraction in sorted(fractions.items()):
        if fraction is not None and fraction < LOW_JUDGED_WARNING:
            warnings.append(
                f"run {run}: only {fraction:.0%} of the top {k} is judged on average; unjudged documents count as non-relevant"
            )
    return warnings


def format_report(evaluation: Evaluation, complete: str = COMPLETE_FLAG) -> str:
    """Everything the job prints about an evaluation: the table, then the comparison and the
    slices when there are any."""
    parts = [format_table(evaluation, complete), format_comparison(evaluation.comparison), format_slices(evaluation.slices)]
    return "\n\n".join(part for part in parts if part)
