"""The summary and the comparison as a table to paste: Markdown for a pull request or a wiki,
LaTeX for a paper (booktabs rules, the best value of each column in bold, a dagger on a run
significantly different from the baseline)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from ndcg_spark.comparison.rows import ComparisonRow
from ndcg_spark.evaluation import Evaluation
from ndcg_spark.measures import label
from ndcg_spark.report.formatting import (
    baseline_first,
    format_number,
    format_p,
    format_value,
    is_wide,
    summary_cutoffs,
    summary_values,
    summary_variants,
    transposed,
)

TableFormat = Literal["markdown", "latex"]
TABLE_MARKDOWN: TableFormat = "markdown"
TABLE_LATEX: TableFormat = "latex"
TABLE_FORMATS: tuple[TableFormat, ...] = get_args(TableFormat)
EXTENSIONS: dict[TableFormat, str] = {TABLE_MARKDOWN: "md", TABLE_LATEX: "tex"}

SIGNIFICANCE = 0.05
DAGGER = "†"


@dataclass(frozen=True)
class _Cell:
    text: str
    best: bool = False
    significant: bool = False
    # Text of the caller's (a run name) is escaped; what this module formats (an interval's
    # brackets) is written as it is.
    escaped: bool = True


def significant(row: ComparisonRow) -> bool:
    """p < 0.05 after Holm's correction, by the randomization test (the t-test's when the
    randomization test has no value)."""
    p = row.p_value_randomization_holm if row.p_value_randomization_holm is not None else row.p_value_t_holm
    return p is not None and p < SIGNIFICANCE


def _summary_cells(evaluation: Evaluation) -> tuple[list[str], list[list[_Cell]]]:
    """Run x (measure, cutoff) means; the best of each column flagged, and runs significantly
    different from the baseline at that measure and cutoff."""
    cutoffs = summary_cutoffs(evaluation.summary)
    values = summary_values(evaluation.summary)
    marked = {(row.run_id, row.measure, row.k) for row in evaluation.comparison if significant(row)}
    baseline = evaluation.comparison[0].baseline if evaluation.comparison else None
    best = {
        cut: max((value for (_, *key), value in values.items() if tuple(key) == cut and value is not None), default=None)
        for cut in cutoffs
    }
    header = ["run", *[label(*cut) for cut in cutoffs], "queries"]
    rows = []
    for counts in baseline_first(evaluation.runs, baseline):
        run = counts.run_id
        cells = [_Cell(f"{run} (baseline)" if run == baseline else run)]
        for cut in cutoffs:
            value = values.get((run, *cut))
            cells.append(_Cell(format_value(cut[0], value), value is not None and value == best[cut], (run, *cut) in marked))
        cells.append(_Cell(str(counts.evaluated)))
        rows.append(cells)
    if is_wide(cutoffs):  # a line per measure, a column per run (the best still marked per measure)
        turned = transposed([[_Cell(text) for text in header], *rows], _Cell("measure"))
        return [cell.text for cell in turned[0]], turned[1:]
    return header, rows


def _comparison_cells(evaluation: Evaluation) -> tuple[list[str], list[list[_Cell]]]:
    header = ["run", "measure", "baseline", "run mean", "difference", "95% CI", "p (rand., Holm)", "p (t, Holm)"]
    rows = []
    for row in evaluation.comparison:
        difference = "-" if row.mean_difference is None else f"{row.mean_difference:+.4f}"
        interval = "-" if row.ci_low is None else f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]"
        rows.append(
            [
                _Cell(row.run_id),
                _Cell(label(row.measure, row.k)),
                _Cell(format_number(row.ndcg_baseline)),
                _Cell(format_number(row.ndcg_run)),
                _Cell(difference, significant=significant(row)),
                _Cell(interval, escaped=False),
                _Cell(format_p(row.p_value_randomization_holm)),
                _Cell(format_p(row.p_value_t_holm)),
            ]
        )
    return header, rows


def _notes(evaluation: Evaluation, escape: Callable[[str], str]) -> list[str]:
    """The notes under the tables, in the format's own text: `escape` applies to the names a user
    chose (the baseline's), not to the notes' own words (a Markdown reader sees `p < 0.05`)."""
    variants = summary_variants(evaluation.summary)
    notes = [f"Means over the scored queries; scored with {escape(', '.join(variants))}."] if variants else []
    if evaluation.comparison:
        first = evaluation.comparison[0]
        test = f"after Holm's correction (randomization test, {first.permutations} sign flips; seed {first.seed})"
        if any(significant(row) for row in evaluation.comparison):
            notes.append(f"{DAGGER} differs from the baseline {escape(first.baseline)} with p < {SIGNIFICANCE} {test}.")
        else:
            notes.append(f"No run differs from the baseline {escape(first.baseline)} with p < {SIGNIFICANCE} {test}.")
    notes.append("Bold: the best value of each column.")
    return notes


# Characters that Markdown (or HTML inside it) would read as syntax: a `|` ends a cell, `<` opens a
# tag that a renderer passing HTML through would run, `*`, `_` and the rest emphasize or link.
_MARKDOWN_SPECIAL = {char: "\\" + char for char in "\\`*_[]|~#"}
_MARKDOWN_SPECIAL.update({"<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": " ", "\r": " "})


def markdown_escape(text: str) -> str:
    """A run name or title as literal text in a Markdown table: a newline is a space."""
    return "".join(_MARKDOWN_SPECIAL.get(char, char) for char in text)


def _markdown_cell(cell: _Cell) -> str:
    text = (markdown_escape(cell.text) if cell.escaped else cell.text) + (DAGGER if cell.significant else "")
    return f"**{text}**" if cell.best else text


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[_Cell]]) -> list[str]:
    aligns = [":---", *["---:"] * (len(header) - 1)]
    return [
        "| " + " | ".join(markdown_escape(name) for name in header) + " |",
        "| " + " | ".join(aligns) + " |",
        *["| " + " | ".join(_markdown_cell(cell) for cell in row) + " |" for row in rows],
    ]


def markdown(evaluation: Evaluation, title: str) -> str:
    """The summary table, then the comparison table when there is a baseline, then the notes."""
    lines = [f"## NDCG: {markdown_escape(title)}", "", *_markdown_table(*_summary_cells(evaluation))]
    if evaluation.comparison:
        lines += ["", "### Against the baseline", "", *_markdown_table(*_comparison_cells(evaluation))]
    for note in _notes(evaluation, markdown_escape):  # a paragraph each
        lines += ["", note]
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    DAGGER: r"$^\dagger$",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def _latex_cell(cell: _Cell) -> str:
    text = latex_escape(cell.text)
    text = rf"\textbf{{{text}}}" if cell.best else text
    return text + (r"$^\dagger$" if cell.significant else "")


def _latex_table(header: Sequence[str], rows: Sequence[Sequence[_Cell]]) -> list[str]:
    return [
        r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}",
        r"\toprule",
        " & ".join(latex_escape(name) for name in header) + r" \\",
        r"\midrule",
        *[" & ".join(_latex_cell(cell) for cell in row) + r" \\" for row in rows],
        r"\bottomrule",
        r"\end{tabular}",
    ]


def latex(evaluation: Evaluation, title: str) -> str:
    """The same tables as LaTeX tabulars (needs \\usepackage{booktabs}), the notes as comments."""
    lines = [f"% NDCG: {latex_escape(title)}", r"% needs \usepackage{booktabs}", *_latex_table(*_summary_cells(evaluation))]
    if evaluation.comparison:
        lines += ["", *_latex_table(*_comparison_cells(evaluation))]
    lines += [f"% {note}" for note in _notes(evaluation, latex_escape)]
    return "\n".join(lines) + "\n"


RENDERERS: dict[TableFormat, Callable[[Evaluation, str], str]] = {TABLE_MARKDOWN: markdown, TABLE_LATEX: latex}


def render(evaluation: Evaluation, title: str, table_format: TableFormat) -> str:
    return RENDERERS[table_format](evaluation, title)
