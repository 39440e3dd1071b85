"""trec_eval's own test files on the embedded engine, no JVM: every numeric line of `-m all_trec`
(per query and 'all', with -c and -l) and of out.test.meas_params, to trec_eval's 4 decimals.
tests/transforms/test_all_trec.py checks the same lines on the Spark engine."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from ndcg_spark import columns as c
from ndcg_spark import evaluate
from tests.trec_text import ALL_TREC_CASES, MEASURE_PARAMETERS, mismatches, printed, qrels_rows, run_rows, supported_lines


def _ours(conformance_dir: str, qrels: str, results: str, **options: object) -> dict[tuple[str, str], float]:
    judgments = pd.DataFrame(qrels_rows(os.path.join(conformance_dir, qrels)), columns=["query_id", "doc_id", "relevance"])
    ranked = pd.DataFrame(
        run_rows(os.path.join(conformance_dir, results)), columns=["run_id", "query_id", "doc_id", "score", "rank"]
    )
    report = evaluate(judgments, ranked, **options)
    rows = report.per_query.astype(object).where(report.per_query.notna(), None).to_dict("records")
    got = {(printed(row), row[c.QUERY_ID]): row[c.VALUE] for row in rows}
    got.update({(printed(row.asDict()), "all"): row[c.VALUE] for row in report.evaluation.summary})
    return got


@pytest.mark.parametrize(("expected_file", "qrels_file", "results_file", "complete", "level"), ALL_TREC_CASES)
def test_all_trec_matches_every_line(
    conformance_dir: str, expected_file: str, qrels_file: str, results_file: str, complete: bool, level: int
) -> None:
    expected = supported_lines(os.path.join(conformance_dir, expected_file))
    assert len(expected) > 300, "the expected file lost its lines"
    got = _ours(
        conformance_dir, qrels_file, results_file, ks=(10,), measures=["all_trec"], complete=complete, relevance_level=level
    )
    assert not mismatches(expected, got)


def test_measure_parameters_as_trec_evals_test_writes_them(conformance_dir: str) -> None:
    expected = supported_lines(os.path.join(conformance_dir, "out.test.meas_params"))
    got = _ours(conformance_dir, "qrels.test", "results.test", ks=(10,), uncut=False, measures=MEASURE_PARAMETERS)
    gained = _ours(conformance_dir, "qrels.test", "results.test", ks=(10,), gains={1: 3, 2: 9, 4: 4.5})
    got.update({("ndcg_1=3,2=9,4=4.5", query): value for (measure, query), value in gained.items() if measure == "ndcg"})
    assert len(expected) == 88
    assert not mismatches(expected, got)
