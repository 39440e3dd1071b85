"""The gate's verdict: one typed row per gated (reference, run, measure, k), and how it reads. The
command's text, the gate dataset, the HTML page and MLflow all read these fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.comparison.pairing import AFTER, BEFORE
from ndcg_spark.comparison.rows import SPARK_TYPE, dataclass_schema
from ndcg_spark.formats import NULL_VALUE, format_number, format_p, format_signed
from ndcg_spark.frames import local_frame
from ndcg_spark.gate.rule import GateRule
from ndcg_spark.measures import label
from ndcg_spark.scoring.slices import SLICE, SLICE_VALUE

ReferenceKind = Literal["baseline", "date"]
REFERENCE_BASELINE: ReferenceKind = "baseline"
REFERENCE_DATE: ReferenceKind = "date"
PASSED, FAILED = "passed", "FAILED"

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


@dataclass
class GateRow:
    """One gated (run, measure, k) against one reference; the fields are the gate dataset's
    columns, in its order. `reference` is the baseline run, or the earlier eval date."""

    reference_kind: ReferenceKind = field(metadata={SPARK_TYPE: T.StringType()})
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

    @property
    def reference_in_words(self) -> str:
        """What the row was gated against: a baseline run, or the report of an earlier date."""
        if self.reference_kind == REFERENCE_BASELINE:
            return f"the baseline {self.reference}"
        return f"the report of {self.reference}"

    @property
    def outcome(self) -> str:
        """FAILED, passed, or passed (fell, not significant): the row's verdict in words."""
        if not self.passed:
            return FAILED
        if self.dropped:
            return "passed (fell, not significant)"
        return PASSED


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

    @property
    def in_order(self) -> list[GateRow]:
        """The rows as the verdict lists them: what failed first, else in the report's order."""
        return sorted(self.rows, key=lambda row: row.passed)

    @property
    def references(self) -> list[str]:
        """What was gated against, in words, in order."""
        return list(dict.fromkeys(row.reference_in_words for row in self.rows))

    @property
    def headline(self) -> str:
        """passed or FAILED, against what, under which rule."""
        rule = self.rule
        condition = f"a fall of more than {rule.threshold} with a Holm-corrected randomization p below {rule.alpha:g}"
        if not self.rows:
            return f"{PASSED}: {self.note or 'nothing to gate'}"
        against = " and ".join(self.references)
        if self.failed:
            return f"{FAILED} against {against}: {len(self.failed)} of {len(self.rows)} gated failed ({condition})"
        return f"{PASSED} against {against}: none of {len(self.rows)} gated shows {condition}"

    @property
    def notes(self) -> list[str]:
        """What to know beside the rows: judgments that changed since a reference, and why there
        is no reference when there is none."""
        changed = sorted({row.reference for row in self.rows if row.judgments_changed})
        found = [
            f"the judgments differ from {reference}'s (their manifests record another path, row count, file count"
            " or last change): the values compared were computed under different judgments"
            for reference in changed
        ]
        return found + ([self.note] if self.note and self.rows else [])

    def __str__(self) -> str:
        """The verdict as the command prints it, first line first."""
        lines = [f"gate: {self.headline}"]
        if self.rows:
            width = max(len(row.outcome) for row in self.rows)
            for row in self.in_order:
                lines.append(_line(row, width))
                if row.dropped:
                    lines += _fallen(row)
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def frame(self, spark: SparkSession) -> DataFrame:
        """The gate dataset: one row per gated (reference, run, measure, k)."""
        return gate_frame(spark, list(self.rows))


def gate_table(rows: list[GateRow]) -> Any:
    """The gate dataset as an Arrow table, of gate_frame's columns (the embedded engine's)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    return pa.Table.from_pylist(
        [{item.name: getattr(row, item.name) for item in GATE_SCHEMA} for row in rows], schema=to_arrow_schema(GATE_SCHEMA)
    )


def gate_frame(spark: SparkSession, rows: list[GateRow]) -> DataFrame:
    return local_frame(spark, [tuple(getattr(row, item.name) for item in GATE_SCHEMA) for row in rows], GATE_SCHEMA)


def _line(row: GateRow, width: int) -> str:
    relative = "" if row.relative_difference is None else f", {row.relative_difference * 100:+.2f}%"
    return (
        f"  {row.outcome:<{width}} {row.run_id} {row.label} against {row.reference_in_words}:"
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
