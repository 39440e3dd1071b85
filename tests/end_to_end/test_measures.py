"""The measures beside NDCG through the job: asked for on the command line and in the config file,
in every dataset (per_query, summary, comparison, slices), the printed table, the Markdown table
and the HTML page; a bad measure is a usage error that names it."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ndcg_spark import columns as c
from ndcg_spark.errors import EXIT_OK, EXIT_USAGE
from ndcg_spark.job.cli import main
from ndcg_spark.scoring.slices import SLICE_VALUE
from tests.conftest import RESULTS, error_lines, run_job, write

MEASURES = ("--measure", "P.1,2", "--measure", "AP", "--measure", "RR", "--measure", "nDCG@1")
# per (run, query): ndcg_cut at 1 (from nDCG@1) and 2 (--k), ndcg, P@1, P@2, map, recip_rank
ROWS = {("ndcg_cut", 1), ("ndcg_cut", 2), ("ndcg", None), ("P", 1), ("P", 2), ("map", None), ("recip_rank", None)}


def test_every_dataset_and_table_holds_every_measure(inputs: tuple[str, str], tmp_path: Path, capsys) -> None:
    output = tmp_path / "out"
    locales = ["en", "en", "en", "de", "en", "en", "en", "de", "de"]
    results = write(tmp_path / "r.parquet", {**RESULTS, "locale": locales})
    code = run_job(
        inputs[0],
        results,
        output,
        "--k",
        "2",
        *MEASURES,
        "--baseline",
        "r1",
        "--slices",
        "locale",
        "--report-format",
        "markdown",
        html=True,
    )
    assert code == EXIT_OK
    per_query = pq.read_table(output / "per_query").to_pylist()
    assert {(row[c.MEASURE], row[c.K]) for row in per_query} == ROWS
    assert len(per_query) == 2 * 2 * len(ROWS)  # runs x scored queries x measures
    # r2 on q1 ranks b (1) above a (2): P@1 = 1, recip_rank 1, map (1/1 + 2/2) / 2 = 1
    r2_q1 = {(row[c.MEASURE], row[c.K]): row for row in per_query if (row[c.RUN_ID], row[c.QUERY_ID]) == ("r2", "q1")}
    assert (r2_q1[("P", 1)][c.VALUE], r2_q1[("recip_rank", None)][c.VALUE], r2_q1[("map", None)][c.VALUE]) == (1.0, 1.0, 1.0)
    assert r2_q1[("ndcg_cut", 1)][c.VALUE] == r2_q1[("ndcg_cut", 1)][c.NDCG] == pytest.approx(0.5)
    assert r2_q1[("P", 2)][c.NDCG] is None and r2_q1[("P", 2)][c.NUM_RELEVANT_RETRIEVED] == 2
    summary = pq.read_table(output / "summary").to_pylist()
    assert {(row[c.RUN_ID], row[c.MEASURE], row[c.K]) for row in summary} == {(run, *key) for run in ("r1", "r2") for key in ROWS}
    comparison = pq.read_table(output / "comparison").to_pylist()
    assert {(row[c.MEASURE], row[c.K]) for row in comparison} == ROWS
    # one compared run: Holm leaves each (measure, k)'s p as it is
    assert all(row["p_value_t_holm"] == row["p_value_t"] for row in comparison)
    slices = pq.read_table(output / "slices").to_pylist()
    assert {(row[SLICE_VALUE], row[c.MEASURE], row[c.K]) for row in slices} >= {("en", "map", None), ("de", "P", 2)}
    printed = capsys.readouterr().out
    assert "P@1" in printed and "map" in printed and "recip_rank" in printed
    table = (output / "report").glob("*.md").__next__().read_text()
    assert "| run | ndcg@1 | ndcg@2 | ndcg | P@1 | P@2 | map | recip\\_rank | queries |" in table
    page = next((output / "report").glob("*.html")).read_text()
    assert "<th>P@2</th>" in page and "<th>recip_rank</th>" in page


def test_measures_from_the_config_file(inputs: tuple[str, str], tmp_path: Path) -> None:
    config = tmp_path / "eval.toml"
    config.write_text('[evaluation]\nk = [2]\nmeasures = ["P.1,2", "map"]\nrelevance_level = 2\nuncut = false\n')
    output = tmp_path / "out"
    assert run_job(*inputs, output, "--config", str(config)) == EXIT_OK
    rows = pq.read_table(output / "summary").to_pylist()
    assert {(row[c.MEASURE], row[c.K]) for row in rows} == {("ndcg_cut", 2), ("P", 1), ("P", 2), ("map", None)}
    assert {row[c.VARIANT] for row in rows} == {"gain=linear;relevance_level=2"}
    # at level 2 only a (q1) and d (q2) are relevant: r1 ranks a first on q1, d first on q2
    p1 = {row[c.RUN_ID]: row[c.VALUE] for row in rows if (row[c.MEASURE], row[c.K]) == ("P", 1)}
    assert p1 == {"r1": 1.0, "r2": 0.0}


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--measure", "ndcg_cut.10", "--measure", "precision@5"], "'precision@5'"),
        (["--measure", "P.0"], "'P.0'"),
        (["--measure", "map.5"], "'map.5'"),
        (["--relevance-level", "0"], "relevance_level"),
    ],
)
def test_a_bad_measure_is_a_usage_error_naming_it(inputs: tuple[str, str], tmp_path: Path, capsys, argv, named) -> None:
    output = tmp_path / "out"
    code = main(["--judgments", inputs[0], "--results", inputs[1], "--output", str(output), *argv])
    (line,) = error_lines(capsys.readouterr().err)
    assert code == EXIT_USAGE and named in line, line
    assert not output.exists()
