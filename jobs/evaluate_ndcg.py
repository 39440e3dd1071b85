"""spark-submit entry point: parse, build the session, evaluate, publish, print."""

from __future__ import annotations

import datetime as dt
import logging
import sys
from collections.abc import Sequence
from types import ModuleType

from pyspark.sql import SparkSession

from ndcg_spark import manifest, progress
from ndcg_spark.config import LOG_TEXT, JobConfig, parse_args
from ndcg_spark.errors import EXIT_FAILURE, EXIT_OK, ConfigError, NdcgSparkError
from ndcg_spark.pipeline import evaluate, report_datasets
from ndcg_spark.publish import publish, publish_page
from ndcg_spark.report import format_comparison, format_slices, format_table, judged_warnings
from ndcg_spark.report_data import gather
from ndcg_spark.session import session_conf
from ndcg_spark.storage import Staging

log = logging.getLogger("ndcg_spark")

_TRACEBACK = "Traceback (most recent call last)"


def one_line(error: BaseException) -> str:
    """The cause in one line; for a JVM error, the Java exception rather than py4j's wrapper; for
    a failure in a Python worker, the last line of its traceback (the exception raised)."""
    java = getattr(error, "java_exception", None)
    text = str(java.toString()) if java is not None else str(error)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if any(line.startswith(_TRACEBACK) for line in lines):
        return f"{type(error).__name__}: {lines[-1]}"
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def html_report() -> ModuleType:
    """Imported only when a report is asked for, before Spark starts: plotly is needed on the
    driver for it alone."""
    try:
        from ndcg_spark import html_report as module
    except ImportError as error:
        raise ConfigError(
            f"the HTML report needs plotly on the driver ({error}): pip install plotly, or pass --no-html-report"
        ) from None
    return module


def build_session(config: JobConfig, interactive: bool) -> SparkSession:
    builder = SparkSession.builder.appName("ndcg-spark")
    for key, value in session_conf(config, interactive).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def run(config: JobConfig, interactive: bool, renderer: ModuleType | None) -> None:
    """Evaluate, publish atomically, then write the manifest; staging goes whatever happens."""
    started = dt.datetime.now(dt.timezone.utc)
    spark = build_session(config, interactive)
    staging = Staging(spark, config.output)
    try:
        per_query, evaluation = evaluate(spark, config, staging)
        datasets = report_datasets(spark, config, per_query, evaluation)
        page = None
        if renderer is not None:
            with progress.step("html report") as counts:
                page = renderer.render(gather(spark, config, per_query, evaluation, judged_warnings(evaluation)))
                counts.update(bytes=len(page))
        with progress.step("publish") as counts:
            published = publish(spark, staging, config, datasets)
            if page is not None:
                published.append(publish_page(staging, config, page))
            counts.update(outputs=", ".join(item.path for item in published))
        record = manifest.build(
            spark, config, evaluation, published, started, dt.datetime.now(dt.timezone.utc)
        )
        manifest_file = manifest.write(spark, config, record)
    finally:
        staging.discard()
    print(format_table(evaluation))
    for extra in (format_comparison(evaluation.comparison), format_slices(evaluation.slices)):
        if extra:
            print(f"\n{extra}")
    print(f"published {', '.join(item.path for item in published)}; manifest {manifest_file}")


def main(argv: Sequence[str]) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = parse_args(argv)
        interactive = progress.configure(config.log_format) == LOG_TEXT
        run(config, interactive, html_report() if config.html_report else None)
    except SystemExit as usage:  # argparse has already printed its message
        return int(usage.code or 0)
    except NdcgSparkError as error:
        print(f"ndcg-spark: {error}", file=sys.stderr)
        return error.exit_code
    except Exception as error:  # noqa: BLE001 - one line for the scheduler, the trace for the log
        log.debug("job failed", exc_info=True)
        print(f"ndcg-spark: failed: {one_line(error)}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
