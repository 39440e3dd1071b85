"""The local disk's file system (the embedded engine's publication): Hadoop's view of a folder,
its checksum files left out, and a replacement that leaves no stale checksum beside the new file."""

from __future__ import annotations

from pathlib import Path

from ndcg_spark.io.storage import file_system


def test_listings_leave_hadoops_checksums_out(tmp_path: Path) -> None:
    (tmp_path / "part-00000.parquet").write_bytes(b"rows")
    (tmp_path / ".part-00000.parquet.crc").write_bytes(b"sum")
    (tmp_path / "_SUCCESS").write_bytes(b"")
    fs = file_system(None, str(tmp_path))
    assert [info.path.rsplit("/", 1)[1] for info in fs.children(str(tmp_path))] == ["_SUCCESS", "part-00000.parquet"]
    assert [(info.path.rsplit("/", 1)[1], info.size) for info in fs.files(str(tmp_path))] == [
        ("_SUCCESS", 0),
        ("part-00000.parquet", 4),
    ]


def test_a_replaced_file_keeps_no_stale_checksum(tmp_path: Path) -> None:
    target, source = tmp_path / "latest.md", tmp_path / ".staged.md"
    target.write_text("old")
    (tmp_path / ".latest.md.crc").write_bytes(b"checksum of old")  # Spark wrote the old one
    source.write_text("new")
    file_system(None, str(tmp_path)).replace(str(source), str(target))
    assert target.read_text() == "new" and not source.exists()
    assert not (tmp_path / ".latest.md.crc").exists()
