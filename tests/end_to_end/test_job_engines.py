"""The whole job on both engines: `--engine local` (in this process, no JVM) and `--engine spark`
publish the same bytes of every dataset's rows (per_query, summary, comparison, slices, gate), the
same trec_eval text, Markdown and HTML page, the same file layout and manifest fields, and exit
with the same code, on every variant."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK, EXIT_QUALITY_DROPPED
from ndcg_spark.job.cli import main
from tests.conftest import write

DATE = "2026-12-02"
# Fields of a manifest that differ by nature between two runs (times, file sizes and times) or
# between the engines (which one ran, and Spark's version where Spark ran).
_PER_RUN = {"started", "finished", "engine", "versions", "modified_ms", "bytes", "modified", "path"}


def _inputs(tmp_path: Path) -> tuple[str, str]:
    """30 judged queries graded -1..3, three runs of 15 documents with tied scores and unjudged
    documents, one judged query missing from one run, one retrieved query never judged. "better"
    puts higher grades first, "worse" lower ones: the gate fails "worse" against "base"."""
    rng = random.Random(7)
    judgments: dict[str, list] = {"query_id": [], "doc_id": [], "relevance": []}
    results: dict[str, list] = {"run_id": [], "query_id": [], "doc_id": [], "score": []}
    grades: dict[tuple[int, int], int] = {}
    for q in range(30):
        for d in rng.sample(range(40), 12):
            grades[(q, d)] = rng.choice([-1, 0, 0, 1, 1, 2, 3])
            judgments["query_id"].append(f"q{q:02d}")
            judgments["doc_id"].append(f"d{d}")
            judgments["relevance"].append(grades[(q, d)])
    lean = {"base": 0, "better": 2, "worse": -2}
    for run in ("base", "better", "worse"):
        for q in range(31):
            if run == "worse" and q == 4:
                continue
            for d in rng.sample(range(40), 15):
                results["run_id"].append(run)
                results["query_id"].append(f"q{q:02d}")
                results["doc_id"].append(f"d{d}")
                results["score"].append(float(rng.randint(0, 6) + lean[run] * grades.get((q, d), 0)))
    # Slice columns of the queries: text with a query left without, and whole numbers.
    metadata = {
        "query_id": [f"q{q:02d}" for q in range(29)],
        "locale": [["de", "en", None][q % 3] for q in range(29)],
        "bucket": [q % 4 for q in range(29)],
    }
    write(tmp_path / "in" / "queries.parquet", metadata)
    return write(tmp_path / "in" / "judgments.parquet", judgments), write(tmp_path / "in" / "results.parquet", results)


def _job(engine: str, judgments: str, results: str, output: Path, *extra: str) -> int:
    arguments = ["--judgments", judgments, "--results", results, "--output", str(output), "--eval-date", DATE]
    return main([*arguments, "--no-html-report", "--engine", engine, *extra])


def _layout(output: Path) -> list[str]:
    """Every file under the output, Spark's write ids in data file names masked; not the hidden
    checksums Hadoop's local file system keeps beside each file (.NAME.crc)."""
    names = [str(path.relative_to(output)) for path in output.rglob("*") if path.is_file() and not path.name.startswith(".")]
    return sorted(re.sub(r"part-(\d+)-[0-9a-f-]+-c000", r"part-\1-ID-c000", name) for name in names)


def _rows(folder: Path) -> tuple[str, list[tuple]]:
    """A dataset's schema (names, types, nullability) and its rows in one fixed order."""
    table = pq.read_table(folder)
    schema = ", ".join(f"{field.name} {field.type}" for field in table.schema)
    return schema, sorted((tuple(row.values()) for row in table.to_pylist()), key=repr)


def _manifest(output: Path) -> object:
    """The manifest without what differs by nature, data file names' write ids masked, the engine
    asked for (config.engine) left out."""

    def kept(value: object) -> object:
        if isinstance(value, dict):
            return {key: kept(item) for key, item in value.items() if key not in _PER_RUN}
        if isinstance(value, list):
            return [kept(item) for item in value]
        if isinstance(value, str):
            return re.sub(r"part-(\d+)-[0-9a-f-]+-c000", r"part-\1-ID-c000", value)
        return value

    record = json.loads((output / "_manifests" / f"{DATE}.json").read_text())
    del record["config"]["engine"], record["config"]["output"]
    return kept(record)


def _texts(output: Path) -> dict[str, str]:
    folder = output / "trec_eval"
    return {str(path.relative_to(folder).parent): path.read_text() for path in sorted(folder.rglob("*.txt"))}


VARIANTS = {
    "ndcg": (),
    "judged_only_depth_complete": ("--judged-only", "--max-depth", "8", "--complete"),
    "gains_exponential": ("--gains", "0=0,1=1,2=5,3=12", "--gain", "exponential"),
    "all_trec_level_2": ("--measure", "all_trec", "--relevance-level", "2", "--trec-eval-report"),
    "slices": ("--slices", "locale,bucket", "--query-metadata", "{in}/queries.parquet", "--measure", "P.5"),
    # The page: its precision-recall curve scored in the same pass, its histograms, its
    # differences' quantiles and extremes against the baseline.
    "page": ("--html-report", "--baseline", "base"),
    "baseline_gate": ("--baseline", "base", "--measure", "P.5", "--measure", "map", "--fail-on-drop", "0.01"),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_both_engines_publish_the_same_report(tmp_path: Path, variant: str) -> None:
    judgments, results = _inputs(tmp_path)
    local, spark = tmp_path / "local", tmp_path / "spark"
    extra = [argument.replace("{in}", str(tmp_path / "in")) for argument in VARIANTS[variant]]
    codes = [_job(engine, judgments, results, tmp_path / engine, *extra) for engine in ("local", "spark")]
    assert codes[0] == codes[1] and codes[0] in (EXIT_OK, EXIT_QUALITY_DROPPED)
    if variant == "baseline_gate":
        assert codes[0] == EXIT_QUALITY_DROPPED  # "worse" falls: the gate fails on both
    assert _layout(local) == _layout(spark)
    datasets = [name for name in ("per_query", "summary", "comparison", "slices", "gate") if (local / name).exists()]
    assert "per_query" in datasets and ("gate" in datasets) == (variant == "baseline_gate")
    for name in datasets:
        assert _rows(local / name) == _rows(spark / name), name
    assert _texts(local) == _texts(spark)
    if variant == "page":  # the curve is drawn without being asked for, and published nowhere else
        html = (local / "report" / f"{DATE}.html").read_text()
        assert "Interpolated precision against recall" in html and "Ask for iprec_at_recall" not in html
        assert not any("iprec" in str(row) for row in _rows(local / "summary")[1] + _rows(local / "per_query")[1])
    for page in (f"{DATE}.md", f"{DATE}.html"):
        if (local / "report" / page).exists() or (spark / "report" / page).exists():
            assert (local / "report" / page).read_bytes() == (spark / "report" / page).read_bytes(), page
    assert _manifest(local) == _manifest(spark)
    engines = [json.loads((output / "_manifests" / f"{DATE}.json").read_text())["engine"] for output in (local, spark)]
    assert engines == ["local", "spark"]


def test_both_engines_refuse_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A document retrieved twice: the same exit code and the same one line."""
    judgments = write(tmp_path / "j.parquet", {"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    results = write(tmp_path / "r.parquet", {"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    lines = []
    for engine in ("local", "spark"):
        assert _job(engine, judgments, results, tmp_path / engine) == EXIT_INPUT_REJECTED
        lines.append([line for line in capsys.readouterr().err.splitlines() if line.startswith("ndcg-spark:")])
    assert lines[0] == lines[1] and len(lines[0]) == 1, lines


def test_both_engines_gate_against_an_earlier_date_alike(tmp_path: Path) -> None:
    """--against-previous: the earlier date's published per_query read back (with pyarrow on the
    local engine), the same gate rows and exit code; each engine gates against the date the other
    one published."""
    judgments, results = _inputs(tmp_path)
    for engine, other in (("local", "spark"), ("spark", "local")):
        assert _job(other, judgments, results, tmp_path / engine, "--eval-date", "2026-12-01") == EXIT_OK
    gate = ("--fail-on-drop", "0.01", "--against-previous")
    for engine in ("local", "spark"):
        assert _job(engine, judgments, results, tmp_path / engine, *gate) == EXIT_OK
    assert _rows(tmp_path / "local" / "gate") == _rows(tmp_path / "spark" / "gate")
    assert len(_rows(tmp_path / "local" / "gate")[1]) == 3 * 3  # runs x NDCG's cutoffs (5, 10, 20)
