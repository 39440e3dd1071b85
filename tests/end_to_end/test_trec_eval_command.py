"""ndcg-spark trec_eval: trec_eval's command line, its printed lines. Run with the commands of
trec_eval's own test, its output equals each of the four expected files line for line; the flags
it does not take are refused by name, before Spark starts."""

from __future__ import annotations

import os
import re

import pytest
from pyspark.sql import SparkSession

from ndcg_spark.errors import EXIT_USAGE, ConfigError
from ndcg_spark.job.cli import main
from ndcg_spark.job.trec_eval_command import parse, run

MEAS_PARAMS = [
    "-q",
    "-mndcg.1=3,2=9,4=4.5",
    "-mndcg_cut.10,20,23.4",
    "-m",
    "iprec_at_recall..10,.20,.25,.75,.50",
    "-m",
    "P.5,7,3",
    "-m",
    "recall.20,2000",
    "-m",
    "Rprec_mult.5.0,0.2,0.35",
    "-m",
    "utility.2,-1,0,0",
    "-m",
    "11pt_avg..25,.5,.75",
    "-m",
    "success.2,5,20",
]
# trec_eval's test: expected output, and its arguments (files last).
CASES = [
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "all_trec", "-q", "-mrelstring.20", "-l2"], "qrels.rel_level", "results.test"),
    ("out.test.meas_params", MEAS_PARAMS, "qrels.test", "results.test"),
]


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
