"""Every ir_measures name --measure accepts gives ir_measures' own value on the embedded engine,
per query, to 1e-9 (tests/transforms/test_ir_measures.py checks the Spark engine's)."""

from __future__ import annotations

import pytest

from ndcg_spark import columns as c
from ndcg_spark.options import Options
from ndcg_spark.scoring.embedded.per_query import per_query
from ndcg_spark.scoring.plan import ScoringPlan
from tests.references import IR_MEASURES_NAMES, OWN_PROVIDER, Judgments, Results, by_name, generated, ir_measures_values, untied
from tests.unit.test_embedded import judgments_table, results_table


def _ours(results: Results, judgments: Judgments, names: list[str]) -> dict[tuple[str, str, str], float]:
    plan = ScoringPlan.of(Options.of({"ks": (5,), "measures": names}))
    rows = {
        (row[c.RUN_ID], row[c.QUERY_ID], row[c.MEASURE], row[c.K]): row[c.VALUE]
        for row in per_query(judgments_table(judgments), results_table(results), plan).to_pylist()
    }
    return by_name(rows, names)


@pytest.mark.parametrize(
    ("names", "ties"), [(IR_MEASURES_NAMES, True), (OWN_PROVIDER, False)], ids=["pytrec_eval-names", "own-provider"]
)
def test_ir_measures_names_give_ir_measures_values(names: list[str], ties: bool) -> None:
    results, judgments = generated(seed=31)
    if not ties:
        results = untied(results)
    ours, theirs = _ours(results, judgments, names), ir_measures_values(results, judgments, names)
    assert set(theirs) <= set(ours) and len(theirs) > 10 * len(names)
    differ = {key: (ours[key], value) for key, value in theirs.items() if abs(ours[key] - value) > 1e-9}
    assert not differ
