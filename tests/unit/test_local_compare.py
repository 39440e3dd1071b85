"""compare() and evaluate(baseline=...) of tables in memory, on the embedded engine, in
milliseconds: the t-test and the exact randomization test against scipy's
(tests/transforms/test_compare.py proves the rows equal the Spark engine's to the bit)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ndcg_spark import compare, evaluate
from ndcg_spark.errors import ConfigError, InputError


def _per_query(values: dict[str, np.ndarray]) -> pd.DataFrame:
    rows = [(run, f"q{i:03d}", "ndcg_cut", 10, float(value)) for run, array in values.items() for i, value in enumerate(array)]
    return pd.DataFrame(rows, columns=["run_id", "query_id", "measure", "k", "value"])


def test_the_t_test_and_the_exact_randomization_test_equal_scipys() -> None:
    rng = np.random.default_rng(5)
    base = rng.random(9)
    run = np.clip(base + rng.normal(0.1, 0.15, 9), 0, 1)
    (row,) = compare(_per_query({"base": base, "run": run}), "base", permutations=1000).to_dict("records")
    assert (row["baseline"], row["run_id"], row["num_queries"]) == ("base", "run", 9)
    assert row["ndcg_run"] == pytest.approx(run.mean(), rel=1e-12)
    assert row["p_value_t"] == pytest.approx(stats.ttest_rel(run, base).pvalue, rel=1e-8)
    exact = stats.permutation_test(
        (run, base), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples", vectorized=True, n_resamples=np.inf
    )
    assert row["randomization_exact"] and row["permutations"] == 512
    assert row["p_value_randomization"] == exact.pvalue
    assert row["ci_low"] < (run - base).mean() < row["ci_high"]


def test_evaluate_of_pandas_compares_with_the_baseline() -> None:
    judgments = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "a", "b"], "relevance": [2, 0, 1, 1]})
    results = pd.DataFrame(
        {
            "run_id": ["good"] * 4 + ["bad"] * 4,
            "query_id": ["q1", "q1", "q2", "q2"] * 2,
            "doc_id": ["a", "b", "a", "b", "b", "a", "b", "a"],
            "score": [2.0, 1.0, 2.0, 1.0] * 2,
        }
    )
    report = evaluate(judgments, results, ks=(1,), baseline="good")
    rows = report.comparison.set_index(["measure", "k"], drop=False).to_dict("index")
    assert list(report.comparison["run_id"]) == ["bad", "bad"]
    assert rows[("ndcg_cut", 1)]["mean_difference"] == pytest.approx(-0.5)  # q1: 1 -> 0, q2: 1 -> 1
    assert (rows[("ndcg_cut", 1)]["wins"], rows[("ndcg_cut", 1)]["losses"]) == (0, 1)


def test_refusals_name_the_problem() -> None:
    per_query = _per_query({"base": np.array([0.5]), "run": np.array([0.25])})
    with pytest.raises(ConfigError, match=r"^baseline run 'nope' is not in the results \(runs: base, run\)$"):
        compare(per_query, "nope")
    with pytest.raises(InputError, match=r"^per_query DataFrame: missing column\(s\) 'measure'"):
        compare(per_query.drop(columns=["measure"]), "base")
    with pytest.raises(ConfigError, match="per_query must be a Spark, pandas or Polars DataFrame"):
        compare([("base", "q", "ndcg", None, 0.5)], "base")
