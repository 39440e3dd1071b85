"""The gate's verdict in words, printed ahead of the tables: which runs, measures and cutoffs
failed, by how much, with the interval and p, and the queries and slices that fell most."""

from __future__ import annotations

from ndcg_spark.comparison.gate import REFERENCE_BASELINE, GateRow, Verdict
from ndcg_spark.formats import NULL_VALUE, format_number, format_p, format_signed

PASSED, FAILED = "passed", "FAILED"


def reference_in_words(row: GateRow) -> str:
    """What a row was gated against, in words: a baseline run, or the report of an earlier date."""
    return f"the baseline {row.reference}" if row.reference_kind == REFERENCE_BASELINE else f"the report of {row.reference}"


def outcome(row: GateRow) -> str:
    """FAILED, passed, or passed (fell, not significant): a row's verdict in words."""
    if not row.passed:
        return FAILED
    if row.dropped:
        return "passed (fell, not significant)"
    return PASSED


def _line(row: GateRow, width: int) -> str:
    relative = "" if row.relative_difference is None else f", {row.relative_difference * 100:+.2f}%"
    return (
        f"  {outcome(row):<{width}} {row.run_id} {row.label} against {reference_in_words(row)}:"
        f" {format_number(row.mean_reference)} -> {format_number(row.mean_run)}"
        f" ({format_signed(row.difference)}{relative}),"
        f" 95% CI [{format_signed(row.ci_low)}, {format_signed(row.ci_high)}],"
        f" p {format_p(row.p_value_randomization)} (Holm {format_p(row.p_value_randomization_holm)}), {row.num_queries} queries"
    )


def _fallen(row: GateRow) -> list[str]:
    lines = []
    if row.fell_most:
        lines.append(f"    queries of {row.run_id} that fell most at {row.label} (query: before -> after):")
        lines += [f"      {query}: {format_number(before)} -> {format_number(after)}" for query, before, after in row.fell_most]
    if row.slices_fell_most:
        lines.append(f"    slices of {row.run_id} that fell most at {row.label}:")
        lines += [
            f"      {name}={NULL_VALUE if value is None else value}: {format_number(before)} -> {format_number(after)}"
            for name, value, before, after in row.slices_fell_most
        ]
    return lines


def format_verdict(verdict: Verdict) -> str:
    """The verdict, first line first: passed or FAILED, against what, under which rule."""
    rule = verdict.rule
    condition = f"a fall of more than {rule.threshold} with a Holm-corrected randomization p below {rule.alpha:g}"
    if not verdict.rows:
        return f"gate: {PASSED}: {verdict.note or 'nothing to gate'}"
    references = " and ".join(dict.fromkeys(reference_in_words(row) for row in verdict.rows))
    failed = verdict.failed
    head = (
        f"gate: {FAILED} against {references}: {len(failed)} of {len(verdict.rows)} gated failed ({condition})"
        if failed
        else f"gate: {PASSED} against {references}: none of {len(verdict.rows)} gated shows {condition}"
    )
    lines = [head]
    width = max(len(outcome(row)) for row in verdict.rows)
    for row in sorted(verdict.rows, key=lambda row: row.passed):  # what failed first, else in order
        lines.append(_line(row, width))
        if row.dropped:
            lines += _fallen(row)
    changed = sorted({row.reference for row in verdict.rows if row.judgments_changed})
    for reference in changed:
        lines.append(
            f"  note: the judgments differ from {reference}'s (their manifests record another path, row count, file count"
            " or last change): the values compared were computed under different judgments"
        )
    if verdict.note:
        lines.append(f"  note: {verdict.note}")
    return "\n".join(lines)
