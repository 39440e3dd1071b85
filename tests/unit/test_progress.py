"""Step logs: readable lines on a terminal, one JSON object per line elsewhere."""

from __future__ import annotations

import io
import json

import pytest

from ndcg_spark import progress
from ndcg_spark.job.session import DRIVER_JAVA_OPTIONS, LOG4J_CONF, progress_bar, session_conf
from ndcg_spark.job.settings import JobConfig
from ndcg_spark.progress import LOG_AUTO, LOG_JSON, LOG_TEXT, SPARK_SUBMIT_GATEWAY


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_is_json_off_a_terminal_and_text_on_one() -> None:
    assert progress.resolve(LOG_AUTO, io.StringIO()) == LOG_JSON
    assert progress.resolve(LOG_AUTO, Terminal()) == LOG_TEXT
    assert progress.resolve(LOG_TEXT, io.StringIO()) == LOG_TEXT


def test_json_lines_carry_the_counts(monkeypatch) -> None:
    clock = iter([100.0, 102.5])  # the step starts, then ends 2.5 s later
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    with progress.configured(LOG_AUTO, stream) as chosen, progress.step("main pass") as counts:
        assert chosen == LOG_JSON
        counts.update(result_rows=1234567, judgment_rows=89)
    entry = json.loads(stream.getvalue().strip())
    assert entry["step"] == "main pass" and entry["result_rows"] == 1234567 and entry["level"] == "info"
    assert entry["seconds"] == 2.5 and entry["message"] == "main pass done in 2.5 s: result rows 1,234,567, judgment rows 89"


def test_text_lines_are_readable() -> None:
    stream = Terminal()
    with progress.configured(LOG_AUTO, stream):
        progress.log_step("summary", 2.04, runs=3, per_query_rows=1200)
    line = stream.getvalue().strip()
    assert line.endswith("ndcg-spark: summary done in 2.0 s: runs 3, per query rows 1,200")


def test_progress_bar_only_on_a_terminal() -> None:
    config = JobConfig(judgments="j", results=((None, "r"),), output="o")
    assert session_conf(config, interactive=True)["spark.ui.showConsoleProgress"] == "true"
    assert session_conf(config, interactive=False)["spark.ui.showConsoleProgress"] == "false"
    # --log-format text with stderr in a file: no bar in the file
    assert progress_bar(True, Terminal()) and not progress_bar(True, io.StringIO()) and not progress_bar(False, Terminal())


def test_a_jvm_the_job_starts_logs_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SPARK_SUBMIT_GATEWAY, raising=False)
    config = JobConfig(judgments="j", results=((None, "r"),), output="o")
    options = session_conf(config)[DRIVER_JAVA_OPTIONS]
    assert options == f"-Dlog4j2.configurationFile={LOG4J_CONF.as_uri()}" and LOG4J_CONF.is_file()
    assert "rootLogger.level = error" in LOG4J_CONF.read_text()
    # the driver's own options in [spark] win; under spark-submit the JVM runs already
    mine = JobConfig(judgments="j", results=((None, "r"),), output="o", spark_conf={DRIVER_JAVA_OPTIONS: "-Dx=1"})
    assert session_conf(mine)[DRIVER_JAVA_OPTIONS] == "-Dx=1"
    monkeypatch.setenv(SPARK_SUBMIT_GATEWAY, "1")
    assert DRIVER_JAVA_OPTIONS not in session_conf(config)
