"""ndcg-spark trec_eval on the embedded engine, its default: trec_eval's four test outputs byte for
byte, in milliseconds; its refusals, each one line naming the file; --engine and --help; and a
command that imports neither pyspark nor pandas. (tests/end_to_end/test_trec_eval_command.py runs
the Spark engine on the same files, and both engines on further variants.)"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK, EXIT_USAGE, ConfigError
from ndcg_spark.job.cli import main
from ndcg_spark.job.trec_eval_args import parse
from ndcg_spark.job.trec_eval_command import help_text
from ndcg_spark.job.trec_eval_local import local_lines
from tests.trec_text import TREC_EVAL_COMMANDS as CASES


@pytest.mark.parametrize(("expected", "flags", "qrels", "results"), CASES, ids=[case[0] for case in CASES])
def test_prints_what_trec_eval_prints(conformance_dir: str, expected: str, flags: list[str], qrels: str, results: str) -> None:
    files = [os.path.join(conformance_dir, name) for name in (qrels, results)]
    with open(os.path.join(conformance_dir, expected)) as handle:
        want = handle.read().splitlines()
    args = parse([*flags, *files])
    assert args.engine == "local"
    assert local_lines(args) == want


def test_the_command_writes_the_lines_to_stdout(conformance_dir: str, capsys: pytest.CaptureFixture[str]) -> None:
    files = [os.path.join(conformance_dir, name) for name in ("qrels.test", "results.test")]
    assert main(["trec_eval", "-m", "map", "-m", "P.5", *files]) == EXIT_OK
    printed = capsys.readouterr()
    assert printed.out == "map                   \tall\t0.1785\nP_5                   \tall\t0.2667\n"
    assert printed.err == ""


def test_gzipped_files_and_folders_read_as_their_text(conformance_dir: str, tmp_path: Path) -> None:
    qrels, results = (Path(conformance_dir) / name for name in ("qrels.test", "results.test"))
    (tmp_path / "qrels.gz").write_bytes(gzip.compress(qrels.read_bytes()))
    folder = tmp_path / "run"
    folder.mkdir()
    lines = results.read_text().splitlines(keepends=True)
    (folder / "part-0").write_text("".join(lines[:700]))
    (folder / "part-1").write_text("\n" + "".join(lines[700:]))  # a blank line, skipped
    (folder / "_SUCCESS").write_text("")
    plain = local_lines(parse(["-q", "-m", "all_trec", str(qrels), str(results)]))
    assert local_lines(parse(["-q", "-m", "all_trec", str(tmp_path / "qrels.gz"), str(folder)])) == plain


def _refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["trec_eval", *argv])
    printed = capsys.readouterr()
    assert printed.out == ""
    (line,) = printed.err.strip().splitlines()
    return code, line


def test_a_malformed_line_is_named_by_file_and_number(
    conformance_dir: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("301 0 d1 1\n\n301 0 d2 two\n301 0 d3\n")
    run = os.path.join(conformance_dir, "results.test")
    code, line = _refusal([str(qrels), run], capsys)
    assert code == EXIT_INPUT_REJECTED
    assert line == (
        f"ndcg-spark: qrels {qrels}: 2 malformed lines, first at line 3 of {qrels}:"
        " expected 'query_id 0 doc_id relevance', got '301 0 d2 two'"
    )


def test_a_missing_file_is_named(conformance_dir: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.run"
    code, line = _refusal([os.path.join(conformance_dir, "qrels.test"), str(missing)], capsys)
    assert (code, line) == (EXIT_INPUT_REJECTED, f"ndcg-spark: run {missing}: no such file or folder")


def test_a_document_retrieved_twice_is_refused_as_trec_eval_refuses_it(
    conformance_dir: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message names the file, and offers no flag the command does not take."""
    lines = Path(conformance_dir, "results.test").read_text().splitlines(keepends=True)
    run = tmp_path / "twice.run"
    run.write_text("".join([*lines[:3], lines[0]]))
    code, line = _refusal([os.path.join(conformance_dir, "qrels.test"), str(run)], capsys)
    assert code == EXIT_INPUT_REJECTED
    assert line == (
        f"ndcg-spark: results {run}: columns 'query_id', 'doc_id': 1 documents are retrieved more than once for the"
        " same query and run (1 extra rows); trec_eval refuses this"
    )


def test_two_runs_in_one_file_are_refused(conformance_dir: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = Path(conformance_dir, "results.test").read_text().splitlines(keepends=True)
    run = tmp_path / "two.run"
    run.write_text("".join([lines[0], lines[1].replace("STANDARD", "OTHER")]))
    code, line = _refusal([os.path.join(conformance_dir, "qrels.test"), str(run)], capsys)
    assert (code, line) == (
        EXIT_INPUT_REJECTED,
        f"ndcg-spark: run {run}: column 'run_id': 2 run names; trec_eval reads one run per file",
    )


@pytest.mark.parametrize(
    ("argv", "engine"),
    [(["q", "r"], "local"), (["--engine", "spark", "q", "r"], "spark"), (["--engine=local", "-q", "q", "r"], "local")],
)
def test_engine_flag(argv: list[str], engine: str) -> None:
    assert parse(argv).engine == engine


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--engine", "duck", "q", "r"], "--engine 'duck': must be local or spark"),
        (["q", "r", "--engine"], "--engine needs a value"),
    ],
)
def test_a_bad_engine_is_a_usage_error(argv: list[str], named: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match=named):
        parse(argv)
    code, line = _refusal(argv, capsys)
    assert code == EXIT_USAGE and named in line


def test_help_lists_the_flags_and_the_measures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trec_eval", "--help"]) == EXIT_OK
    printed = capsys.readouterr().out
    assert printed == help_text() + "\n"
    for flag in ("-q", "-c", "-J", "-n", "-l LEVEL", "-M DEPTH", "-m MEASURE", "--engine local|spark"):
        assert f"\n  {flag} " in printed
    listed = set(printed.split("measures (-m):")[1].split())
    assert {"ndcg_cut", "ndcg", "map", "P", "recip_rank", "bpref", "err", "11pt_avg", "utility"} <= listed


def test_the_command_imports_neither_pyspark_nor_pandas(conformance_dir: str) -> None:
    files = [os.path.join(conformance_dir, name) for name in ("qrels.test", "results.test")]
    script = (
        "import sys\n"
        "from ndcg_spark.job.cli import main\n"
        f"assert main(['trec_eval', '-q', '-m', 'all_trec', *{files!r}]) == 0\n"
        "print(sorted({name.split('.')[0] for name in sys.modules} & {'pyspark', 'pandas', 'py4j'}), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "[]"
    assert done.stdout == Path(conformance_dir, "out.test.aq").read_text()


def test_rbp_with_trec_eval_10s_named_persistence(conformance_dir: str) -> None:
    """-m rbp.p=0.8 is printed rbp_p=0.8, at rbp's place, with rbp.0.8's value."""
    files = [os.path.join(conformance_dir, name) for name in ("qrels.test", "results.test")]
    named = local_lines(parse(["-q", "-m", "rbp.p=0.8", "-m", "P.5", *files]))
    positional = local_lines(parse(["-q", "-m", "rbp.0.8", "-m", "P.5", *files]))
    assert [line.split("\t")[0].strip() for line in named[:2]] == ["P_5", "rbp_p=0.8"]
    assert [line.replace("rbp_p=0.8", "rbp_0.8  ") for line in named] == positional
