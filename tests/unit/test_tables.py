"""The table to paste: Markdown and LaTeX of the summary and the comparison, from a hand-built
evaluation (no Spark)."""

from __future__ import annotations

from dataclasses import replace

from pyspark.sql import Row

from ndcg_spark.comparison.rows import ComparisonRow
from ndcg_spark.evaluation import Evaluation, RunCounts
from ndcg_spark.report.formatting import format_table
from ndcg_spark.report.tables import latex, latex_escape, markdown

VARIANT = "gain=linear;judged_only"


def _summary(run: str, k: int | None, ndcg: float, measure: str | None = None) -> Row:
    name = measure or ("ndcg" if k is None else "ndcg_cut")
    return Row(
        run_id=run,
        measure=name,
        k=k,
        ndcg=ndcg if name in ("ndcg", "ndcg_cut") else None,
        num_queries=3,
        judged_at_k=1.0,
        variant=VARIANT,
        value=ndcg,
    )


def _evaluation(comparison: list[ComparisonRow]) -> Evaluation:
    return Evaluation(
        summary=[
            _summary("base", 10, 0.5),
            _summary("base", None, 0.6),
            _summary("new_1", 10, 0.7),
            _summary("new_1", None, 0.55),
        ],
        runs=[RunCounts("base", 3, 0, 0), RunCounts("new_1", 3, 0, 0)],
        judgment_rows=10,
        result_rows=20,
        judged_queries=3,
        duplicate_judgments_dropped=0,
        duplicate_results_dropped=0,
        complete=False,
        comparison=comparison,
    )


def _row(k: int | None, p_holm: float) -> ComparisonRow:
    return ComparisonRow(
        baseline="base",
        run_id="new_1",
        measure="ndcg_cut" if k else "ndcg",
        k=k,
        num_queries=3,
        ndcg_baseline=0.5,
        ndcg_run=0.7,
        mean_difference=0.2,
        p_value_t_holm=0.5,
        p_value_randomization_holm=p_holm,
        ci_low=0.1,
        ci_high=0.3,
        permutations=1000,
        seed=42,
    )


def test_markdown_marks_the_best_value_and_significance() -> None:
    text = markdown(_evaluation([_row(10, 0.01), _row(None, 0.2)]), "2026-12-01")
    lines = text.splitlines()
    assert lines[2:6] == [
        "| run | ndcg@10 | ndcg | queries |",
        "| :--- | ---: | ---: | ---: |",
        "| base (baseline) | 0.5000 | **0.6000** | 3 |",
        "| new\\_1 | **0.7000†** | 0.5500 | 3 |",
    ]
    assert "| new\\_1 | ndcg@10 | 0.5000 | 0.7000 | +0.2000† | [+0.1000, +0.3000] | 0.0100 | 0.5000 |" in lines
    assert "| new\\_1 | ndcg | 0.5000 | 0.7000 | +0.2000 | [+0.1000, +0.3000] | 0.2000 | 0.5000 |" in lines
    assert "scored with gain=linear;judged\\_only" in text
    assert "† differs from the baseline base with p < 0.05 after Holm's correction" in text


def test_the_dagger_is_explained_only_where_a_cell_has_one() -> None:
    text = markdown(_evaluation([_row(10, 0.2), _row(None, 0.3)]), "2026-12-01")
    assert "†" not in text
    assert "No run differs from the baseline base with p < 0.05 after Holm's correction" in text


def test_markdown_cells_are_literal_text_and_the_baseline_comes_first() -> None:
    """A run named with `|`, a newline or HTML stays one cell of plain text; the baseline heads
    the table even where it sorts last."""
    hostile = "a|b\n<script>alert(1)</script>"
    evaluation = _evaluation([_row(10, 0.01)])
    evaluation = replace(
        evaluation,
        summary=[_summary(hostile, 10, 0.4), *evaluation.summary],
        runs=[RunCounts(hostile, 3, 0, 0), RunCounts("new_1", 3, 0, 0), RunCounts("base", 3, 0, 0)],
    )
    rows = [line for line in markdown(evaluation, "t|1").splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[1].startswith("| base (baseline) |")
    assert "| a\\|b &lt;script&gt;alert(1)&lt;/script&gt; | 0.4000 |" in rows[2]
    assert all(row.replace("\\|", "").count("|") == rows[0].count("|") for row in rows[:4])
    assert "<script>" not in markdown(evaluation, "<script>")


def test_latex_tabular_with_bold_best_and_dagger() -> None:
    text = latex(_evaluation([_row(10, 0.01), _row(None, 0.2)]), "2026-12-01")
    assert r"\begin{tabular}{lrrr}" in text and r"\toprule" in text and r"\bottomrule" in text
    assert r"new\_1 & \textbf{0.7000}$^\dagger$ & 0.5500 & 3 \\" in text
    assert r"base (baseline) & 0.5000 & \textbf{0.6000} & 3 \\" in text
    assert latex_escape("a_b&c%") == r"a\_b\&c\%"


def test_without_a_baseline_only_the_summary() -> None:
    text = markdown(_evaluation([]), "latest")
    assert "Against the baseline" not in text and "†" not in text.split("Bold")[0]
    assert "| base | 0.5000 | **0.6000** | 3 |" in text


def test_several_measures_each_a_column_and_each_compared() -> None:
    """P@10 and map beside NDCG: a column each, after NDCG's, each marked on its own comparison
    row (P@10 significant, map not)."""
    evaluation = _evaluation([_row(10, 0.2), _row(None, 0.2)])
    extra = [
        _summary("base", 10, 0.3, "P"),
        _summary("new_1", 10, 0.4, "P"),
        _summary("base", None, 0.25, "map"),
        _summary("new_1", None, 0.2, "map"),
    ]
    comparison = [*evaluation.comparison, replace(_row(10, 0.01), measure="P"), replace(_row(None, 0.3), measure="map")]
    lines = markdown(replace(evaluation, summary=[*evaluation.summary, *extra], comparison=comparison), "t").splitlines()
    assert lines[2] == "| run | ndcg@10 | ndcg | P@10 | map | queries |"
    assert lines[4] == "| base (baseline) | 0.5000 | **0.6000** | 0.3000 | **0.2500** | 3 |"
    assert lines[5] == "| new\\_1 | **0.7000** | 0.5500 | **0.4000†** | 0.2000 | 3 |"
    assert "| new\\_1 | P@10 | 0.5000 | 0.7000 | +0.2000† | [+0.1000, +0.3000] | 0.0100 | 0.5000 |" in lines
    assert "| new\\_1 | map | 0.5000 | 0.7000 | +0.2000 | [+0.1000, +0.3000] | 0.3000 | 0.5000 |" in lines


def test_many_measures_print_a_line_per_measure_in_trec_evals_order() -> None:
    """all_trec asks for about 100 measures: a line per measure, a column per run, in trec_eval's
    order (num_ret before map before P), in the console, in Markdown and on no wider a table."""
    measures = [("P", k) for k in (5, 10, 15, 20, 30, 100)] + [("map", None), ("num_ret", None), ("recip_rank", None)]
    measures += [("ndcg_cut", k) for k in (5, 10, 20, 100)] + [("iprec_at_recall_0.10", None)]
    summary = [_summary(run, k, 1500.0 if name == "num_ret" else 0.5, name) for run in ("base", "new_1") for name, k in measures]
    evaluation = replace(_evaluation([]), summary=summary)
    lines = format_table(evaluation).splitlines()
    assert lines[0].split() == ["measure", "base", "new_1"]
    names = [line.split()[0] for line in lines[1 : len(measures) + 1]]
    assert names == ["num_ret", "map", "recip_rank", "iprec_at_recall_0.10", "P@5", "P@10", "P@15", "P@20", "P@30", "P@100"] + [
        "ndcg@5",
        "ndcg@10",
        "ndcg@20",
        "ndcg@100",
    ]
    assert lines[len(measures) + 1].split() == ["queries", "3", "3"]
    table = markdown(evaluation, "t").splitlines()
    assert "| measure | base | new\\_1 |" in table and "| num\\_ret | **1500** | **1500** |" in table  # a count, whole
