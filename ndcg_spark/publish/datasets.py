"""The datasets a run publishes, each with the number of rows the evaluation computed for it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from pyspark.sql import DataFrame, Row

from ndcg_spark import columns as c
from ndcg_spark.evaluation import Evaluation
from ndcg_spark.io.layout import COMPARISON_DIR, GATE_DIR, PER_QUERY_DIR, SLICES_DIR, SUMMARY_DIR, TREC_EVAL_DIR
from ndcg_spark.measures import printed_per_query
from ndcg_spark.publish.atomic import Dataset
from ndcg_spark.report.result import Report
from ndcg_spark.report.trec_eval import report_lines, sorted_lines
from ndcg_spark.report.trec_eval_lines import printed_lines


@dataclass(frozen=True)
class TrecEvalText:
    """What trec_eval's printed report holds beyond the per-query rows: the runid line, and each
    list's relstring (run_id, query_id, relstring), when the measures asked for them."""

    runid: bool = False
    # Spark's rows (run_id, query_id, relstring), or the embedded engine's {(run, query): text}.
    relstrings: DataFrame | Mapping[tuple[str, str], str] | None = None


def report_datasets(
    report: Report, trec_eval: TrecEvalText | None, gate_rows: int | None = None, *, per_query_written: bool = False
) -> list[Dataset]:
    """Every dataset of the report, in publication order, with the rows the evaluation counted
    for it (`gate_rows`: the gate's verdict's). The small ones hold the rows already collected:
    exactly what was printed. per_query_written: per_query is staged already (the job writes it
    before its summary, which reads it)."""
    evaluation = report.evaluation
    datasets = [
        Dataset(PER_QUERY_DIR, report.per_query, evaluation.per_query_rows, written=per_query_written),
        Dataset(SUMMARY_DIR, report.summary, len(evaluation.summary)),
    ]
    if report.comparison is not None:
        datasets.append(Dataset(COMPARISON_DIR, report.comparison, len(evaluation.comparison)))
    if report.slices is not None:
        datasets.append(Dataset(SLICES_DIR, report.slices, len(evaluation.slices)))
    if report.gate is not None and gate_rows is not None:
        datasets.append(Dataset(GATE_DIR, report.gate, gate_rows))
    if trec_eval is not None:
        if isinstance(report.per_query, DataFrame):
            datasets += _trec_datasets(report.per_query, report.summary, evaluation, trec_eval)
        else:
            datasets += _trec_datasets_local(report.per_query, evaluation, trec_eval)
    return datasets


def _trec_dataset(run: str, lines: DataFrame | list[str], rows: list[Row], text: TrecEvalText) -> Dataset:
    """One run's text: per query, the measures trec_eval prints per query (and relstring); then
    every 'all' line (and runid)."""
    queries = max((row[c.NUM_QUERIES] for row in rows), default=0)
    expected = sum(row[c.NUM_QUERIES] for row in rows if printed_per_query(row[c.MEASURE])) + len(rows)
    expected += (queries if text.relstrings is not None else 0) + (1 if text.runid else 0)
    return Dataset(f"{TREC_EVAL_DIR}/{c.RUN_ID}={quote(run, safe='')}", lines, expected, text=True)


def _trec_datasets_local(per_query: Any, evaluation: Evaluation, text: TrecEvalText) -> list[Dataset]:
    """_trec_datasets of the embedded engine's rows: the same lines, printed in this process."""
    by_run: dict[str, list[dict[str, Any]]] = {}
    for row in per_query.select([c.RUN_ID, c.QUERY_ID, c.MEASURE, c.K, c.VALUE]).to_pylist():
        by_run.setdefault(row[c.RUN_ID], []).append(row)
    relstrings = text.relstrings if isinstance(text.relstrings, Mapping) else None
    datasets = []
    for run in evaluation.run_ids:
        rows = [row for row in evaluation.summary if row[c.RUN_ID] == run]
        mine = by_run.get(run, [])
        texts = None
        if relstrings is not None:
            texts = {query: relstrings.get((run, query), "") for query in sorted({row[c.QUERY_ID] for row in mine})}
        lines = printed_lines(mine, [row.asDict() for row in rows], texts, run_id=run if text.runid else None)
        datasets.append(_trec_dataset(run, lines, rows, text))
    return datasets


def _trec_datasets(per_query: DataFrame, summary: DataFrame, evaluation: Evaluation, text: TrecEvalText) -> list[Dataset]:
    """One trec_eval -q style text per run: its per-query lines and its 'all' lines."""
    runids = summary.select(c.RUN_ID).distinct() if text.runid else None
    assert not isinstance(text.relstrings, Mapping)
    lines = report_lines(per_query, summary, text.relstrings, runids=runids)
    datasets = []
    for run in evaluation.run_ids:
        rows = [row for row in evaluation.summary if row[c.RUN_ID] == run]
        datasets.append(_trec_dataset(run, sorted_lines(lines, run), rows, text))
    return datasets
