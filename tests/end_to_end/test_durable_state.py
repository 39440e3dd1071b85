"""The output's own state read defensively: a commit record, lock or manifest that is empty, cut
short or of the wrong shape is recovered exactly or refused with exit 3 and a one-line remedy,
which --repair carries out; renames whose failure Hadoop reports as false are checked."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK
from ndcg_spark.io.storage import FileSystem, MoveFailed
from ndcg_spark.job.cli import main
from ndcg_spark.publish.atomic import Move, place
from ndcg_spark.publish.events import listening
from ndcg_spark.publish.layout import COMMIT_FILE, LOCK_FILE, MANIFEST_DIR
from ndcg_spark.publish.read_back import ManifestNotReadable, read_report
from ndcg_spark.publish.staging import STAGING_DIR
from tests.conftest import JUDGMENTS, error_lines, write
from tests.publication import DATE, job_arguments, named_results, whole_report_of, writers

# What a lost write can leave of a state file: nothing, its first bytes, or JSON of another shape.
DAMAGES: dict[str, Callable[[str], str]] = {
    "empty": lambda text: "",
    "cut short": lambda text: text[: len(text) // 2],
    "wrong shape": lambda text: json.dumps(["not", "a", "record"]),
}


class _Stop(BaseException):  # noqa: N818 - not an error: main() must not catch it
    """Ends a run at a publication point, in process: what a kill there leaves, less the process."""


def _stopped_at(point: str, detail: str, arguments: list[str]) -> None:
    def listener(reached: str, where: str) -> None:
        if reached == point and detail in ("", where):
            raise _Stop(point)

    with listening(listener), pytest.raises(_Stop):
        main(arguments)


def _cut_off(tmp_path: Path, point: str, detail: str = "") -> tuple[Path, list[str]]:
    """An output whose report of DATE is 'old', with a publication of 'new' cut off at `point`;
    and the new run's arguments."""
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    old, new = named_results(tmp_path, "old"), named_results(tmp_path, "new")
    output = tmp_path / "out"
    assert main(job_arguments(judgments, old, output)) == EXIT_OK
    arguments = job_arguments(judgments, new, output)
    _stopped_at(point, detail, arguments)
    assert (output / COMMIT_FILE).exists()
    return output, arguments


@pytest.fixture()
def recorded(tmp_path: Path) -> tuple[Path, list[str]]:
    """Recorded, cut off before its first move."""
    return _cut_off(tmp_path, "recorded")


def _copies(output: Path) -> list[Path]:
    return list((output / STAGING_DIR).glob(f"*/{COMMIT_FILE}"))


@pytest.mark.parametrize("damage", ["empty", "cut short"])
def test_a_damaged_commit_record_is_recovered_from_its_copy(recorded, damage: str, capsys) -> None:
    output, _ = recorded
    record = output / COMMIT_FILE
    record.write_text(DAMAGES[damage](record.read_text()))
    assert len(_copies(output)) == 1
    capsys.readouterr()
    assert main(["--output", str(output), "--repair"]) == EXIT_OK
    printed = capsys.readouterr()
    assert "recovered it from its copy" in printed.err
    assert f"repaired {output}: 3 files moved into place" in printed.out
    assert whole_report_of(output) == "new"


def test_a_record_that_is_no_prefix_of_its_copy_is_not_guessed_from_it(recorded, capsys) -> None:
    output, arguments = recorded
    record = output / COMMIT_FILE
    record.write_text(DAMAGES["wrong shape"](record.read_text()))
    capsys.readouterr()
    assert main(arguments) == EXIT_INPUT_REJECTED
    [line] = error_lines(capsys.readouterr().err)
    assert "holds JSON of the wrong shape" in line and "no copy of it" in line
    assert set(writers(output).values()) == {"old"}  # untouched, the record left for --repair
    assert record.exists()


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_commit_record_without_a_copy_is_refused_then_abandoned(recorded, damage: str, capsys) -> None:
    output, arguments = recorded
    record = output / COMMIT_FILE
    record.write_text(DAMAGES[damage](record.read_text()))
    for copy in _copies(output):
        copy.unlink()
    capsys.readouterr()
    assert main(arguments) == EXIT_INPUT_REJECTED
    [line] = error_lines(capsys.readouterr().err)
    assert f"commit record {record}" in line and "pass --repair to abandon that publication" in line
    assert main(["--output", str(output), "--repair"]) == EXIT_OK
    printed = capsys.readouterr().out
    assert f"abandoned the publication of an unreadable commit record ({record})" in printed
    assert "no published date lost a file: nothing to run again" in printed  # cut off before any move
    assert whole_report_of(output) == "old"
    assert main(arguments) == EXIT_OK
    assert whole_report_of(output) == "new"


def test_an_abandoned_publication_names_the_date_it_left_half_moved(tmp_path: Path, capsys) -> None:
    output, arguments = _cut_off(tmp_path, "moved", "per_query")
    (output / COMMIT_FILE).write_text("")
    for copy in _copies(output):
        copy.unlink()
    capsys.readouterr()
    assert main(["--output", str(output), "--repair"]) == EXIT_OK
    assert f"run {DATE} again" in capsys.readouterr().out
    assert main(arguments) == EXIT_OK
    assert whole_report_of(output) == "new"


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_lock_is_refused_and_repair_removes_it(recorded, damage: str, capsys) -> None:
    output, arguments = recorded
    (output / COMMIT_FILE).unlink()
    lock = output / LOCK_FILE
    lock.write_text(DAMAGES[damage](json.dumps({"token": "t", "host": "h", "pid": 1, "since": "2026-12-01T00:00:00+00:00"})))
    capsys.readouterr()
    assert main(arguments) == EXIT_INPUT_REJECTED
    [line] = error_lines(capsys.readouterr().err)
    assert f"publication lock {lock}" in line and "pass --repair to remove it" in line
    assert main(["--output", str(output), "--repair"]) == EXIT_OK
    assert f"repaired {output}: removed an unreadable publication lock" in capsys.readouterr().out
    assert not lock.exists()
    assert main(arguments) == EXIT_OK
    assert whole_report_of(output) == "new"


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_manifest_is_named_by_readers_and_set_aside_by_repair(
    spark: SparkSession, tmp_path: Path, damage: str, capsys
) -> None:
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    old = named_results(tmp_path, "old")
    output = tmp_path / "out"
    assert main(job_arguments(judgments, old, output)) == EXIT_OK
    manifest = output / MANIFEST_DIR / f"{DATE}.json"
    manifest.write_text(DAMAGES[damage](manifest.read_text()))
    with pytest.raises(ManifestNotReadable, match=f"manifest {manifest}"):
        read_report(str(output), DATE, spark=spark)
    # Another date's run draws the page's trend without it, with one warning.
    other = job_arguments(judgments, old, output)
    other[other.index(DATE)] = "2026-12-02"
    other.remove("--no-html-report")
    capsys.readouterr()
    assert main(other) == EXIT_OK
    assert capsys.readouterr().err.count(f"the page's trend leaves {DATE} out") == 1
    assert main(["--output", str(output), "--repair"]) == EXIT_OK
    assert f"set aside the unreadable manifest of {DATE}" in capsys.readouterr().out
    assert not manifest.exists()
    assert main(job_arguments(judgments, old, output)) == EXIT_OK
    assert whole_report_of(output) == "old"


def test_stray_files_beside_the_manifests_change_nothing(spark: SparkSession, tmp_path: Path) -> None:
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    output = tmp_path / "out"
    assert main(job_arguments(judgments, named_results(tmp_path, "old"), output)) == EXIT_OK
    folder = output / MANIFEST_DIR
    (folder / f".{DATE}.json.crc").write_bytes(b"\x00\x01")
    (folder / f".{DATE}.json.0123.tmp").write_text('{"cut')
    (folder / "notes.txt").write_text("x")
    report = read_report(str(output), DATE, spark=spark)
    assert report.summary.count() == 2 * 3  # runs old-r1, old-r2 x ndcg@1, ndcg@2, ndcg


class _Refusing(FileSystem):
    """A file system whose renames fail the way Hadoop's do: they return false."""

    def _rename(self, source: str, target: str) -> bool:
        return False


def _folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    source, target, aside = tmp_path / "staged", tmp_path / "out" / "per_query", tmp_path / "aside" / "per_query"
    for folder in (source, target):
        folder.mkdir(parents=True)
        (folder / "part-0.parquet").write_text(folder.parent.name)
    return source, target, aside


def test_a_rename_the_file_system_refuses_is_an_error_naming_both_paths(spark: SparkSession, tmp_path: Path) -> None:
    source, target, aside = _folders(tmp_path)
    move = Move("per_query", str(source), str(target), 1, aside=str(aside))
    with pytest.raises(MoveFailed, match=f"cannot move {target} to {aside}: the file system refused the rename"):
        place(_Refusing(spark, str(tmp_path)), move)
    assert (target / "part-0.parquet").read_text() == "out" and (source / "part-0.parquet").exists()


def test_a_folder_is_never_renamed_onto_one_still_there(spark: SparkSession, tmp_path: Path) -> None:
    """On HDFS a folder renamed onto an existing one lands inside it: here the previous folder is
    aside already, yet a folder is at the target again."""
    source, target, aside = _folders(tmp_path)
    shutil.copytree(target, aside)
    move = Move("per_query", str(source), str(target), 1, aside=str(aside))
    with pytest.raises(MoveFailed, match=f"cannot move {source} to {target}: {target} is there already"):
        place(FileSystem(spark, str(tmp_path)), move)
    assert sorted(path.name for path in target.iterdir()) == ["part-0.parquet"]


def test_a_lock_is_created_whole_and_exclusively_even_where_hard_links_are_refused(
    spark: SparkSession, tmp_path: Path, monkeypatch
) -> None:
    fs, path = FileSystem(spark, str(tmp_path)), str(tmp_path / LOCK_FILE)
    assert fs.create_exclusive(path, "first") and not fs.create_exclusive(path, "second")

    def refused(source: str, target: str) -> None:
        raise PermissionError("hard links not supported here")

    monkeypatch.setattr("os.link", refused)
    other = str(tmp_path / "other.lock")
    assert fs.create_exclusive(other, "first") and not fs.create_exclusive(other, "second")
    assert (tmp_path / LOCK_FILE).read_text() == "first" and (tmp_path / "other.lock").read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_FILE, "other.lock"]  # no temporary file left
