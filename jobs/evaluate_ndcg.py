"""spark-submit entry point: parse, build the session, evaluate, publish, print."""

from __future__ import annotations

import datetime as dt
import logging
import sys
from collections.abc import Sequence

from pyspark.sql import SparkSession

from ndcg_spark import manifest
from ndcg_spark.config import JobConfig, parse_args
from ndcg_spark.errors import EXIT_FAILURE, EXIT_OK, NdcgSparkError
from ndcg_spark.pipeline import evaluate, report_datasets
from ndcg_spark.publish import publish
from ndcg_spark.report import format_table
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


def build_session(config: JobConfig) -> SparkSession:
    builder = SparkSession.builder.appName("ndcg-spark")
    for key, value in session_conf(config).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def run(config: JobConfig) -> None:
    """Evaluate, publish atomically, then write the manifest; staging goes whatever happens."""
    started = dt.datetime.now(dt.timezone.utc)
    spark = build_session(config)
    staging = Staging(spark, config.output)
    try:
        per_query, evaluation = evaluate(spark, config, staging)
        published = publish(spark, staging, config, report_datasets(spark, per_query, evaluation))
        record = manifest.build(
            spark, config, evaluation, published, started, dt.datetime.now(dt.timezone.utc)
        )
        manifest_file = manifest.write(spark, config, record)
    finally:
        staging.discard()
    print(format_table(evaluation))
    print(f"published {', '.join(item.path for item in published)}; manifest {manifest_file}")


def main(argv: Sequence[str]) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = parse_args(argv)
        run(config)
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
