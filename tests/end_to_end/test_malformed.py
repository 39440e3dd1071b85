"""A corpus of malformed inputs run against an existing report: each is refused with its documented
exit code and one line naming the problem (the input, the column, the count and the first file
where rows are at fault), and the previous report stays byte-identical."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK, EXIT_USAGE
from tests.conftest import JUDGMENTS, RESULTS, error_lines, run_job, snapshot, write

NINE_SCORES = [3.0, 2.0, 1.0, 1.0, 5.0, 3.0, 2.0, 2.0, 1.0]


def _with(side: dict, **changes) -> dict:
    columns = dict(side)
    for name, values in changes.items():
        if values is None:
            del columns[name]
        else:
            columns[name] = values
    return columns


# name: (judgments columns, results columns, extra flags, exit code, message fragment)
CASES = {
    "score as text": (JUDGMENTS, _with(RESULTS, score=["high"] * 9), (), EXIT_INPUT_REJECTED, "column 'score' has type string"),
    "relevance as text": (
        _with(JUDGMENTS, relevance=["2", "1", "0", "1", "3", "1"]),
        RESULTS,
        (),
        EXIT_INPUT_REJECTED,
        "column 'relevance' has type string",
    ),
    "query_id as float": (
        _with(JUDGMENTS, query_id=[1.5] * 6),
        RESULTS,
        (),
        EXIT_INPUT_REJECTED,
        "column 'query_id' has type double",
    ),
    "no score column": (JUDGMENTS, _with(RESULTS, score=None), (), EXIT_INPUT_REJECTED, "missing column(s) 'score'"),
    "no relevance column": (_with(JUDGMENTS, relevance=None), RESULTS, (), EXIT_INPUT_REJECTED, "missing column(s) 'relevance'"),
    "null query_id": (
        JUDGMENTS,
        _with(RESULTS, query_id=["q1", None, None, "q2", "q9", "q1", "q1", "q2", "q2"]),
        (),
        EXIT_INPUT_REJECTED,
        "column 'query_id': 2 of 9 rows are null",
    ),
    "null doc_id": (
        _with(JUDGMENTS, doc_id=["a", None, "c", "a", "d", "x"]),
        RESULTS,
        (),
        EXIT_INPUT_REJECTED,
        "column 'doc_id': 1 of 6 rows are null",
    ),
    "null run_id": (
        JUDGMENTS,
        _with(RESULTS, run_id=["r1"] * 8 + [None]),
        (),
        EXIT_INPUT_REJECTED,
        "column 'run_id': 1 of 9 rows are null",
    ),
    "null score": (
        JUDGMENTS,
        _with(RESULTS, score=[None] + NINE_SCORES[1:]),
        (),
        EXIT_INPUT_REJECTED,
        "column 'score': 1 of 9 rows are null",
    ),
    "NaN score": (
        JUDGMENTS,
        _with(RESULTS, score=[float("nan")] * 3 + NINE_SCORES[3:]),
        (),
        EXIT_INPUT_REJECTED,
        "column 'score': 3 of 9 rows are NaN",
    ),
    "+inf score": (
        JUDGMENTS,
        _with(RESULTS, score=[float("inf")] + NINE_SCORES[1:]),
        (),
        EXIT_INPUT_REJECTED,
        "column 'score': 1 of 9 rows are infinite",
    ),
    "null relevance": (
        _with(JUDGMENTS, relevance=[2, None, 0, 1, 3, 1]),
        RESULTS,
        (),
        EXIT_INPUT_REJECTED,
        "column 'relevance': 1 of 6 rows are null",
    ),
    "fractional relevance": (
        _with(JUDGMENTS, relevance=[2.0, 1.5, 0.0, 1.0, 3.0, 0.5]),
        RESULTS,
        (),
        EXIT_INPUT_REJECTED,
        "column 'relevance': 2 of 6 rows are not whole numbers",
    ),
    "NaN relevance": (
        _with(JUDGMENTS, relevance=[2.0, float("nan"), 0.0, 1.0, 3.0, 1.0]),
        RESULTS,
        (),
        EXIT_INPUT_REJECTED,
        "column 'relevance': 1 of 6 rows are NaN",
    ),
    "grade too large for exponential gain": (
        _with(JUDGMENTS, relevance=[2, 1, 0, 1, 3, 5000]),
        RESULTS,
        ("--gain", "exponential"),
        EXIT_INPUT_REJECTED,
        "column 'relevance': 1 of 6 rows exceed 1000",
    ),
    "duplicated results": (
        JUDGMENTS,
        _with(RESULTS, doc_id=["a", "a", "z", "d", "a", "b", "a", "a", "d"]),
        (),
        EXIT_INPUT_REJECTED,
        "1 documents are retrieved more than once for the same query and run (1 extra rows); trec_eval"
        " refuses this; pass --duplicate-results keep_best (config file: [validation] duplicate_results"
        ' = "keep_best") to keep the best-scored copy',
    ),
    "conflicting duplicate judgments": (
        _with(JUDGMENTS, doc_id=["a", "a", "c", "a", "d", "x"]),
        RESULTS,
        (),
        EXIT_INPUT_REJECTED,
        "1 (query, doc) pairs are judged more than once (1 extra rows); trec_eval refuses"
        " this; pass --duplicate-judgments keep_max (config file: [validation]"
        ' duplicate_judgments = "keep_max") to keep the highest grade',
    ),
    "bad k": (JUDGMENTS, RESULTS, ("--k", "ten"), EXIT_USAGE, "ks must be positive integers, got 'ten' in 'ten' (flag --k,"),
}


@pytest.fixture(scope="module")
def previous(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A published report with its page, as a nightly run left it: every case runs against it."""
    good = tmp_path_factory.mktemp("good")
    output = good / "out"
    assert (
        run_job(
            write(good / "j" / "part-0.parquet", JUDGMENTS),
            write(good / "r" / "part-0.parquet", RESULTS),
            output,
            "--eval-date",
            "2026-12-01",
            html=True,
        )
        == EXIT_OK
    )
    return output, snapshot(output)


def _refused(capsys, output: Path, before: dict[str, str], judgments: str, results: str, *extra: str) -> str:
    code = run_job(judgments, results, output, "--eval-date", "2026-12-01", *extra)
    err = "\n".join(error_lines(capsys.readouterr().err))
    assert len(err.splitlines()) == 1 and err.startswith("ndcg-spark: ") and "Traceback" not in err, err
    assert snapshot(output) == before, "the previous report changed"
    return f"{code} {err}"


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_input_is_refused_and_the_report_kept(tmp_path: Path, capsys, previous, case: str) -> None:
    judgments, results, extra, code, fragment = CASES[case]
    paths = [
        write(tmp_path / "in" / name / "part-0.parquet", columns)
        for name, columns in (("judgments", judgments), ("results", results))
    ]
    outcome = _refused(capsys, *previous, *paths, *extra)
    assert outcome.startswith(f"{code} "), outcome
    assert fragment in outcome, outcome
    if code == EXIT_INPUT_REJECTED:  # names the input: label and folder
        side = "judgments" if judgments is not JUDGMENTS else "results"
        assert f"{side} {tmp_path / 'in' / side}" in outcome, outcome
    if " rows " in fragment:
        assert "(first in file:" in outcome and "part-0.parquet" in outcome, outcome


def test_empty_file(tmp_path: Path, capsys, previous) -> None:
    schema = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64())])
    empty = write(tmp_path / "empty" / "part-0.parquet", {"query_id": [], "doc_id": [], "score": []}, schema)
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    outcome = _refused(capsys, *previous, judgments, empty)
    assert outcome.startswith(f"{EXIT_INPUT_REJECTED} ") and "results" in outcome and "no rows" in outcome


def test_folder_without_parquet_and_missing_path(tmp_path: Path, capsys, previous) -> None:
    (tmp_path / "hollow").mkdir()
    (tmp_path / "hollow" / "notes.txt").write_text("no parquet here")
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    # text where Parquet was expected: most often trec_eval's, its format flag forgotten
    outcome = _refused(capsys, *previous, judgments, str(tmp_path / "hollow"))
    assert outcome.startswith(f"{EXIT_USAGE} ") and "is not Parquet" in outcome and "--results-format trec" in outcome
    # A local path where nothing is: refused before the session starts, in one line naming it.
    nowhere = str(tmp_path / "nowhere")
    outcome = _refused(capsys, *previous, judgments, nowhere)
    assert outcome == f"{EXIT_INPUT_REJECTED} ndcg-spark: results {nowhere}: no such file or folder", outcome


def test_files_of_one_input_that_disagree_on_the_schema(tmp_path: Path, capsys, previous) -> None:
    folder = tmp_path / "mixed"
    write(folder / "part-0.parquet", RESULTS)
    write(folder / "part-1.parquet", {**RESULTS, "score": ["high"] * 9})
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    outcome = _refused(capsys, *previous, judgments, str(folder))
    assert outcome.startswith(f"{EXIT_INPUT_REJECTED} ") and "disagree on the schema" in outcome, outcome
    assert "column 'score' is" in outcome and "part-0.parquet" in outcome and "part-1.parquet" in outcome
