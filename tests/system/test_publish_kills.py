"""A run killed at any step of its publication: readers see one run's whole report, or the commit
record says a publication is half done and `--repair` or the next run on the output finishes it.

The kills are placed by the publication's own points (tests/at_point.py), never by a clock. One
run copies its output at every point, as a kill there would leave it once its process is gone; a
second run is really killed at the first move, and leaves what that copy holds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.job.cli import main
from ndcg_spark.publish.layout import COMMIT_FILE, LOCK_FILE
from ndcg_spark.publish.read_back import ReportNotReadable, read_report
from ndcg_spark.publish.staging import STAGING_DIR
from tests.conftest import HANG_SECONDS, JUDGMENTS, write
from tests.publication import DATE, job_arguments, listing, named_results, start_at_point, whole_report_of, writers

pytestmark = pytest.mark.slow

# Every point of a publication, in order (no baseline: per_query, summary, then the table), with
# what a kill there leaves: who wrote each of per_query, summary, the table and the manifest, and
# whether the commit record is there.
OLD, NEW = ("old",) * 4, ("new",) * 4
AFTER_KILL = {
    "staged": (OLD, False),
    "locked": (OLD, False),
    "recorded": (OLD, True),
    "moved-per_query": (("new", "old", "old", "old"), True),
    "moved-summary": (("new", "new", "old", "old"), True),
    "moved-report_table": (("new", "new", "new", "old"), True),  # the last move, before the manifest
    "manifest": (NEW, True),
    "committed": (NEW, False),
}


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], Path, list[str]]:
    """(the output's place, its state after a kill at each point, the state after a real kill at
    the first move, the arguments of the other date's run)."""
    root = tmp_path_factory.mktemp("kills")
    judgments = write(root / "j" / "part-0.parquet", JUDGMENTS)
    old, new = named_results(root, "old"), named_results(root, "new")
    previous = root / "previous"
    assert main(job_arguments(judgments, old, previous)) == EXIT_OK  # in this process: the report replaced
    copied, really = root / "copied", root / "really"
    for output in (copied, really):
        shutil.copytree(previous, output)
    runs = {
        "copies": start_at_point(root / "marks-copies", ["copy@*"], job_arguments(judgments, new, copied)),
        "kill": start_at_point(root / "marks-kill", ["kill@moved=per_query"], job_arguments(judgments, new, really)),
    }
    errors = {name: run.communicate(timeout=HANG_SECONDS)[1] for name, run in runs.items()}
    assert runs["copies"].returncode == EXIT_OK, errors["copies"][-3000:]
    assert runs["kill"].returncode < 0, errors["kill"][-3000:]  # ended by the signal
    marks = sorted(path.name for path in (root / "marks-copies").iterdir() if not path.name.endswith(".copy"))
    assert [name[3:] for name in marks] == list(AFTER_KILL), marks  # every point, in order, no waiting
    states = {name[3:]: root / "marks-copies" / f"{name}.copy" for name in marks}
    assert sorted(path.name for path in (root / "marks-kill").iterdir())[-1] == "04-moved-per_query"
    other_date = job_arguments(judgments, old, copied)
    other_date[other_date.index(DATE)] = "2026-12-02"
    return copied, states, really, other_date


def _put_back(state: Path, output: Path) -> None:
    """The state at the output's own place: the record and the lock hold absolute paths."""
    shutil.rmtree(output, ignore_errors=True)
    shutil.copytree(state, output, symlinks=True)


def test_a_real_kill_leaves_what_the_copy_at_its_point_holds(killed) -> None:
    output, states, really, _ = killed
    assert listing(really) == listing(states["moved-per_query"])
    assert writers(really) == writers(states["moved-per_query"])


@pytest.mark.parametrize("point", list(AFTER_KILL))
def test_a_kill_leaves_a_whole_report_or_one_that_repair_finishes(capsys, killed, point: str) -> None:
    output, states, _, _ = killed
    _put_back(states[point], output)
    left, recorded = AFTER_KILL[point]
    found = writers(output)
    assert (found["per_query"], found["summary"], found["table"], found["manifest"]) == left
    assert (output / COMMIT_FILE).exists() == recorded
    assert (output / LOCK_FILE).exists() == (point != "staged")  # the dead run's, from locking on
    capsys.readouterr()
    assert main(["--output", str(output), "--repair"]) == EXIT_OK
    printed = capsys.readouterr()
    if recorded:  # taken over, finished: the new report, whole; the staged files gone
        assert "took over the publication lock" in printed.err and "its process is gone" in printed.err
        assert f"repaired {output}: 3 files moved into place" in printed.out
        assert whole_report_of(output) == "new"
        assert not (output / LOCK_FILE).exists()
        assert not (output / STAGING_DIR).exists() or not any((output / STAGING_DIR).iterdir())
    else:  # a whole report already: nothing to finish, nothing touched
        assert printed.out.strip() == f"nothing to repair in {output}"
        assert whole_report_of(output) == ("new" if point == "committed" else "old")


@pytest.mark.parametrize("point", ["locked", "moved-per_query"])
def test_the_next_run_of_another_date_finishes_it_first(capsys, killed, point: str) -> None:
    output, states, _, other_date = killed
    _put_back(states[point], output)
    capsys.readouterr()
    assert main(other_date) == EXIT_OK
    printed = capsys.readouterr()
    assert "took over the publication lock" in printed.err and "its process is gone" in printed.err
    assert ("finished an interrupted publication" in printed.err) == AFTER_KILL[point][1]
    assert whole_report_of(output) == ("new" if AFTER_KILL[point][1] else "old")
    assert (output / "summary" / "eval_date=2026-12-02").exists()
    assert not (output / LOCK_FILE).exists()


# What read_report returns for the date after a kill at each point: the old run's report, the new
# run's, or a refusal, never a mix (the manifest names files that a move has since replaced).
READ_AFTER_KILL = {
    "staged": "old",
    "locked": "old",
    "recorded": "old",
    "moved-per_query": None,
    "moved-summary": None,
    "moved-report_table": None,
    "manifest": "new",
    "committed": "new",
}


@pytest.mark.parametrize("point", list(READ_AFTER_KILL))
def test_read_report_gives_one_runs_report_or_refuses(spark, killed, point: str) -> None:
    output, states, _, _ = killed
    _put_back(states[point], output)
    expected = READ_AFTER_KILL[point]
    if expected is None:
        with pytest.raises(
            ReportNotReadable, match=f"report for {DATE} is being published again, or that publication was cut short"
        ):
            read_report(str(output), DATE, spark=spark)
        return
    report = read_report(str(output), DATE, spark=spark)
    frames = {"per_query": report.per_query, "summary": report.summary}
    found = {
        name: {row["run_id"].split("-")[0] for row in frame.select("run_id").distinct().collect()}
        for name, frame in frames.items()
    }
    assert found == {"per_query": {expected}, "summary": {expected}}
    assert report.manifest is not None and report.manifest["config"]["results"].rsplit("/", 2)[-2] == expected
    assert report.per_query.count() == report.evaluation.per_query_rows
