"""The command: `ndcg-spark` (installed), `python -m ndcg_spark` or spark-submit jobs/evaluate_ndcg.py.

Parses and validates everything before Spark starts, runs the job, and turns every failure into
one line on stderr and an exit code a scheduler can act on."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from ndcg_spark import progress
from ndcg_spark.errors import EXIT_FAILURE, EXIT_OK, EXIT_QUALITY_DROPPED, ConfigError, NdcgSparkError, first_line
from ndcg_spark.job import trec_eval_command
from ndcg_spark.progress import LOG_TEXT
from ndcg_spark.remedies import VOICE_JOB

if TYPE_CHECKING:
    from ndcg_spark.report.data import Renderer

log = logging.getLogger(progress.LOGGER)


def one_line(error: BaseException) -> str:
    """The cause in one line, with the exception's type."""
    return f"{type(error).__name__}: {first_line(error)}"


def html_report(self_contained: bool = False) -> Renderer:
    """Imported only when a report is asked for, before Spark starts: plotly is needed on the
    driver for it alone. self_contained: the page holds plotly's JavaScript."""
    try:
        from ndcg_spark.report.html import render
    except ImportError as error:
        raise ConfigError(
            f"the HTML report needs plotly on the driver ({error}): pip install plotly, or pass --no-html-report"
        ) from None
    return functools.partial(render, self_contained=self_contained)


def require_mlflow() -> None:
    """--mlflow-experiment without MLflow installed is a usage error, found before Spark starts."""
    try:
        import mlflow  # noqa: F401
    except ImportError as error:
        raise ConfigError(
            f"--mlflow-experiment needs MLflow on the driver ({error}): pip install mlflow-skinny,"
            " or drop --mlflow-experiment (config file: [mlflow] experiment)"
        ) from None


def main(argv: Sequence[str]) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        if argv[:1] == [trec_eval_command.COMMAND]:
            trec_eval_command.main(argv[1:])
            return EXIT_OK
        return _job(argv)
    except SystemExit as usage:  # argparse has already printed its message
        return int(usage.code or 0)
    except NdcgSparkError as error:
        print(f"ndcg-spark: {error.said(VOICE_JOB)}", file=_stderr(argv))
        return error.exit_code
    except Exception as error:  # noqa: BLE001 - one line for the scheduler, the trace for the log
        log.debug("job failed", exc_info=True)
        print(f"ndcg-spark: failed: {one_line(error)}", file=_stderr(argv))
        return EXIT_FAILURE


def _stderr(argv: Sequence[str]) -> IO[str]:
    """Where a refusal goes: the job's (progress.driver_stderr), the trec_eval command's stderr."""
    return sys.stderr if argv[:1] == [trec_eval_command.COMMAND] else progress.driver_stderr()


def _job(argv: Sequence[str]) -> int:
    """The job: its modules (and pyspark) load here, not for the trec_eval command."""
    from ndcg_spark.job.command_line import parse_args
    from ndcg_spark.job.run import repair, run
    from ndcg_spark.job.session import progress_bar

    config = parse_args(argv)
    with progress.configured(config.log_format, progress.driver_stderr()) as chosen:
        interactive = progress_bar(chosen == LOG_TEXT, sys.stderr)
        if config.mlflow_experiment is not None:
            require_mlflow()
        if config.repair:
            repair(config, interactive)
            return EXIT_OK
        verdict = run(config, interactive, html_report(config.html_self_contained) if config.html_report else None)
    if verdict is not None and not verdict.passed:
        failed = ", ".join(f"{row.run_id} {row.label} against {row.reference_in_words}" for row in verdict.failed)
        print(f"ndcg-spark: quality dropped (the report is published): {failed}", file=progress.driver_stderr())
        return EXIT_QUALITY_DROPPED
    return EXIT_OK


def entry_point() -> None:
    """`ndcg-spark` on the PATH: the job in this Python process. Without spark-submit, PySpark
    starts a local JVM (all cores); `--conf`-style settings go in the config file's [spark]. The
    process keeps the memory it frees, for the embedded engine's arrays (job/heap.py)."""
    from ndcg_spark.job.heap import keep_freed_memory

    keep_freed_memory()
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    entry_point()
