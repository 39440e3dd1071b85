"""Two runs of one date that overlap publish one after the other: the second waits for the lock
the first holds, then publishes, and the date holds its whole report.

The overlap is made, not hoped for (tests/at_point.py): the first run is held inside its
publication, with the lock, until the second has found the lock taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndcg_spark.errors import EXIT_OK
from tests.conftest import HANG_SECONDS, JUDGMENTS, write
from tests.publication import job_arguments, named_results, start_at_point, whole_report_of


@pytest.mark.slow
def test_a_second_run_waits_for_the_first_ones_publication_then_publishes(tmp_path: Path) -> None:
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    output = tmp_path / "out"
    first_marks, second_marks = tmp_path / "marks-first", tmp_path / "marks-second"
    first_locked, second_waiting = first_marks / "02-locked", second_marks / "02-waiting"
    actions = {
        # holds the lock until the second run has seen it taken
        "first": [f"wait@locked@{second_waiting}"],
        # reaches for the lock only once the first holds it
        "second": [f"wait@staged@{first_locked}"],
    }
    marks = {"first": first_marks, "second": second_marks}
    jobs = {
        name: start_at_point(
            marks[name],
            actions[name],
            job_arguments(judgments, named_results(tmp_path, name), output, "--baseline", f"{name}-r1"),
        )
        for name in ("first", "second")
    }
    logs = {name: job.communicate(timeout=HANG_SECONDS)[1] for name, job in jobs.items()}
    for name, job in jobs.items():
        assert job.returncode == EXIT_OK, logs[name][-3000:]
    assert [path.name for path in sorted(first_marks.iterdir())] == [
        "01-staged",
        "02-locked",
        "03-recorded",
        "04-moved-per_query",
        "05-moved-summary",
        "06-moved-comparison",
        "07-moved-report_table",
        "08-manifest",
        "09-committed",
    ]
    # the second waited once, for the first run by name, then took the lock it released
    assert [path.name for path in sorted(second_marks.iterdir())][:3] == ["01-staged", "02-waiting", "03-locked"]
    first_pid = jobs["first"].pid
    assert f" pid {first_pid} since " in second_waiting.read_text() and second_waiting.read_text().endswith(" for 2026-12-01")
    assert f"waiting for the publication lock {output}/_publishing.lock held by " in logs["second"]
    assert "took over" not in logs["second"]
    assert whole_report_of(output) == "second"
