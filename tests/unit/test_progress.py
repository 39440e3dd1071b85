"""Step logs: readable lines on a terminal, one JSON object per line elsewhere."""

from __future__ import annotations

import io
import json

from ndcg_spark import progress
from ndcg_spark.job.config import JobConfig
from ndcg_spark.job.session import session_conf
from ndcg_spark.progress import LOG_AUTO, LOG_JSON, LOG_TEXT


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_is_json_off_a_terminal_and_text_on_one() -> None:
    assert progress.resolve(LOG_AUTO, io.StringIO()) == LOG_JSON
    assert progress.resolve(LOG_AUTO, Terminal()) == LOG_TEXT
    assert progress.resolve(LOG_TEXT, io.StringIO()) == LOG_TEXT


def test_json_lines_carry_the_counts() -> None:
    stream = io.StringIO()
    assert progress.configure(LOG_AUTO, stream) == LOG_JSON
    with progress.step("main pass") as counts:
        counts.update(result_rows=1234567, judgment_rows=89)
    entry = json.loads(stream.getvalue().strip())
    assert entry["step"] == "main pass" and entry["result_rows"] == 1234567 and entry["level"] == "info"
    assert entry["seconds"] >= 0 and "main pass done" in entry["message"]


def test_text_lines_are_readable() -> None:
    stream = Terminal()
    progress.configure(LOG_AUTO, stream)
    progress.log_step("summary", 2.04, runs=3, per_query_rows=1200)
    line = stream.getvalue().strip()
    assert line.endswith("ndcg-spark: summary done in 2.0 s: runs 3, per query rows 1,200")


def test_progress_bar_only_on_a_terminal() -> None:
    config = JobConfig(judgments="j", results="r", output="o")
    assert session_conf(config, interactive=True)["spark.ui.showConsoleProgress"] == "true"
    assert session_conf(config, interactive=False)["spark.ui.showConsoleProgress"] == "false"
