"""The variants through the job: several results inputs named on the command line, judged-only,
a depth cut and custom gains together, recorded in the outputs and the manifest, and the table
to paste beside the page."""

from __future__ import annotations

import json
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.errors import EXIT_INPUT_REJECTED, EXIT_OK, EXIT_USAGE
from ndcg_spark.job.cli import main
from tests import oracle
from tests.conftest import JUDGMENTS, RESULTS, error_lines, write

DATE = "2026-12-01"


def _run_inputs(tmp_path: Path) -> tuple[str, list[str]]:
    """JUDGMENTS, and RESULTS split into one folder per run: r1 without a run_id column (named
    on the command line), r2 keeping the run_id it carries."""
    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    rows = list(zip(*RESULTS.values(), strict=True))
    names = list(RESULTS)
    flags = []
    for run in ("r1", "r2"):
        mine = [row for row in rows if row[names.index("run_id")] == run]
        columns = {name: [row[i] for row in mine] for i, name in enumerate(names)}
        if run == "r1":
            columns.pop("run_id")
        flags += ["--results", f"{'first' if run == 'r1' else 'second'}={write(tmp_path / run / 'part-0.parquet', columns)}"]
    return judgments, flags


def test_several_inputs_with_every_variant(spark: SparkSession, tmp_path: Path, capsys) -> None:
    judgments, results = _run_inputs(tmp_path)
    output = tmp_path / "out"
    code = main(
        [
            "--judgments",
            judgments,
            *results,
            "--output",
            str(output),
            "--eval-date",
            DATE,
            "--k",
            "1,2",
            "--judged-only",
            "--max-depth",
            "3",
            "--gains",
            "1=1.5,2=4",
            "--complete",
            "--baseline",
            "first",
            "--no-html-report",
            "--report-format",
            "latex",
        ]
    )
    assert code == EXIT_OK
    per_query = spark.read.parquet(str(output / "per_query")).filter(F.col(c.EVAL_DATE) == DATE)
    got = {(row[c.RUN_ID], row[c.QUERY_ID], row[c.K]): row[c.NDCG] for row in per_query.collect()}
    judged = list(zip(JUDGMENTS["query_id"], JUDGMENTS["doc_id"], JUDGMENTS["relevance"], strict=True))
    ranked = [
        ("first" if run == "r1" else run, query, doc, score)
        for run, query, doc, score in zip(
            RESULTS["run_id"], RESULTS["query_id"], RESULTS["doc_id"], RESULTS["score"], strict=True
        )
    ]
    want = oracle.ndcg(ranked, judged, [1, 2], complete=True, table={1: 1.5, 2: 4.0}, judged_only=True, max_depth=3)
    assert got.keys() == want.keys()
    assert all(abs(got[key] - want[key]) < 1e-9 for key in want)
    variant = "gain=linear;gains=1=1.5,2=4;judged_only;max_depth=3"
    assert {row[0] for row in per_query.select(c.VARIANT).distinct().collect()} == {variant}
    summary = spark.read.parquet(str(output / "summary"))
    assert {row[0] for row in summary.select(c.VARIANT).distinct().collect()} == {variant}
    manifest = json.loads((output / "_manifests" / f"{DATE}.json").read_text())
    assert manifest["config"]["gains"] == {"1": 1.5, "2": 4.0}
    assert (manifest["config"]["judged_only"], manifest["config"]["max_depth"]) == (True, 3)
    assert set(manifest["inputs"]) == {"judgments", "results:first", "results:second"}
    assert manifest["outputs"]["report_table"]["path"].endswith(f"/report/{DATE}.tex")
    table = (output / "report" / f"{DATE}.tex").read_text()
    assert r"\begin{tabular}" in table and "first (baseline)" in table
    printed = capsys.readouterr().out
    assert f"scored with {variant}" in printed and "judged@k is 1" in printed


def test_default_writes_the_markdown_table_and_two_inputs_of_one_name_are_refused(
    spark: SparkSession, tmp_path: Path, capsys
) -> None:
    judgments, results = _run_inputs(tmp_path)
    output = tmp_path / "out"
    assert main(["--judgments", judgments, *results, "--output", str(output), "--no-html-report"]) == EXIT_OK
    table = (output / "report" / "latest.md").read_text()
    assert "| run | ndcg@5 | ndcg@10 | ndcg@20 | ndcg | queries |" in table
    before = sorted(str(path) for path in output.rglob("*"))
    # second's rows carry run_id r2; a third input named r2 gives that name to another system.
    clash = write(tmp_path / "clash" / "part-0.parquet", {k: v for k, v in RESULTS.items() if k != "run_id"})
    capsys.readouterr()
    code = main(["--judgments", judgments, *results, "--results", f"r2={clash}", "--output", str(output), "--no-html-report"])
    assert code == EXIT_INPUT_REJECTED
    lines = error_lines(capsys.readouterr().err)
    assert lines[-1].startswith("ndcg-spark: ")
    assert "r2" in lines[-1] and ("two inputs" in lines[-1] or "more than once" in lines[-1]), lines
    assert sorted(str(path) for path in output.rglob("*")) == before
    assert main(["--judgments", judgments, "--results", "a=x", "--results", "a=y", "--output", str(output)]) == EXIT_USAGE


def test_the_pages_trend_keeps_to_the_variant(spark: SparkSession, tmp_path: Path) -> None:
    """The HTML page's history of NDCG@k reads the summaries of earlier dates: only those of the
    same variant, a summary from before the variant column counting as the default."""
    import datetime as dt

    from pyspark.sql import Row

    from ndcg_spark.evaluation import Evaluation
    from ndcg_spark.io.layout import OutputLayout
    from ndcg_spark.report.data import _trend

    judgments = write(tmp_path / "j" / "part-0.parquet", JUDGMENTS)
    results = write(tmp_path / "r" / "part-0.parquet", RESULTS)
    output = tmp_path / "out"
    for date, extra in (("2026-12-01", []), ("2026-12-02", ["--judged-only"])):
        assert (
            main(
                [
                    "--judgments",
                    judgments,
                    "--results",
                    results,
                    "--output",
                    str(output),
                    "--k",
                    "1",
                    "--eval-date",
                    date,
                    "--no-html-report",
                    *extra,
                ]
            )
            == EXIT_OK
        )
    # A summary written before the variant column existed.
    old = spark.read.parquet(str(output / "summary" / "eval_date=2026-12-01")).drop(c.VARIANT)
    old.coalesce(1).write.parquet(str(output / "summary" / "eval_date=2026-11-30"))

    def dates(variant: str) -> list[str]:
        row = Row(run_id="r1", measure="ndcg_cut", k=1, ndcg=0.5, num_queries=2, judged_at_k=1.0, variant=variant)
        evaluation = Evaluation([row], [], 0, 0, 0, 0, 0, False)
        points = _trend(spark, OutputLayout(str(output), dt.date(2026, 12, 3)), evaluation, 1)
        return sorted({date for date, run, _ in points if run == "r1"})

    assert dates("gain=linear") == ["2026-11-30", "2026-12-01", "2026-12-03"]
    assert dates("gain=linear;judged_only") == ["2026-12-02", "2026-12-03"]
