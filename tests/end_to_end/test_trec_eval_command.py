"""ndcg-spark trec_eval --engine spark: trec_eval's command line, its printed lines on the Spark
engine. Run with the commands of trec_eval's own test, its output equals each of the four expected
files line for line, and the embedded engine's lines on the variants those files do not cover; the
flags it does not take are refused by name, before Spark starts. (tests/unit/test_trec_eval_local.py
runs the same files on the embedded engine, the command's default.)"""

from __future__ import annotations

import os
import re

import pytest
from pyspark.sql import SparkSession

from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_USAGE, ConfigError
from ndcg_spark.job.cli import main
from ndcg_spark.job.trec_eval_args import parse
from ndcg_spark.job.trec_eval_local import local_lines
from ndcg_spark.job.trec_eval_spark import run
from tests.trec_text import TREC_EVAL_COMMANDS as CASES


@pytest.mark.parametrize(("expected", "flags", "qrels", "results"), CASES, ids=[case[0] for case in CASES])
def test_prints_what_trec_eval_prints(
    spark: SparkSession, conformance_dir: str, expected: str, flags: list[str], qrels: str, results: str
) -> None:
    files = [os.path.join(conformance_dir, name) for name in (qrels, results)]
    with open(os.path.join(conformance_dir, expected)) as handle:
        want = handle.read().splitlines()
    assert run(spark, parse([*flags, *files])) == want


def test_summary_alone_without_q_and_nothing_but_queries_with_n(spark: SparkSession, conformance_dir: str) -> None:
    files = [os.path.join(conformance_dir, name) for name in ("qrels.test", "results.test")]
    summary = run(spark, parse(["-m", "map", "-m", "P.5", *files]))
    assert [line.split("\t")[:2] for line in summary] == [["map                   ", "all"], ["P_5                   ", "all"]]
    queries = run(spark, parse(["-q", "-n", "-m", "map", *files]))
    assert [line.split("\t")[1] for line in queries] == ["301", "302", "303"]


def test_a_cutoff_that_is_not_whole_is_read_as_trec_eval_reads_it_with_a_warning() -> None:
    args = parse(["-m", "ndcg_cut.10,23.4", "q", "r"])
    assert args.measures == ("ndcg_cut.10,23",)
    assert args.warnings == ("trec_eval -m ndcg_cut.10,23.4: cutoff 23.4 read as 23, as trec_eval reads it",)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["-Z", "z.txt", "q", "r"], "trec_eval -Z (z-score normalization) is not supported"),
        (["-N100", "q", "r"], "trec_eval -N (the number of documents in the collection"),
        (["-R", "prefs", "q", "r"], "trec_eval -R (other judgment formats) is not supported"),
        (["-x", "q", "r"], "trec_eval -x: unknown flag"),
        (["-l", "two", "q", "r"], "trec_eval -l: 'two' is not a whole number"),
        (["-q", "q"], "trec_eval takes a qrels file and a run file"),
        (["-m", "alpha_nDCG@10", "q", "r"], "measure 'alpha_nDCG@10' is unknown"),
    ],
)
def test_flags_it_does_not_take_are_refused_before_spark(argv: list[str], named: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match=re.escape(named)):
        parse(argv)
    assert main(["trec_eval", *argv]) == EXIT_USAGE
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("ndcg-spark: ") and named in line


def test_text_alone(spark: SparkSession, conformance_dir: str) -> None:
    """-m relstring -m runid: nothing numeric, the lines of text alone."""
    files = [os.path.join(conformance_dir, name) for name in ("qrels.test", "results.test")]
    lines = run(spark, parse(["-q", "-m", "relstring", "-m", "runid", *files]))
    assert lines == [
        "relstring             \t301\t'0000011000'",
        "relstring             \t302\t'1101110110'",
        "relstring             \t303\t'0000000000'",
        "runid                 \tall\tSTANDARD",
    ]


@pytest.mark.parametrize(
    "flags",
    [
        ["-q", "-c", "-J", "-M", "40", "-l", "2", "-m", "all_trec"],
        ["-q", "-J", "-m", "all_trec", "-m", "relstring.5", "-mndcg.1=2,2=7"],
        ["-q", "-n", "-M", "5", "-m", "official"],
    ],
    ids=["complete-judged-depth-level", "judged-relstring-gains", "depth-queries-only"],
)
def test_both_engines_print_the_same_bytes(spark: SparkSession, conformance_dir: str, flags: list[str]) -> None:
    files = [os.path.join(conformance_dir, name) for name in ("qrels.rel_level", "results.trunc")]
    args = parse([*flags, *files])
    local = local_lines(args)
    assert len(local) > 50
    assert run(spark, args) == local


def test_a_document_retrieved_twice_is_named_by_its_file_on_spark_too(
    spark: SparkSession, conformance_dir: str, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--engine spark refuses the run as the embedded engine does: by its path, with trec_eval's
    behaviour and no flag of the job's."""
    with open(os.path.join(conformance_dir, "results.test")) as handle:
        lines = handle.read().splitlines(keepends=True)
    run = tmp_path / "twice.run"
    run.write_text("".join([*lines[:3], lines[0]]))
    qrels = os.path.join(conformance_dir, "qrels.test")
    assert main(["trec_eval", "--engine", "spark", qrels, str(run)]) == EXIT_INPUT_REJECTED
    (line,) = [text for text in capsys.readouterr().err.splitlines() if text.startswith("ndcg-spark:")]
    assert line.startswith(f"ndcg-spark: results {run}: ") and line.endswith("trec_eval refuses this"), line
    assert "DataFrame" not in line and "--duplicate-results" not in line
