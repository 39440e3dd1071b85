"""The gate's one computation, whatever the reference: pair each run's (query) values with the
reference's over the queries both scored (pairing.py), compare them with compare.py's tests, and
judge each gated (run, measure, k) by the rule. The reference is the baseline run of the same
report, or the same runs in an earlier report."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, Row

from ndcg_spark import columns as c
from ndcg_spark.checks.kinds import require_baseline
from ndcg_spark.comparison.compare import compare_pairs
from ndcg_spark.comparison.pairing import (
    AFTER,
    BEFORE,
    PLACE,
    fell_most,
    paired,
    paired_with_earlier,
    wide_values,
    with_value,
)
from ndcg_spark.comparison.resampling import start_python_workers
from ndcg_spark.comparison.rows import ComparisonRow, Cutoff, Resampling
from ndcg_spark.evaluation import Evaluation
from ndcg_spark.gate.rule import GateRule
from ndcg_spark.gate.verdict import REFERENCE_BASELINE, REFERENCE_DATE, GateRow, ReferenceKind, Verdict
from ndcg_spark.scoring.slices import SLICE, SLICE_VALUE

FELL_QUERIES = 10  # the queries listed per gated (run, measure, k)
FELL_SLICES = 5  # the slice values listed per gated (run, measure, k)

SliceMeans = dict[tuple[str, str | None, str, str, int | None], float | None]


def slice_means(rows: Iterable[Row]) -> SliceMeans:
    """(slice, value, run, measure, k) -> mean, of a slices dataset's rows."""
    return {
        (row[SLICE], row[SLICE_VALUE], row[c.RUN_ID], row[c.MEASURE], row[c.K]): row[c.VALUE]
        for row in rows
        if row[c.VALUE] is not None
    }


@dataclass(frozen=True)
class Reference:
    """What a report is gated against. A baseline: a run of the same report (`name`). An earlier
    report: its (run, query) values and its slices' rows, named by its eval date;
    `judgments_changed` says whether its judgments differ from this report's (None: unknown)."""

    kind: ReferenceKind
    name: str
    per_query: DataFrame | Any = None  # a Spark DataFrame, or a frame in memory (an embedded report's)
    slices: tuple[Row, ...] = field(default=(), repr=False)
    judgments_changed: bool | None = False

    @classmethod
    def baseline(cls, run: str) -> Reference:
        return cls(REFERENCE_BASELINE, run)

    @classmethod
    def earlier(cls, name: str, per_query: DataFrame, slices: Iterable[Row], judgments_changed: bool | None) -> Reference:
        return cls(REFERENCE_DATE, name, per_query, tuple(slices), judgments_changed)


def judge(
    per_query: DataFrame,
    evaluation: Evaluation,
    rule: GateRule,
    resampling: Resampling,
    references: Sequence[Reference],
    note: str | None = None,
) -> Verdict:
    """Gate every run of a report (its per_query and evaluation) against each reference; `note`
    says why there is no reference when there is none."""
    values = with_value(per_query)
    if not all(_known(evaluation, reference) for reference in references):
        # Draws to compute, over about as many (run, query) rows as the report's.
        start_python_workers(values.sparkSession, resampling, evaluation.pair_rows)
    runs = sorted({row[c.RUN_ID] for row in evaluation.summary})
    after = slice_means(evaluation.slices)
    rows = [row for reference in references for row in _against(values, evaluation, after, runs, reference, rule, resampling)]
    return Verdict(tuple(rows), rule, note)


def _known(evaluation: Evaluation, reference: Reference) -> list[ComparisonRow]:
    """The report's own comparison rows against a baseline reference (none against an earlier
    report): when there are some, the gate computes no draws."""
    if reference.kind != REFERENCE_BASELINE:
        return []
    return [row for row in evaluation.comparison if row.baseline == reference.name]


def _against(
    values: DataFrame,
    evaluation: Evaluation,
    after: SliceMeans,
    runs: list[str],
    reference: Reference,
    rule: GateRule,
    resampling: Resampling,
) -> list[GateRow]:
    """One pairing serves the comparison and the queries that fell most. Against a baseline, the
    report's own comparison rows are used when it holds them; Holm corrects across runs within
    each (measure, k)."""
    cutoffs = list(rule.cutoffs)
    if reference.kind == REFERENCE_BASELINE:
        require_baseline(reference.name, runs)
        pairs = paired(wide_values(values, cutoffs), reference.name, cutoffs)
        known = _known(evaluation, reference)
        compared, before, reference_run = [run for run in runs if run != reference.name], after, reference.name
    else:
        assert reference.per_query is not None, "an earlier report's reference holds its per_query"
        pairs = paired_with_earlier(values, with_value(reference.per_query), cutoffs)
        known, compared, before, reference_run = [], runs, slice_means(reference.slices), None
    pairs = pairs.cache()
    try:
        comparison = known or compare_pairs(values.sparkSession, pairs, reference.name, compared, cutoffs, resampling)
        gated = [row for row in comparison if Cutoff(row.measure, row.k) in rule.cutoffs]
        fell = _fell_queries(pairs, cutoffs) if gated else {}
    finally:
        pairs.unpersist()
    return _gated(gated, fell, reference, rule, (before, after, reference_run))


def _gated(
    gated: list[ComparisonRow],
    fell: dict[tuple[str, str, int | None], list[Any]],
    reference: Reference,
    rule: GateRule,
    slices: tuple[SliceMeans, SliceMeans, str | None],
) -> list[GateRow]:
    """The gated rows, each with its queries and slices that fell most; `slices`: the
    reference's slice means, the report's, and the reference run (None: the run itself)."""
    before, after, reference_run = slices
    return [
        _row(
            row,
            reference,
            rule,
            fell.get((row.run_id, row.measure, row.k), []),
            slice_fell_most(before, after, reference_run, row.run_id, Cutoff(row.measure, row.k)),
        )
        for row in gated
    ]


def judge_tables(
    per_query: Any,
    evaluation: Evaluation,
    rule: GateRule,
    resampling: Resampling,
    references: Sequence[Reference],
    note: str | None = None,
) -> Verdict:
    """judge() of a report whose per_query is in memory (an embedded evaluation's, or one read
    with pandas), on the embedded engine: the same pairing, tests and rows, to the bit; an
    earlier report's per_query is in memory too."""
    from ndcg_spark.checks.tables import as_arrow
    from ndcg_spark.comparison.tables import Pairing, values_table

    values = values_table(as_arrow(per_query, "per_query"))
    runs = sorted({row[c.RUN_ID] for row in evaluation.summary})
    after = slice_means(evaluation.slices)
    cutoffs = list(rule.cutoffs)
    rows = []
    for reference in references:
        if reference.kind == REFERENCE_BASELINE:
            require_baseline(reference.name, runs)
            pairing = Pairing.against_baseline(values, reference.name, cutoffs)
            known, before, reference_run = _known(evaluation, reference), after, reference.name
        else:
            earlier = values_table(as_arrow(reference.per_query, "the earlier report's per_query"))
            pairing = Pairing.against_earlier(values, earlier, reference.name, cutoffs)
            known, before, reference_run = [], slice_means(reference.slices), None
        comparison = known or pairing.compared(resampling)
        gated = [row for row in comparison if Cutoff(row.measure, row.k) in rule.cutoffs]
        fell = pairing.fell_most(FELL_QUERIES) if gated else {}
        rows += _gated(gated, fell, reference, rule, (before, after, reference_run))
    return Verdict(tuple(rows), rule, note)


def _row(comparison: ComparisonRow, reference: Reference, rule: GateRule, queries: list[Any], slices: list[Any]) -> GateRow:
    before, after = comparison.ndcg_baseline, comparison.ndcg_run
    p = comparison.p_value_randomization_holm
    dropped = before is not None and after is not None and rule.threshold.exceeded(before, after)
    significant = p is not None and p < rule.alpha
    difference = comparison.mean_difference
    return GateRow(
        reference_kind=reference.kind,
        reference=reference.name,
        run_id=comparison.run_id,
        measure=comparison.measure,
        k=comparison.k,
        num_queries=comparison.num_queries,
        mean_reference=before,
        mean_run=after,
        difference=difference,
        relative_difference=difference / abs(before) if difference is not None and before else None,
        ci_low=comparison.ci_low,
        ci_high=comparison.ci_high,
        p_value_randomization=comparison.p_value_randomization,
        p_value_randomization_holm=p,
        threshold=str(rule.threshold),
        alpha=rule.alpha,
        dropped=dropped,
        significant=significant,
        passed=not (dropped and significant),
        judgments_changed=reference.judgments_changed,
        fell_most=queries,
        slices_fell_most=slices,
    )


def _fell_queries(pairs: DataFrame, cutoffs: list[Cutoff]) -> dict[tuple[str, str, int | None], list[Any]]:
    """(run, measure, k) -> its queries that fell most, as (query_id, before, after)."""
    found: dict[tuple[str, str, int | None], list[Any]] = {}
    for row in sorted(fell_most(pairs, cutoffs, FELL_QUERIES).collect(), key=lambda row: row[PLACE]):
        found.setdefault((row[c.RUN_ID], row[c.MEASURE], row[c.K]), []).append((row[c.QUERY_ID], row[BEFORE], row[AFTER]))
    return found


def slice_fell_most(before: SliceMeans, after: SliceMeans, reference_run: str | None, run: str, cutoff: Cutoff) -> list[Any]:
    """The slice values whose mean fell most for `run` at `cutoff`: against `reference_run`'s mean
    in the same report (a baseline), or against the run's own in `before` (an earlier date)."""
    fallen = []
    for (name, value, owner, measure, k), mean in after.items():
        if owner != run or measure != cutoff.measure or k != cutoff.k or mean is None:
            continue
        earlier = before.get((name, value, reference_run or run, measure, k))
        if earlier is not None and mean < earlier:
            fallen.append((mean - earlier, name, value is None, value or "", (name, value, earlier, mean)))
    return [item[-1] for item in sorted(fallen)[:FELL_SLICES]]
