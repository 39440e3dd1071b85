"""Publication on an object store, simulated (tests/object_store.py): a rename there copies each
file and then deletes it, so a kill can land between any two files. Killed at every point, and at
every file its renames copy or delete, the output holds no dataset that mixes two runs' files,
`read_report` gives one run's report or refuses, and `--repair` finishes the publication."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.io.storage import simulated
from ndcg_spark.job.cli import main
from ndcg_spark.publish.layout import COMMIT_FILE, LOCK_FILE
from ndcg_spark.publish.read_back import ReportNotReadable, read_report
from tests.at_point import STORED
from tests.conftest import HANG_SECONDS, JUDGMENTS, write
from tests.object_store import ObjectStore, PlainObjectStore
from tests.publication import DATE, job_arguments, listing, named_results, start_at_point, whole_report_of

pytestmark = pytest.mark.slow


def _marks(folder: Path) -> list[tuple[str, str, Path]]:
    """(point, detail, copy of the output there) of each point a run reached, in order."""
    found = []
    for path in folder.iterdir():
        if not path.name.endswith(".copy"):
            index, point = path.name.split("-", 1)
            found.append((int(index), point.split("-", 1)[0], path.read_text(), path.with_name(f"{path.name}.copy")))
    return [(point, detail, copy) for _, point, detail, copy in sorted(found)]


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, str, Path]], Path, Path]:
    """(the output's place; its state after a kill at each point, in order, with the point and its
    detail; the state after a real kill half way through a folder's move; the copy at that point)."""
    root = tmp_path_factory.mktemp("store-kills")
    judgments = write(root / "j" / "part-0.parquet", JUDGMENTS)
    old, new = named_results(root, "old"), named_results(root, "new")
    previous = root / "previous"
    with simulated(ObjectStore):
        assert main(job_arguments(judgments, old, previous)) == EXIT_OK
    copied, really = root / "copied", root / "really"
    for output in (copied, really):
        shutil.copytree(previous, output)
    run = start_at_point(root / "marks-copies", ["store@conditional", "copy@*"], job_arguments(judgments, new, copied))
    error = run.communicate(timeout=HANG_SECONDS)[1]
    assert run.returncode == EXIT_OK, error[-3000:]
    states = _marks(root / "marks-copies")
    # The third file step of the publication: per_query's earlier files are being moved aside.
    point, detail, copy = [state for state in states if state[0] == STORED][2]
    run = start_at_point(
        root / "marks-kill", ["store@conditional", f"kill@{point}={detail}"], job_arguments(judgments, new, really)
    )
    error = run.communicate(timeout=HANG_SECONDS)[1]
    assert run.returncode < 0, error[-3000:]  # ended by the signal
    return copied, states, really, copy


def _put_back(state: Path, output: Path) -> None:
    """The state at the output's own place: the record and the lock hold absolute paths."""
    shutil.rmtree(output, ignore_errors=True)
    shutil.copytree(state, output, symlinks=True)


def _runs_in(folder: Path) -> set[str]:
    """The inputs whose runs the data files of a dataset's folder hold: what a plain reader of it
    finds."""
    files = sorted(path for path in folder.glob("part-*") if path.is_file())
    return {run.split("-")[0] for path in files for run in pq.read_table(path).column("run_id").to_pylist()}


def test_every_file_of_every_move_is_a_point(killed) -> None:
    _, states, _, _ = killed
    points = [point for point, _, _ in states]
    assert points[:3] == ["staged", "locked", "recorded"] and points[-2:] == ["manifest", "committed"]
    moved = [detail for point, detail, _ in states if point == "moved"]
    assert moved == ["per_query", "summary", "report_table"]
    files = [detail for point, detail, _ in states if point == STORED]
    # per_query's and summary's earlier files go aside and the staged ones come in, a copy and a
    # delete each; the table is copied over the old one, then its staged file deleted.
    assert sum(detail.startswith("copied part-") for detail in files) == 4
    assert files[-2:] == ["copied report_table.md", "deleted report_table.md"]


def test_a_real_kill_leaves_what_the_copy_at_its_point_holds(killed) -> None:
    _, _, really, copy = killed
    assert listing(really) == listing(copy)
    assert (really / COMMIT_FILE).exists() and (really / LOCK_FILE).exists()


def test_no_dataset_folder_ever_holds_two_runs_files(killed) -> None:
    _, states, _, _ = killed
    for point, detail, state in states:
        for name in ("per_query", "summary"):
            found = _runs_in(state / name / f"eval_date={DATE}")
            assert len(found) <= 1, f"after {point} {detail}: {name} holds rows of {sorted(found)}"


def test_read_report_gives_one_runs_report_or_refuses(spark, killed) -> None:
    output, states, _, _ = killed
    seen = []
    for point, detail, state in states:
        _put_back(state, output)
        with simulated(ObjectStore):
            try:
                report = read_report(str(output), DATE, spark=spark)
            except ReportNotReadable as error:
                assert "is being published again, or that publication was cut short" in str(error)
                seen.append("refused")
                continue
        found = {
            name: {row["run_id"].split("-")[0] for row in frame.select("run_id").distinct().collect()}
            for name, frame in {"per_query": report.per_query, "summary": report.summary}.items()
        }
        assert len(found["per_query"] | found["summary"]) == 1, f"after {point} {detail}: {found}"
        assert report.per_query.count() == report.evaluation.per_query_rows
        seen.append(found["summary"].pop())
    # The old report until the first file leaves, a refusal until the manifest is written, then the new.
    first, last = seen.index("refused"), len(seen) - 1 - seen[::-1].index("refused")
    assert set(seen[:first]) == {"old"} and set(seen[first : last + 1]) == {"refused"} and set(seen[last + 1 :]) == {"new"}
    assert states[last + 1][0] == "manifest"


def test_repair_finishes_a_kill_at_any_point(capsys, killed) -> None:
    output, states, _, _ = killed
    recorded = False
    for point, detail, state in states:
        recorded = (recorded or point == "recorded") and point != "committed"
        _put_back(state, output)
        capsys.readouterr()
        with simulated(ObjectStore):
            assert main(["--output", str(output), "--repair"]) == EXIT_OK, f"after {point} {detail}"
        printed = capsys.readouterr()
        expected = "new" if recorded or point == "committed" else "old"
        assert whole_report_of(output) == expected, f"after {point} {detail}: {printed.err[-2000:]}"
        assert ("repaired" in printed.out) == recorded, f"after {point} {detail}: {printed.out}"
        if recorded:  # the dead run's lock taken over, and released
            assert not (output / LOCK_FILE).exists()


def test_a_store_without_conditional_writes_is_named_at_the_lock(capsys, tmp_path) -> None:
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    with simulated(PlainObjectStore):
        assert main(job_arguments(judgments, named_results(tmp_path, "old"), tmp_path / "out")) == EXIT_OK
    assert "is not exclusive on this store" in capsys.readouterr().err
