"""The job's regression gate: which earlier date to gate against (found through the output's
manifests, before any input is read), and the verdict on this run's report."""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import SparkSession

from ndcg_spark.comparison.rows import Resampling
from ndcg_spark.errors import ConfigError
from ndcg_spark.gate.against import Reference, judge, judge_tables
from ndcg_spark.gate.verdict import Verdict
from ndcg_spark.io.layout import LATEST
from ndcg_spark.job.settings import PREVIOUS, JobConfig
from ndcg_spark.publish.manifest import InputRecord
from ndcg_spark.publish.read_back import confirm_unchanged, gate_reference, read_manifests, read_report, read_report_tables
from ndcg_spark.report.result import Report


@dataclass(frozen=True)
class Earlier:
    """The earlier eval date to gate against, or why there is none."""

    label: str | None = None
    note: str | None = None


def earlier_date(spark: SparkSession | None, config: JobConfig) -> Earlier:
    """--against-previous: the latest date published before this run's (none on an output's first
    date: nothing to gate against, which passes); --against-date: that date, which must be published."""
    against = config.against
    if config.gate.fail_on_drop is None or against is None or config.eval_date is None:
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
        if not published[before[-1]].records_files:  # the first night after an upgrade
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
    if not published[label].records_files:
        raise ConfigError(
            f"--against-date {label}: that date was published by a version that did not record its files;"
            " publish it again, or gate against a later date"
        )
    return Earlier(label)


def gate_verdict(
    spark: SparkSession | None, config: JobConfig, report: Report, earlier: Earlier, judgments: InputRecord | None
) -> Verdict | None:
    """The verdict on this run's report, or None when no gate is asked for; `judgments` is this
    run's record of its judgments (manifest.input_records). Without a session, the embedded
    engine's: the earlier report read with pyarrow, the report judged in this process."""
    options, rule = config.options, config.gate_rule
    if rule is None:
        return None
    references = [] if options.baseline is None else [Reference.baseline(options.baseline)]
    resampling = Resampling.of(options)
    if spark is None:
        if earlier.label is not None:
            references.append(gate_reference(read_report_tables(config.output, earlier.label), judgments))
        return judge_tables(report.per_query, report.evaluation, rule, resampling, references, earlier.note)
    earlier_report = None if earlier.label is None else read_report(config.output, earlier.label, spark=spark)
    if earlier_report is not None:
        references.append(gate_reference(earlier_report, judgments))
    result = judge(report.per_query, report.evaluation, rule, resampling, references, earlier.note)
    if earlier_report is not None:
        confirm_unchanged(earlier_report, config.output, spark=spark)  # not republished while it was read
    return result
