"""The manifest is a typed record: its JSON is written from the fields and read back into them,
a file of another shape is named, and a manifest of a version that did not record its files
still reads."""

from __future__ import annotations

import json

import pytest

from ndcg_spark.errors import StateNotReadable
from ndcg_spark.publish.manifest import Counts, FileRecord, InputRecord, Manifest, OutputRecord

JUDGMENTS = InputRecord("/in/qrels", 12, 1, "2026-12-01T00:00:00+00:00")


def _manifest() -> Manifest:
    return Manifest(
        eval_date="2026-12-02",
        started="2026-12-02T01:00:00+00:00",
        finished="2026-12-02T01:01:00+00:00",
        inputs={"judgments": JUDGMENTS, "results": InputRecord("/in/run", 40, 2, None)},
        config={"k": [5, 10]},
        versions={"ndcg_spark": "0.1.0"},
        counts=Counts(judged_queries=3, result_rows=40, runs=({"run_id": "a", "evaluated": 3, "missing": 0, "skipped": 0},)),
        outputs={"per_query": OutputRecord("/out/per_query", 6), "summary": OutputRecord("/out/summary", 2)},
    )


def test_written_and_read_back_unchanged() -> None:
    placed = _manifest().with_files(
        {"per_query": [FileRecord("part-0.parquet", 900, 1764637260000, 6)], "summary": [FileRecord("part-0.parquet", 500, 1, 2)]}
    )
    record = json.loads(placed.text())
    assert record["inputs"]["judgments"] == {
        "path": "/in/qrels",
        "rows": 12,
        "files": 1,
        "last_modified": JUDGMENTS.last_modified,
    }
    assert record["outputs"]["per_query"]["files"][0] == {
        "name": "part-0.parquet",
        "bytes": 900,
        "modified_ms": 1764637260000,
        "rows": 6,
    }
    assert "gate" not in record  # no gate asked for: no key
    assert Manifest.from_json(record, "m.json") == placed and placed.records_files and placed.judgments == JUDGMENTS


def test_a_manifest_without_its_files_reads_but_cannot_be_read_back_whole() -> None:
    record = json.loads(_manifest().text())
    assert "files" not in record["outputs"]["per_query"]
    assert not Manifest.from_json(record, "m.json").records_files


@pytest.mark.parametrize(
    "change",
    [
        lambda record: record.update(outputs=[]),
        lambda record: record["outputs"]["per_query"].update(files=[{"name": "x"}]),
        lambda record: record["inputs"].update(judgments={"path": "x"}),
        lambda record: record.update(counts={"surprise": 1}),
    ],
)
def test_another_shape_is_named(change) -> None:
    record = json.loads(_manifest().text())
    change(record)
    with pytest.raises(StateNotReadable, match=r"^manifest m\.json holds JSON of the wrong shape \("):
        Manifest.from_json(record, "m.json")


def test_judgments_that_changed_are_told() -> None:
    assert JUDGMENTS.differs(JUDGMENTS) is False
    assert JUDGMENTS.differs(InputRecord("/in/qrels", 13, 1, JUDGMENTS.last_modified)) is True
    assert JUDGMENTS.differs(None) is None
