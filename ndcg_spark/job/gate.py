"""The job's regression gate: which earlier date to gate against (found through the output's
manifests, before any input is read), and the verdict on this run's report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import SparkSession

from ndcg_spark.comparison.gate import Verdict
from ndcg_spark.comparison.rows import Resampling
from ndcg_spark.errors import ConfigError
from ndcg_spark.gating import verdict
from ndcg_spark.io.layout import LATEST
from ndcg_spark.job.config import PREVIOUS, JobConfig
from ndcg_spark.publish.read_back import confirm_unchanged, read_manifests, read_report, records_files
from ndcg_spark.report.result import Report


@dataclass(frozen=True)
class Earlier:
    """The earlier eval date to gate against, or why there is none."""

    label: str | None = None
    note: str | None = None


def earlier_date(spark: SparkSession, config: JobConfig) -> Earlier:
    """--against-previous: the latest date published before this run's (none on an output's first
    date: nothing to gate against, which passes); --against-date: that date, which must be published."""
    against = config.gate.against
    if config.gate.rule is None or against is None or config.eval_date is None:
        return Earlier()
    published, unreadable = read_manifests(spark, config.output)
    found = sorted(label for label in [*published, *unreadable] if label != LATEST)
    today = config.eval_date.isoformat()
    if against == PREVIOUS:
        before = [label for label in found if label < today]
        if not before:
            return Earlier(note=f"nothing to gate against: no eval date before {today} is published in {config.output}")
        if before[-1] in unreadable:
            raise unreadable[before[-1]]
        if not records_files(published[before[-1]]):  # the first night after an upgrade
            return Earlier(note=f"nothing to gate against: {before[-1]} was published by a version that did not record its files")
        return Earlier(before[-1])
    label = against.isoformat()
    if label not in found:
        latest = ", ".join(found[-5:]) or "none"
        raise ConfigError(
            f"--against-date {label}: no report is published in {config.output} for that date (latest: {latest});"
            " give a published date, or --against-previous"
        )
    if label in unreadable:
        raise unreadable[label]
    if not records_files(published[label]):
        raise ConfigError(
            f"--against-date {label}: that date was published by a version that did not record its files;"
            " publish it again, or gate against a later date"
        )
    return Earlier(label)


def gate_verdict(
    spark: SparkSession, config: JobConfig, report: Report, earlier: Earlier, judgments: Mapping[str, Any]
) -> Verdict | None:
    """The verdict on this run's report, or None when no gate is asked for; `judgments` is this
    run's record of its judgments (manifest.input_records)."""
    rule = config.gate.rule
    if rule is None:
        return None
    options = config.options
    reference = None if earlier.label is None else read_report(config.output, earlier.label, spark=spark)
    result = verdict(
        report,
        rule,
        Resampling.of(options),
        baseline=options.baseline,
        earlier=reference,
        judgments=judgments,
        note=earlier.note,
    )
    if reference is not None:
        confirm_unchanged(reference, config.output, spark=spark)  # not republished while it was read
    return result


def manifest_entry(result: Verdict) -> dict[str, Any]:
    """The verdict as the manifest records it (the rule is in its config, under gate)."""
    return {
        "passed": result.passed,
        "references": sorted({row.reference for row in result.rows}),
        "failed": [
            {"reference": row.reference, "run_id": row.run_id, "measure": row.measure, "k": row.k, "difference": row.difference}
            for row in result.failed
        ],
        "note": result.note,
    }
