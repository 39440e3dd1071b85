"""The job with --measure all_trec on trec_eval's test files: its published trec_eval text is
what `trec_eval -q -m all_trec` prints, line for line (runid and relstring included), and its
per_query and summary datasets hold every numeric line's value; from TREC text and from Parquet."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_OK
from ndcg_spark.job.cli import main
from ndcg_spark.job.convert_trec import TO_PARQUET
from ndcg_spark.job.convert_trec import main as convert
from tests.end_to_end.test_trec import published_text
from tests.trec_text import supported_lines

CASES = [
    # expected output, qrels, results, extra flags (trec_eval's -c and -l)
    ("out.test.aq", "qrels.test", "results.test", []),
    ("out.test.aqc", "qrels.test", "results.trunc", ["--complete"]),
    ("out.test.aql", "qrels.rel_level", "results.test", ["--relevance-level", "2"]),
]


def _job(output: Path, judgments: str, results: str, extra: list[str], text: bool) -> None:
    formats = ["--judgments-format", "trec", "--results-format", "trec"] if text else []
    argv = ["--judgments", judgments, "--results", results, *formats, "--output", str(output), "--no-html-report"]
    assert main([*argv, "--measure", "all_trec", "--trec-eval-report", *extra]) == EXIT_OK


def _published_values(output: Path) -> dict[tuple[str, str], float]:
    def printed(row: dict) -> str:
        return row["measure"] if row["k"] is None else f"{row['measure']}_{row['k']}"

    values = {(printed(row), row["query_id"]): row["value"] for row in pq.read_table(output / "per_query").to_pylist()}
    values.update({(printed(row), "all"): row["value"] for row in pq.read_table(output / "summary").to_pylist()})
    return values


@pytest.mark.parametrize(("expected", "qrels", "results", "extra"), CASES, ids=[case[0] for case in CASES])
def test_the_jobs_reports_hold_every_line_of_all_trec(
    conformance_dir: str, tmp_path: Path, expected, qrels, results, extra
) -> None:
    output = tmp_path / "out"
    _job(output, f"{conformance_dir}/{qrels}", f"{conformance_dir}/{results}", extra, text=True)
    want = supported_lines(f"{conformance_dir}/{expected}")
    got = _published_values(output)
    assert {key: (got.get(key), value) for key, value in want.items() if key not in got or round(got[key], 4) != value} == {}
    with open(f"{conformance_dir}/{expected}") as handle:
        lines = handle.read().splitlines()
    if expected == "out.test.aql":  # trec_eval's test asked for relstring.20 there; all_trec's is 10 long
        published = [line for line in published_text(output, "STANDARD") if not line.startswith("relstring")]
        assert published == [line for line in lines if not line.startswith("relstring")]
    else:
        assert published_text(output, "STANDARD") == lines


def test_from_parquet_the_text_is_the_same(conformance_dir: str, tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    assert convert([TO_PARQUET, "--kind", "qrels", f"{conformance_dir}/qrels.test", str(qrels)]) == EXIT_OK
    assert convert([TO_PARQUET, "--kind", "run", f"{conformance_dir}/results.trunc", str(run)]) == EXIT_OK
    output = tmp_path / "out"
    _job(output, str(qrels), str(run), ["--complete"], text=False)
    with open(f"{conformance_dir}/out.test.aqc") as handle:
        assert published_text(output, "STANDARD") == handle.read().splitlines()
