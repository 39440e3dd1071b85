"""The table printed at the end of a run: run x cutoff, and the counts that make it trustworthy."""

from __future__ import annotations

from collections.abc import Sequence

from ndcg_spark import columns as c
from ndcg_spark.pipeline import Evaluation

LOW_JUDGED_WARNING = 0.5


def _header(k: int | None) -> str:
    return c.MEASURE_UNCUT if k is None else f"ndcg@{k}"


def format_table(evaluation: Evaluation) -> str:
    cutoffs: list[int | None] = []
    values: dict[tuple[str, int | None], float] = {}
    judged: dict[tuple[str, int | None], float | None] = {}
    for row in evaluation.summary:
        key = (row[c.RUN_ID], row[c.K])
        if row[c.K] not in cutoffs:
            cutoffs.append(row[c.K])
        values[key] = row[c.NDCG]
        judged[key] = row[c.JUDGED_AT_K]
    cutoffs.sort(key=lambda k: (k is None, k or 0))
    runs = [counts.run_id for counts in evaluation.runs]
    header = ["run", *[_header(k) for k in cutoffs], "queries", "missing", "skipped"]
    lines: list[Sequence[str]] = [header]
    for counts in evaluation.runs:
        cells = [f"{values[(counts.run_id, k)]:.4f}" if (counts.run_id, k) in values else "-" for k in cutoffs]
        lines.append([counts.run_id, *cells, str(counts.evaluated), str(counts.missing), str(counts.skipped)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    table = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
        for line in lines
    ]
    notes = [
        f"read {evaluation.judgment_rows} judgment rows ({evaluation.judged_queries} judged queries)"
        f" and {evaluation.result_rows} result rows ({len(runs)} runs)",
        "queries: scored per run; missing = judged but absent from the run"
        + (" (scored 0, --complete)" if evaluation.complete else " (not scored; --complete scores them 0)")
        + "; skipped = retrieved but never judged (not scored)",
    ]
    if evaluation.duplicate_judgments_dropped:
        notes.append(f"lenient: dropped {evaluation.duplicate_judgments_dropped} duplicate judgment rows")
    if evaluation.duplicate_results_dropped:
        notes.append(f"lenient: dropped {evaluation.duplicate_results_dropped} duplicate result rows")
    for (run, k), fraction in sorted(judged.items(), key=lambda item: (item[0][0], item[0][1] or 0)):
        if k is not None and fraction is not None and fraction < LOW_JUDGED_WARNING:
            notes.append(
                f"warning: run {run}: only {fraction:.0%} of the top {k} is judged on average;"
                " unjudged documents count as non-relevant"
            )
    return "\n".join([*table, "", *notes])
