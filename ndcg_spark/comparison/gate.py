"""The regression gate: did quality drop? A run fails at a (measure, k) when its mean fell by more
than the threshold *and* the fall is real: the paired randomization test's p, Holm-corrected
across runs, below alpha. A raw difference of means (MLflow's MetricThreshold, TFMA's
GenericChangeThreshold) fails on noise; a p-value alone fails on a drop too small to matter.

The reference is the baseline run of the same evaluation, or the same run on an earlier
published date, paired over the queries both scored (pairing.py); the tests are compare.py's."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.comparison.compare import compare_pairs, require_baseline
from ndcg_spark.comparison.pairing import AFTER, BEFORE, PLACE, fell_most, paired, paired_with_earlier
from ndcg_spark.comparison.rows import SPARK_TYPE, ComparisonRow, Cutoff, Resampling, dataclass_schema
from ndcg_spark.errors import ConfigError
from ndcg_spark.frames import local_frame
from ndcg_spark.measures import Measure, label, parse_measures, report_order, takes_cutoff
from ndcg_spark.options import spelling
from ndcg_spark.remedies import VOICE_JOB, VOICE_PYTHON, Voice
from ndcg_spark.scoring.slices import SLICE, SLICE_VALUE

ReferenceKind = Literal["baseline", "date"]
REFERENCE_BASELINE: ReferenceKind = "baseline"
REFERENCE_DATE: ReferenceKind = "date"
DEFAULT_ALPHA = 0.05
FELL_QUERIES = 10  # the queries listed per gated (run, measure, k)
FELL_SLICES = 5  # the slice values listed per gated (run, measure, k)

_FELL_QUERY = T.ArrayType(
    T.StructType(
        [
            T.StructField(c.QUERY_ID, T.StringType(), True),
            T.StructField(BEFORE, T.DoubleType(), True),
            T.StructField(AFTER, T.DoubleType(), True),
        ]
    ),
    True,
)
_FELL_SLICE = T.ArrayType(
    T.StructType(
        [
            T.StructField(SLICE, T.StringType(), True),
            T.StructField(SLICE_VALUE, T.StringType(), True),
            T.StructField(BEFORE, T.DoubleType(), True),
            T.StructField(AFTER, T.DoubleType(), True),
        ]
    ),
    True,
)


@dataclass(frozen=True)
class Threshold:
    """How far a mean may fall: an amount of the measure (0.01), or a share of the reference's
    mean (2%, relative)."""

    amount: float
    relative: bool = False

    def __str__(self) -> str:
        return f"{self.amount * 100:g}%" if self.relative else f"{self.amount:g}"

    def exceeded(self, before: float, after: float) -> bool:
        """Whether the fall from `before` to `after` is larger than the threshold."""
        allowed = self.amount * abs(before) if self.relative else self.amount
        return before - after > allowed


def parse_threshold(value: Any, name: str = "fail_on_drop") -> Threshold:
    """`0.01` (absolute) or `2%` (relative, of the reference's mean); a ConfigError otherwise."""
    text = str(value).strip()
    relative = text.endswith("%")
    try:
        amount = float(text.removesuffix("%")) / (100 if relative else 1)
    except ValueError:
        amount = -1.0
    if not amount >= 0 or amount == float("inf") or isinstance(value, bool):
        raise ConfigError(f"{name} must be a drop such as 0.01 (absolute) or 2% (relative), got {value!r}")
    return Threshold(amount, relative)


def parse_alpha(value: Any, name: str = "alpha") -> float:
    try:
        alpha = float(value)
    except (TypeError, ValueError):
        alpha = -1.0
    if isinstance(value, bool) or not 0 < alpha < 1:
        raise ConfigError(f"{name} must be a significance level between 0 and 1, such as 0.05, got {value!r}")
    return alpha


def gated_cutoffs(
    entries: Sequence[str], reported: Sequence[Cutoff], name: str = "gate measure", voice: Voice = VOICE_JOB
) -> tuple[Cutoff, ...]:
    """The (measure, k) to gate: each entry in --measure's syntax (a measure with cutoffs and none
    given: every reported cutoff of it); none given, every reported cutoff of the first measure.
    An entry the report does not hold is a ConfigError listing what it holds."""
    if not reported:
        return ()
    if not entries:
        first = reported[0].measure
        return tuple(item for item in reported if item.measure == first)
    chosen: dict[Cutoff, None] = {}
    for entry in entries:
        bare = str(entry).strip()
        if bare in {item.measure for item in reported} and takes_cutoff(bare):
            measures: Iterable[Measure | Cutoff] = [item for item in reported if item.measure == bare]
        else:
            measures = parse_measures(bare)
        for measure in measures:
            wanted = Cutoff(measure.reported if isinstance(measure, Measure) else measure.measure, measure.k)
            if wanted not in reported:
                held = ", ".join(item.asked for item in reported)
                raise ConfigError(f"{name} {entry!r} is not in the report (it holds {held}); {_ask_for_it(voice)}")
            chosen.setdefault(wanted)
    return tuple(sorted(chosen, key=lambda item: report_order(item.measure, item.k)))


def _ask_for_it(voice: Voice) -> str:
    """How the caller has a report computed with a measure or cutoff it lacks."""
    measures, ks = spelling("measures"), spelling("ks")
    if voice == VOICE_PYTHON:
        return f"evaluate with it: pass {measures.keyword}=[...] or {ks.keyword}=[...] to evaluate()"
    return (
        f"ask for it with {measures.flag} or {ks.flag}"
        f" (config file: [{measures.section}] {measures.key}, [{ks.section}] {ks.key})"
    )


@dataclass(frozen=True)
class GateRule:
    """Fail a (run, measure, k) of `cutoffs` when its mean falls by more than `threshold` and the
    Holm-corrected randomization p is below `alpha`."""

    threshold: Threshold
    cutoffs: tuple[Cutoff, ...]
    alpha: float = DEFAULT_ALPHA


@dataclass
class GateRow:
    """One gated (run, measure, k) against one reference; the fields are the gate dataset's
    columns, in its order. `reference` is the baseline run, or the earlier eval date."""

    reference_kind: str
    reference: str
    run_id: str
    measure: str
    k: int | None = field(metadata={SPARK_TYPE: T.IntegerType()})
    num_queries: int
    mean_reference: float | None
    mean_run: float | None
    difference: float | None
    relative_difference: float | None
    ci_low: float | None
    ci_high: float | None
    p_value_randomization: float | None
    p_value_randomization_holm: float | None
    threshold: str
    alpha: float
    dropped: bool  # the mean fell by more than the threshold
    significant: bool  # the Holm-corrected p is below alpha
    passed: bool
    judgments_changed: bool | None  # NULL: not known (a reference without a manifest)
    fell_most: list[Any] = field(metadata={SPARK_TYPE: _FELL_QUERY})  # (query_id, before, after)
    slices_fell_most: list[Any] = field(metadata={SPARK_TYPE: _FELL_SLICE})  # (slice, value, before, after)

    @property
    def label(self) -> str:
        return label(self.measure, self.k)


GATE_SCHEMA = dataclass_schema(GateRow)


@dataclass(frozen=True)
class Verdict:
    """The gate's rows, and why there are none when there is nothing to gate against."""

    rows: tuple[GateRow, ...]
    rule: GateRule
    note: str | None = None

    @property
    def passed(self) -> bool:
        return all(row.passed for row in self.rows)

    @property
    def failed(self) -> list[GateRow]:
        return [row for row in self.rows if not row.passed]

    def __str__(self) -> str:
        from ndcg_spark.comparison.verdict import format_verdict  # which imports this module

        return format_verdict(self)

    def frame(self, spark: SparkSession) -> DataFrame:
        """The gate dataset: one row per gated (reference, run, measure, k)."""
        return gate_frame(spark, list(self.rows))


def gate_frame(spark: SparkSession, rows: list[GateRow]) -> DataFrame:
    return local_frame(spark, [tuple(getattr(row, item.name) for item in GATE_SCHEMA) for row in rows], GATE_SCHEMA)


def _row(
    comparison: ComparisonRow,
    kind: ReferenceKind,
    reference: str,
    rule: GateRule,
    judgments_changed: bool | None,
    queries: list[Any],
    slices: list[Any],
) -> GateRow:
    before, after = comparison.ndcg_baseline, comparison.ndcg_run
    p = comparison.p_value_randomization_holm
    dropped = before is not None and after is not None and rule.threshold.exceeded(before, after)
    significant = p is not None and p < rule.alpha
    difference = comparison.mean_difference
    return GateRow(
        reference_kind=kind,
        reference=reference,
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
        judgments_changed=judgments_changed,
        fell_most=queries,
        slices_fell_most=slices,
    )


def _fell_queries(pairs: DataFrame, cutoffs: list[Cutoff]) -> dict[tuple[str, str, int | None], list[Any]]:
    """(run, measure, k) -> its queries that fell most, as (query_id, before, after)."""
    found: dict[tuple[str, str, int | None], list[Any]] = {}
    for row in sorted(fell_most(pairs, cutoffs, FELL_QUERIES).collect(), key=lambda row: row[PLACE]):
        found.setdefault((row[c.RUN_ID], row[c.MEASURE], row[c.K]), []).append((row[c.QUERY_ID], row[BEFORE], row[AFTER]))
    return found


SliceMeans = dict[tuple[str, str | None, str, str, int | None], float | None]


def slice_means(rows: Iterable[Row]) -> SliceMeans:
    """(slice, value, run, measure, k) -> mean, of a slices dataset's rows."""
    return {
        (row[SLICE], row[SLICE_VALUE], row[c.RUN_ID], row[c.MEASURE], row[c.K]): row[c.VALUE]
        for row in rows
        if row[c.VALUE] is not None
    }


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


def against_baseline(
    spark: SparkSession,
    per_query: DataFrame,
    baseline: str,
    runs: list[str],
    rule: GateRule,
    resampling: Resampling,
    comparison: list[ComparisonRow],
    slices: SliceMeans | None = None,
) -> list[GateRow]:
    """Every run against the baseline run of the same report: from `comparison` (the report's
    comparison rows against it) when it holds them, else compared here; one pairing serves the
    comparison and the queries that fell most."""
    require_baseline(baseline, runs)
    cutoffs = list(rule.cutoffs)
    pairs = paired(per_query, baseline, cutoffs).cache()
    try:
        if not comparison:
            comparison = compare_pairs(spark, pairs, baseline, [run for run in runs if run != baseline], cutoffs, resampling)
        gated = [row for row in comparison if Cutoff(row.measure, row.k) in rule.cutoffs]
        fell = _fell_queries(pairs, cutoffs) if gated else {}
    finally:
        pairs.unpersist()
    return [
        _row(
            row,
            REFERENCE_BASELINE,
            baseline,
            rule,
            False,
            fell.get((row.run_id, row.measure, row.k), []),
            slice_fell_most(slices or {}, slices or {}, baseline, row.run_id, Cutoff(row.measure, row.k)),
        )
        for row in gated
    ]


def against_earlier(
    spark: SparkSession,
    per_query: DataFrame,
    earlier: DataFrame,
    reference: str,
    runs: list[str],
    rule: GateRule,
    resampling: Resampling,
    judgments_changed: bool | None,
    slices: tuple[SliceMeans, SliceMeans] | None = None,
) -> list[GateRow]:
    """Every run against the same run in an earlier report (`reference` names it, e.g. its
    date), over the queries both scored; Holm corrects across runs within each (measure, k)."""
    cutoffs = list(rule.cutoffs)
    pairs = paired_with_earlier(per_query, earlier, cutoffs).cache()
    try:
        comparison = compare_pairs(spark, pairs, reference, runs, cutoffs, resampling)
        fell = _fell_queries(pairs, cutoffs)
    finally:
        pairs.unpersist()
    before, after = slices or ({}, {})
    return [
        _row(
            row,
            REFERENCE_DATE,
            reference,
            rule,
            judgments_changed,
            fell.get((row.run_id, row.measure, row.k), []),
            slice_fell_most(before, after, None, row.run_id, Cutoff(row.measure, row.k)),
        )
        for row in comparison
    ]
