"""ir_measures' parameters in parentheses, each the evaluation's option of the same meaning:
nDCG(dcg=exp-log2) is --gain exponential, nDCG(gains={...}) --gains, nDCG(judged_only=True)
--judged-only, P(rel=2) --relevance-level 2. Checked against hand-computed values and
pytrec_eval on the embedded engine; contradictions refused."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ndcg_spark import evaluate
from ndcg_spark.errors import ConfigError
from ndcg_spark.options import Options
from tests.references import generated, pytrec_values

WORKED = [3, 2, 3, 0, 1]  # grades in rank order


def _worked(measures: list[str]) -> dict[tuple[str, int | None], float]:
    judgments = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(5)], "relevance": WORKED})
    results = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(5)], "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    report = evaluate(judgments, results, ks=(5,), measures=measures)
    return {(row["measure"], row["k"]): row["value"] for row in report.per_query.to_dict("records")}


def _dcg(gains: list[float]) -> float:
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def test_exp_log2_is_the_exponential_gain() -> None:
    exponential = [2.0**grade - 1 for grade in WORKED]
    want = _dcg(exponential) / _dcg(sorted(exponential, reverse=True))  # 0.9470...
    assert _worked(["nDCG(dcg=exp-log2)@5"])[("ndcg_cut", 5)] == pytest.approx(want, rel=1e-15)
    assert Options.of({"measures": ["nDCG(dcg=exp-log2)@5"]}).variant == "gain=exponential"


def test_gains_is_a_gain_per_grade() -> None:
    """{0:0,1:1,2:3,3:7} is 2^g - 1 on grades 0..3: the same values as exp-log2; another table differs."""
    same = _worked(["nDCG(gains={0:0,1:1,2:3,3:7})@5"])[("ndcg_cut", 5)]
    assert same == _worked(["nDCG(dcg=exp-log2)@5"])[("ndcg_cut", 5)]
    table = {0: 0.0, 1: 0.5, 2: 2.0, 3: 2.5}
    gains = [table[grade] for grade in WORKED]
    other = _worked(["nDCG(gains={0:0, 1:0.5, 2:2, 3:2.5})@5"])[("ndcg_cut", 5)]
    assert other == pytest.approx(_dcg(gains) / _dcg(sorted(gains, reverse=True)), rel=1e-15)


def test_judged_only_and_rel_equal_pytrec_evals_flags() -> None:
    results, judgments = generated(13)
    theirs = pytrec_values(results, judgments, [("ndcg_cut", 5), ("P", 5)], level=2, judged_only=True)
    frames = (
        pd.DataFrame(judgments, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(results, columns=["run_id", "query_id", "doc_id", "score"]),
    )
    report = evaluate(*frames, ks=(5,), measures=["nDCG(judged_only=True)@5", "P(rel=2)@5"])
    ours = {(r["run_id"], r["query_id"], r["measure"], r["k"]): r["value"] for r in report.per_query.to_dict("records")}
    assert len(theirs) > 20
    assert {key: value for key, value in theirs.items() if ours[key] != pytest.approx(value, abs=1e-12)} == {}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"measures": ["P(rel=2)@5"], "relevance_level": 3},
            r"^measure 'P\(rel=2\)@5' asks for relevance_level 2, but relevance_level is 3",
        ),
        ({"measures": ["nDCG(dcg=exp-log2)@5", "P(rel=2)@5", "R(rel=3)@5"]}, r"ask for two values of relevance_level"),
        ({"measures": ["nDCG(judged_only=True)@5"], "judged_only": False}, None),  # the default: set
    ],
)
def test_contradictions_are_refused(options: dict, message: str | None) -> None:
    if message is None:
        assert Options.of(options).judged_only is True
        return
    with pytest.raises(ConfigError, match=message):
        Options.of(options)


def test_trec_evals_names_follow_the_options_beside_them() -> None:
    """P and map (trec_eval's names) are scored at the level P(rel=2)@5 sets; P@10, ir_measures'
    P without the parameter, would be scored another way than ir_measures does: refused."""
    options = Options.of({"measures": ["P(rel=2)@5", "P", "map"]})
    assert options.relevance_level == 2 and len(options.measures) > 3
    with pytest.raises(ConfigError, match=r"^measures 'P\(rel=2\)@5' and 'P@10' ask for P two ways"):
        Options.of({"measures": ["P(rel=2)@5", "P@10"]})
