"""The embedded engine's fast paths give what its general ones give: the score sort against Arrow's
three-key sort, the lookup of judgments against the binary search, the running sums of lists laid
end to end against the gathered matrices, and the checks' codes reused against codes made anew."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from ndcg_spark.arrays import coded, merged, shared_codes
from ndcg_spark.checks.tables import checked
from ndcg_spark.options import Options
from ndcg_spark.scoring.embedded import lists, per_query
from ndcg_spark.scoring.embedded.per_query import score
from ndcg_spark.scoring.plan import ScoringPlan
from tests.references import generated


def _tables(seed: int) -> tuple[pa.Table, pa.Table]:
    """tests.references.generated's inputs (many tied scores, unjudged documents) as Arrow tables."""
    results, judgments = generated(seed)
    judged = pa.table(dict(zip(["query_id", "doc_id", "relevance"], map(list, zip(*judgments, strict=True)), strict=True)))
    retrieved = pa.table(dict(zip(["run_id", "query_id", "doc_id", "score"], map(list, zip(*results, strict=True)), strict=True)))
    return judged, retrieved


def _arrow_order(group: np.ndarray, score_: np.ndarray, doc: np.ndarray) -> np.ndarray:
    keys = pa.table({"group": group, "score": score_, "doc": doc})
    sort_keys = [("group", "ascending"), ("score", "descending"), ("doc", "descending")]
    return pc.sort_indices(keys, sort_keys=sort_keys).to_numpy()


@pytest.mark.parametrize(
    ("rows", "groups", "levels"),
    [
        (5_000, 40, 10**9),  # no ties: the two sorts alone
        (20_000, 3_000, 40),  # some ties, in doc order apart
        (50_000, 40_000, 400),  # groups past one radix digit: two passes
    ],
)
def test_the_score_sort_is_arrows_three_key_sort(rows: int, groups: int, levels: int) -> None:
    rng = np.random.default_rng(rows)
    group = rng.integers(0, groups, rows)
    score_ = rng.integers(0, levels, rows) * 0.5 - 1.0
    score_[rng.random(rows) < 0.01] = -0.0  # equal to 0.0, as Arrow and Spark compare it
    doc = rng.permutation(rows)
    order = lists._by_score(group, score_, doc)
    assert order is not None
    assert np.array_equal(order, _arrow_order(group, score_, doc))


def test_the_score_sort_leaves_many_ties_and_huge_keys_to_arrow() -> None:
    rng = np.random.default_rng(0)
    group, doc = rng.integers(0, 5, 1_000), rng.permutation(1_000)
    assert lists._by_score(group, np.zeros(1_000), doc) is None
    assert lists._by_score(np.array([1 << 40, 0]), np.array([1.0, 2.0]), np.array([0, 1])) is None


def test_running_sums_of_lists_end_to_end_equal_the_gathered_ones() -> None:
    rng = np.random.default_rng(1)
    values = rng.random(600) / 7.0
    same = lists.running(values, np.arange(6, dtype=np.int64) * 100, np.full(6, 100, dtype=np.int64))
    uneven_lengths = np.array([100, 99, 101, 100, 100, 100], dtype=np.int64)
    uneven = lists.running(values, lists.offsets(uneven_lengths), uneven_lengths)
    expected = np.concatenate([np.add.accumulate(values[i * 100 : (i + 1) * 100]) for i in range(6)])
    assert same.tobytes() == expected.tobytes()
    assert uneven[:100].tobytes() == expected[:100].tobytes()
    assert uneven[300:].tobytes() == expected[300:].tobytes()


def test_merged_codes_are_shared_codes() -> None:
    left = pa.chunked_array([pa.array([10, 9, 100, 9, 2])])
    right = pa.chunked_array([pa.array(["9", "11", "x", "2"])])
    expected = shared_codes(left, right)
    got = merged(coded(left), coded(right))
    assert [list(part) for part in got] == [list(part) for part in expected]
    kept = np.array([0, 2], dtype=np.int64)
    assert list(merged(coded(left).take(kept), coded(right))[0]) == list(expected[0][kept])


@pytest.mark.parametrize("seed", [3, 4])
def test_judgments_looked_up_or_searched_alike(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    judgments, results = _tables(seed)
    inputs = checked(judgments, results, Options())
    coded_judgments, coded_results = per_query.coded(inputs.judgments, inputs.results)
    looked_up = per_query.judgment_of(coded_judgments, coded_results)
    monkeypatch.setattr(per_query, "_LOOKUP_SLOTS_PER_ROW", 0)
    searched = per_query.judgment_of(coded_judgments, coded_results)
    assert (looked_up >= 0).any() and (looked_up < 0).any()
    assert np.array_equal(looked_up, searched)
    none = per_query.judgment_of(coded_judgments.slice(0, 0), coded_results)
    assert (none == -1).all()


@pytest.mark.parametrize("options", [Options(), Options(judged_only=True, max_depth=3, complete=True)])
def test_the_checks_codes_score_as_codes_made_anew(options: Options) -> None:
    judgments, results = _tables(5)
    inputs = checked(judgments, results, options)
    plan = ScoringPlan.of(options)
    reused = score(inputs.judgments, inputs.results, plan, inputs.codes).per_query
    anew = score(inputs.judgments, inputs.results, plan).per_query
    assert reused.equals(anew)
