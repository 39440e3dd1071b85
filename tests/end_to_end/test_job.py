"""The job's main(argv) end to end on Parquet files: outputs, counts, eval dates, exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK, EXIT_USAGE
from ndcg_spark.io.storage import FileSystem
from ndcg_spark.job.cli import main
from tests.conftest import HANG_SECONDS, JUDGMENTS, RESULTS, error_lines, run_job, write


def test_end_to_end(spark: SparkSession, inputs: tuple[str, str], tmp_path: Path, capsys) -> None:
    output = str(tmp_path / "out")
    assert run_job(*inputs, output, "--k", "1,2") == EXIT_OK
    per_query = spark.read.parquet(f"{output}/per_query")
    summary = spark.read.parquet(f"{output}/summary")
    assert per_query.count() == 2 * 2 * 3  # runs x queries (q1, q2; q3 and q9 not both sides) x (k=1, 2, uncut)
    assert set(summary.columns) >= {c.RUN_ID, c.K, c.NDCG, c.NUM_QUERIES}
    # r1 on q1: a(2) b(1) at the top, ideal a(2) b(1): 1.0. r2 on q1: b then a.
    r2_q1 = per_query.filter((F.col(c.RUN_ID) == "r2") & (F.col(c.QUERY_ID) == "q1") & (F.col(c.K) == 1))
    assert r2_q1.first()[c.NDCG] == pytest.approx(0.5)
    printed = capsys.readouterr().out
    assert "ndcg@1" in printed and "ndcg@2" in printed and "r1" in printed
    assert "read 6 judgment rows" in printed and "9 result rows" in printed


def test_complete_flag_counts_judged_queries(spark: SparkSession, inputs, tmp_path: Path) -> None:
    output = str(tmp_path / "out")
    assert run_job(*inputs, output, "--k", "5", "--complete") == EXIT_OK
    summary = spark.read.parquet(f"{output}/summary").filter(F.col(c.K) == 5)
    assert {row[c.RUN_ID]: row[c.NUM_QUERIES] for row in summary.collect()} == {"r1": 3, "r2": 3}


def test_complete_comparison_pairs_every_judged_query(spark: SparkSession, inputs, tmp_path: Path) -> None:
    """With --complete, q3 (judged, retrieved by neither run) scores 0 for both and is paired: the
    comparison's means and counts are the per-query rows', all three queries."""
    output = str(tmp_path / "out")
    assert run_job(*inputs, output, "--k", "2", "--complete", "--baseline", "r1") == EXIT_OK
    per_query = {
        (row[c.RUN_ID], row[c.QUERY_ID]): row[c.NDCG]
        for row in spark.read.parquet(f"{output}/per_query").filter(F.col(c.K) == 2).collect()
    }
    (row,) = spark.read.parquet(f"{output}/comparison").filter(F.col(c.K) == 2).collect()
    queries = ("q1", "q2", "q3")
    assert per_query[("r1", "q3")] == per_query[("r2", "q3")] == 0.0
    assert (row[c.RUN_ID], row[c.NUM_QUERIES]) == ("r2", 3)
    assert row["ndcg_run"] == pytest.approx(sum(per_query[("r2", q)] for q in queries) / 3, abs=1e-12)
    assert row["ndcg_baseline"] == pytest.approx(sum(per_query[("r1", q)] for q in queries) / 3, abs=1e-12)
    differences = [per_query[("r2", q)] - per_query[("r1", q)] for q in queries]
    assert row["mean_difference"] == pytest.approx(sum(differences) / 3, abs=1e-12)
    assert (row["wins"], row["ties"], row["losses"]) == (
        sum(d > 0 for d in differences),
        sum(d == 0 for d in differences),
        sum(d < 0 for d in differences),
    )


def test_results_without_run_id_use_flag(spark: SparkSession, tmp_path: Path) -> None:
    judgments = write(tmp_path / "j.parquet", JUDGMENTS)
    results = write(
        tmp_path / "r.parquet",
        {k: v for k, v in RESULTS.items() if k != "run_id"} | {"doc_id": ["a", "b", "z", "d", "a", "c", "x", "y", "w"]},
    )
    output = str(tmp_path / "out")
    assert run_job(judgments, results, output, "--run-id", "candidate") == EXIT_OK
    runs = spark.read.parquet(f"{output}/summary").select(c.RUN_ID).distinct().collect()
    assert [row[0] for row in runs] == ["candidate"]


def test_integer_ids_match_string_ids(spark: SparkSession, tmp_path: Path) -> None:
    judgments = write(tmp_path / "j.parquet", {"query_id": [7, 7], "doc_id": [1, 2], "relevance": [1, 2]})
    results = write(tmp_path / "r.parquet", {"query_id": ["7", "7"], "doc_id": ["2", "1"], "score": [2.0, 1.0]})
    output = str(tmp_path / "out")
    assert run_job(judgments, results, output, "--k", "2") == EXIT_OK
    row = spark.read.parquet(f"{output}/per_query").filter(F.col(c.K) == 2).first()
    assert row[c.NDCG] == pytest.approx(1.0)


def test_config_file_with_renamed_columns(spark: SparkSession, tmp_path: Path) -> None:
    judgments = write(tmp_path / "j.parquet", {"qid": ["q"], "docno": ["a"], "label": [1]})
    results = write(tmp_path / "r.parquet", {"qid": ["q"], "docno": ["a"], "sim": [0.5]})
    config = tmp_path / "job.toml"
    config.write_text(
        f'[input]\njudgments = "{judgments}"\nresults = "{results}"\n'
        f'[output]\npath = "{tmp_path / "out"}"\n'
        '[evaluation]\nk = [3]\ngain = "exponential"\n'
        '[columns]\nquery_id = "qid"\ndoc_id = "docno"\nrelevance = "label"\nscore = "sim"\n'
    )
    assert main(["--config", str(config), "--k", "1"]) == EXIT_OK  # flag overrides config
    ks = {row[0] for row in spark.read.parquet(str(tmp_path / "out" / "summary")).select(c.K).collect()}
    assert ks == {1, None}


def test_each_input_names_its_own_columns(spark: SparkSession, tmp_path: Path, capsys) -> None:
    """A recommendation log: results with item and prediction, judgments with doc_id; the flag,
    or the config file's [columns.results], names the results' own."""
    judgments = write(tmp_path / "j.parquet", {"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    results = write(tmp_path / "r.parquet", {"query_id": ["q", "q"], "item": ["a", "b"], "prediction": [0.2, 0.9]})
    output = tmp_path / "out"
    assert run_job(judgments, results, str(output), "--k", "1") == EXIT_INPUT_REJECTED
    err = capsys.readouterr().err.strip()
    assert err.startswith("ndcg-spark: results ") and "missing column(s) 'doc_id', 'score'" in err
    assert err.endswith(
        "if its columns have other names, pass --results-columns doc_id=item,..."
        ' (config file: [columns] results = {doc_id = "item"})'
    )
    assert run_job(judgments, results, str(output), "--k", "1", "--results-columns", "doc_id=item,score=prediction") == EXIT_OK
    config = tmp_path / "job.toml"
    config.write_text('[columns.results]\ndoc_id = "item"\nscore = "prediction"\n')
    again = str(tmp_path / "again")
    assert run_job(judgments, results, again, "--k", "1", "--config", str(config)) == EXIT_OK
    for folder in (str(output), again):
        (row,) = spark.read.parquet(f"{folder}/summary").filter(F.col(c.K) == 1).collect()
        assert row[c.NDCG] == 0.0  # b (grade 0) is ranked first


def test_eval_date_rerun_replaces_only_that_date(spark: SparkSession, inputs, tmp_path: Path) -> None:
    output = str(tmp_path / "out")
    assert run_job(*inputs, output, "--eval-date", "2026-12-01") == EXIT_OK
    assert run_job(*inputs, output, "--eval-date", "2026-12-02") == EXIT_OK
    assert run_job(*inputs, output, "--eval-date", "2026-12-02", "--k", "3") == EXIT_OK
    summary = spark.read.parquet(f"{output}/summary")
    by_date = {
        str(row[0]): sorted(row[1], key=lambda k: k or 0)
        for row in summary.groupBy(c.EVAL_DATE).agg(F.collect_set(c.K)).collect()
    }
    assert by_date == {"2026-12-01": [5, 10, 20], "2026-12-02": [3]}
    dates = sorted(name for name in os.listdir(f"{output}/per_query") if not name.startswith(("_", ".")))
    assert dates == ["eval_date=2026-12-01", "eval_date=2026-12-02"]


# --- bad input (the whole corpus is in test_malformed.py): exit 3, one line, nothing written ---


def _rejected(judgments: str, results: str, tmp_path: Path, capsys, *extra: str) -> str:
    output = tmp_path / "out"
    code = run_job(judgments, results, str(output), *extra)
    err = capsys.readouterr().err.strip()
    assert code == EXIT_INPUT_REJECTED, err
    assert not output.exists(), "bad input must leave nothing under --output"
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


# --- exit 1 is for transient failures only: what a rerun cannot fix is a usage (2) or input (3) error ---


def _usage_error(capsys, *argv: str) -> str:
    code = main(list(argv))
    (line,) = error_lines(capsys.readouterr().err)
    assert code == EXIT_USAGE, line
    return line


def test_an_output_that_is_a_file_or_under_one_or_unwritable_is_a_usage_error(
    spark: SparkSession, tmp_path: Path, capsys, inputs
) -> None:
    # a new relative folder under new folders is writable (it walks up to the working folder)
    assert FileSystem(spark, "x").unwritable_folder("no-such-folder/of-a-test/out") is None
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("not a folder")
    flags = ["--judgments", inputs[0], "--results", inputs[1], "--no-html-report", "--output"]
    line = _usage_error(capsys, *flags, str(blocker))
    assert (
        line == f"ndcg-spark: output {blocker} is a file, not a folder: give --output (config file: [output] path)"
        " a folder this user can write"
    )
    assert f"is under {blocker}, a file" in _usage_error(capsys, *flags, str(blocker / "out"))
    assert blocker.read_text() == "not a folder"
    locked = tmp_path / "read-only"
    locked.mkdir(mode=0o555)
    if not os.access(locked, os.W_OK):  # root writes anywhere: then there is nothing to refuse
        assert f"cannot be written by this user ({locked}, where it would be made)" in _usage_error(
            capsys, *flags, str(locked / "out")
        )
        assert list(locked.iterdir()) == []
    # permissions are not all: root may write /proc by its bits, yet no folder can be made there
    if Path("/proc/self").is_dir():
        line = _usage_error(capsys, *flags, "/proc/ndcg-spark-test/out")
        assert line.startswith("ndcg-spark: output /proc/ndcg-spark-test/out cannot be written (/proc, where it would be made): ")
    assert not list(tmp_path.glob(".ndcg-spark-probe-*"))  # the probe of a writable folder leaves nothing
    assert _usage_error(capsys, "--repair", "--output", str(blocker)).startswith(f"ndcg-spark: output {blocker} is a file")


def test_a_config_file_missing_or_not_toml_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert "cannot read config" in _usage_error(capsys, "--config", str(tmp_path / "none.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text("[input\njudgments = 1")
    assert f"config {bad} is not valid TOML" in _usage_error(capsys, "--config", str(bad))


def test_trec_text_given_as_parquet_names_the_format_flag(tmp_path: Path, capsys, inputs) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\n")
    line = _usage_error(capsys, "--judgments", str(qrels), "--results", inputs[1], "--output", str(tmp_path / "out"))
    assert (
        line == f"ndcg-spark: judgments {qrels} is not Parquet: for trec_eval's text (plain or .gz) pass"
        ' --judgments-format trec (config file: [input] judgments_format = "trec")'
    )
    assert not (tmp_path / "out").exists()


def test_empty_input_is_rejected(tmp_path: Path, capsys, inputs) -> None:
    schema = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64())])
    empty = write(tmp_path / "empty" / "part-0.parquet", {"query_id": [], "doc_id": [], "score": []}, schema)
    assert "no rows" in _rejected(inputs[0], empty, tmp_path, capsys)


def test_lenient_duplicates_are_opt_in_and_counted(spark: SparkSession, tmp_path: Path, capsys) -> None:
    judgments = write(tmp_path / "j.parquet", {"query_id": ["q", "q"], "doc_id": ["a", "a"], "relevance": [1, 3]})
    results = write(tmp_path / "r.parquet", {"query_id": ["q", "q", "q"], "doc_id": ["a", "a", "b"], "score": [1.0, 2.0, 1.5]})
    config = tmp_path / "lenient.toml"
    config.write_text('[validation]\nduplicate_results = "keep_best"\nduplicate_judgments = "keep_max"\n')
    # the config file's keys, or the flags that name the same settings
    for name, extra in (
        ("config", ("--config", str(config))),
        ("flags", ("--duplicate-results", "keep_best", "--duplicate-judgments", "keep_max")),
    ):
        output = tmp_path / name
        assert run_job(judgments, results, str(output), *extra, "--k", "1") == EXIT_OK
        printed = capsys.readouterr().out
        assert "dropped 1 duplicate judgment rows" in printed and "dropped 1 duplicate result rows" in printed
        row = spark.read.parquet(str(output / "per_query")).filter(F.col(c.K) == 1).first()
        assert (row[c.DCG], row[c.IDCG]) == (3.0, 3.0)  # a kept with score 2.0 and grade 3


@pytest.mark.parametrize("k", ["0", "-3", "ten", "5,,10", "2.5"])
def test_bad_k_is_a_usage_error(tmp_path: Path, capsys, inputs, k: str) -> None:
    output = tmp_path / "out"
    assert run_job(*inputs, str(output), f"--k={k}") == EXIT_USAGE
    err = "\n".join(error_lines(capsys.readouterr().err))
    assert "ks must be" in err and "(flag --k, config file: [evaluation] k)" in err and len(err.splitlines()) == 1
    assert not output.exists()


def test_a_bad_value_and_an_unknown_flag_are_usage_errors(tmp_path: Path, capsys, inputs) -> None:
    assert run_job(*inputs, str(tmp_path / "out"), "--gain", "cubic") == EXIT_USAGE
    assert "cubic" in capsys.readouterr().err
    assert run_job(*inputs, str(tmp_path / "out"), "--ndcg-cutoff", "5") == EXIT_USAGE
    assert "--ndcg-cutoff" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_python_dash_m_is_the_command(inputs, tmp_path: Path) -> None:
    """`python -m ndcg_spark`: the same parser, refusing before Spark starts (no JVM here)."""
    done = subprocess.run([sys.executable, "-m", "ndcg_spark", "--help"], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert done.returncode == EXIT_OK and "--judgments" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "ndcg_spark", "--judgments", inputs[0], "--bogus"],
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert done.returncode == EXIT_USAGE and "--bogus" in done.stderr


def test_report_without_plotly_is_refused_before_spark_reads(monkeypatch, inputs, tmp_path: Path, capsys) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "plotly", None)  # as if not installed on the driver
    import ndcg_spark.report

    monkeypatch.delitem(sys.modules, "ndcg_spark.report.html", raising=False)
    monkeypatch.delattr(ndcg_spark.report, "html", raising=False)  # set by an earlier import
    output = tmp_path / "out"
    assert run_job(*inputs, str(output), html=True) == EXIT_USAGE
    (line,) = error_lines(capsys.readouterr().err)
    assert "needs plotly on the driver" in line and "--no-html-report" in line
    assert not output.exists()
    assert run_job(*inputs, str(output)) == EXIT_OK


def test_unknown_baseline_is_a_usage_error_and_publishes_nothing(tmp_path: Path, capsys, inputs) -> None:
    # With a run_id column the runs are known once the results are read: exit 2, nothing published.
    output = tmp_path / "out"
    assert run_job(*inputs, str(output), "--baseline", "nope") == EXIT_USAGE
    (line,) = error_lines(capsys.readouterr().err)
    assert "baseline run 'nope' is not in the results (runs: r1, r2)" in line
    assert not (output / "summary").exists() and not (output / "_manifests").exists()
    # Without one the only run is --run-id: refused with the schemas, before the main pass.
    one_run = write(
        tmp_path / "one" / "part-0.parquet",
        {k: v for k, v in RESULTS.items() if k != "run_id"} | {"doc_id": ["a", "b", "z", "d", "a", "c", "x", "y", "w"]},
    )
    assert run_job(inputs[0], one_run, str(output), "--baseline", "nope", "--run-id", "mine") == EXIT_USAGE
    (line,) = error_lines(capsys.readouterr().err)
    assert line == "ndcg-spark: baseline run 'nope' is not in the results (runs: mine)"
    assert not output.exists()


def test_unknown_baseline_interrupts_the_main_pass(monkeypatch, tmp_path: Path, capsys, inputs) -> None:
    """The runs of a run column are read beside the main pass, and an unknown baseline stops it:
    here a pass of many small jobs (Spark schedules the watcher's between them) whose end,
    uninterrupted, returns nothing the job can read (exit 1, not 2)."""
    import ndcg_spark.job.run as job_run

    def endless_pass(spark: SparkSession, *args: object, **kwargs: object) -> None:
        for _ in range(600):
            spark.range(10**5).selectExpr("max(id % 7)").collect()

    monkeypatch.setattr(job_run, "evaluate_checked", endless_pass)
    output = tmp_path / "out"
    assert run_job(*inputs, str(output), "--baseline", "nope") == EXIT_USAGE
    (line,) = error_lines(capsys.readouterr().err)
    assert line == "ndcg-spark: baseline run 'nope' is not in the results (runs: r1, r2)"
    assert not (output / "summary").exists() and not (output / "_manifests").exists()


def test_a_top_k_less_than_half_judged_is_warned_of(spark: SparkSession, tmp_path: Path, capsys) -> None:
    """One judged document among the four retrieved: the top 1 is wholly judged, the top 2 half
    (no warning: the bar is below half), the top 3 a third."""
    judgments = write(tmp_path / "j.parquet", {"query_id": ["q1"], "doc_id": ["a"], "relevance": [2]})
    results = write(
        tmp_path / "r.parquet",
        {"run_id": ["r"] * 4, "query_id": ["q1"] * 4, "doc_id": ["a", "x", "y", "z"], "score": [4.0, 3.0, 2.0, 1.0]},
    )
    output = tmp_path / "out"
    assert run_job(judgments, results, str(output), "--k", "1,2,3") == EXIT_OK
    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: run r: only 33% of the top 3 is judged on average; unjudged documents count as non-relevant"]
    judged = {row[c.K]: row[c.JUDGED_AT_K] for row in spark.read.parquet(str(output / "summary")).collect()}
    assert (judged[1], judged[2], judged[3]) == (1.0, 0.5, pytest.approx(1 / 3))
