"""The NDCG variants (judged-only lists, a depth cut, custom gains, several results inputs)
against independent references: pytrec_eval for judged-only, trec_eval's own output for custom
gains, the plain-Python oracle for every combination."""

from __future__ import annotations

import itertools
import math
import os

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import InputError, evaluate
from ndcg_spark import columns as c
from ndcg_spark.scoring.summary import summarize
from tests import oracle, trec_text
from tests.conftest import rows_frame, scored_per_query
from tests.references import generated, pytrec_ndcg
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL

# The example: b judged below 0, x unjudged; -J condenses b, x, c, d, a to c, d, a.
EXAMPLE_JUDGMENTS = [("q", "a", 2), ("q", "b", -1), ("q", "c", 0), ("q", "d", 1)]
EXAMPLE_RANKING = ["b", "x", "c", "d", "a"]


def _example(spark: SparkSession) -> tuple[DataFrame, DataFrame]:
    results = rows_frame(spark, [("run", "q", doc, float(5 - i), None) for i, doc in enumerate(EXAMPLE_RANKING)], RESULTS_DDL)
    return results, rows_frame(spark, EXAMPLE_JUDGMENTS, JUDGMENTS_DDL)


def _by_k(per_query: DataFrame) -> dict[int | None, tuple]:
    return {row[c.K]: row for row in per_query.collect()}


def test_judged_only_condenses_the_list(spark: SparkSession) -> None:
    results, judgments = _example(spark)
    full = _by_k(scored_per_query(results, judgments, ks=[3]))
    condensed = _by_k(scored_per_query(results, judgments, ks=[3], judged_only=True))
    assert full[3][c.NDCG] == 0.0
    want = (1 / math.log2(3) + 2 / math.log2(4)) / (2 + 1 / math.log2(3))
    assert condensed[3][c.NDCG] == pytest.approx(want, abs=1e-12)
    assert round(condensed[3][c.NDCG], 4) == 0.6199
    # c, d, a are left: three retrieved, every one judged.
    assert (condensed[3][c.NUM_RETRIEVED], condensed[3][c.JUDGED_AT_K]) == (3, 1.0)
    assert condensed[3][c.VARIANT] == "gain=linear;judged_only"


def test_judged_only_list_with_nothing_judged_scores_zero_and_counts(spark: SparkSession) -> None:
    results = rows_frame(spark, [("run", "q", "x", 1.0, None), ("run", "q", "y", 0.5, None)], RESULTS_DDL)
    judgments = rows_frame(spark, [("q", "a", 1)], JUDGMENTS_DDL)
    rows = scored_per_query(results, judgments, ks=[5], judged_only=True).collect()
    assert [(row[c.NDCG], row[c.NUM_RETRIEVED], row[c.JUDGED_AT_K]) for row in rows] == [(0.0, 0, None)] * 2


def test_max_depth_cuts_the_list_after_ordering_and_leaves_the_ideal(spark: SparkSession) -> None:
    results, judgments = _example(spark)
    # Cut at 4: b, x, c, d; a (grade 2) is gone, so ndcg@5 reads the cut list: d at 4 only.
    rows = _by_k(scored_per_query(results, judgments, ks=[5], max_depth=4))
    ideal = 2 + 1 / math.log2(3)
    assert rows[5][c.DCG] == pytest.approx(1 / math.log2(5), abs=1e-12)
    assert rows[5][c.IDCG] == pytest.approx(ideal, abs=1e-12)
    assert rows[5][c.NUM_RETRIEVED] == 4
    # trec_eval cuts first, then condenses: the top 3 (b, x, c) keep c alone.
    both = _by_k(scored_per_query(results, judgments, ks=[3], max_depth=3, judged_only=True))
    assert (both[3][c.NDCG], both[3][c.NUM_RETRIEVED]) == (0.0, 1)


def test_custom_gains_order_the_ideal_by_gain(spark: SparkSession) -> None:
    results, judgments = _example(spark)
    # Non-monotone: grade 1 gains more than grade 2; grade 0 gains too; fractional.
    table = ((0, 0.25), (1, 5.0), (2, 0.5))
    row = _by_k(scored_per_query(results, judgments, ks=[3], gains=table))[None]
    ranked = [0.0, 0.0, 0.25, 5.0, 0.5]  # b (-1), x (unjudged), c, d, a
    ideal = [5.0, 0.5, 0.25]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(ranked))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    assert (row[c.DCG], row[c.IDCG]) == pytest.approx((dcg, idcg), abs=1e-12)
    assert row[c.VARIANT] == "gain=linear;gains=0=0.25,1=5,2=0.5"


def test_custom_gains_match_trec_eval(spark: SparkSession, conformance_dir: str) -> None:
    """trec_eval -m ndcg.1=3,2=9,4=4.5 on its own test data (its gains apply to ndcg only)."""
    measure = "ndcg_1=3,2=9,4=4.5"
    expected = trec_text.expected(os.path.join(conformance_dir, "out.test.meas_params"), {measure})
    assert len(expected) == 4, "the expected file lost its custom-gain lines"
    per_query = scored_per_query(
        trec_text.run(spark, os.path.join(conformance_dir, "results.test")),
        trec_text.qrels(spark, os.path.join(conformance_dir, "qrels.test")),
        ks=[10],
        gains=((1, 3.0), (2, 9.0), (4, 4.5)),
    ).filter(F.col(c.MEASURE) == c.MEASURE_UNCUT)
    got = {(measure, row[c.QUERY_ID]): row[c.NDCG] for row in per_query.collect()}
    got[(measure, "all")] = summarize(per_query).first()[c.NDCG]
    assert {key: round(value, 4) for key, value in got.items()} == expected


VARIANTS = [
    # gain, gains table, judged_only, max_depth, complete
    ("linear", None, True, None, False),
    ("exponential", None, True, 4, True),
    ("linear", None, False, 3, False),
    ("linear", {0: 0.5, 1: 3.0, 2: 1.0, 3: 7.25}, False, None, True),
    ("exponential", {3: 2.0}, True, 6, False),
]


@pytest.mark.parametrize(("kind", "table", "judged_only", "max_depth", "complete"), VARIANTS)
def test_variants_equal_the_oracle(
    spark: SparkSession, kind: str, table: dict | None, judged_only: bool, max_depth: int | None, complete: bool
) -> None:
    results, judgments = generated(seed=11)
    ks = [1, 3, 5, 20]
    per_query = scored_per_query(
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        ks=ks,
        gain=kind,
        complete=complete,
        gains=tuple(sorted((table or {}).items())),
        judged_only=judged_only,
        max_depth=max_depth,
    )
    got = {(row[c.RUN_ID], row[c.QUERY_ID], row[c.K]): row[c.NDCG] for row in per_query.collect()}
    want = oracle.ndcg(results, judgments, ks, kind, complete=complete, table=table, judged_only=judged_only, max_depth=max_depth)
    assert set(got) == set(want)
    assert max(abs(got[key] - want[key]) for key in want) < 1e-9
    assert any(0 < value < 1 for value in want.values())


@pytest.mark.parametrize("ks", [[1, 3, 5, 20]])
def test_judged_only_equals_pytrec_eval(spark: SparkSession, ks: list[int]) -> None:
    results, judgments = generated(seed=5)
    per_query = scored_per_query(
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        ks=ks,
        judged_only=True,
    )
    got = {(row[c.RUN_ID], row[c.QUERY_ID], row[c.K]): row[c.NDCG] for row in per_query.collect()}
    want = pytrec_ndcg(results, judgments, ks, judged_only=True)
    assert set(got) == set(want)
    assert got == pytest.approx(want, abs=1e-9)


def test_several_results_inputs_score_as_one(spark: SparkSession) -> None:
    results, judgments = generated(seed=7)
    frame = rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL)
    judged = rows_frame(spark, judgments, JUDGMENTS_DDL)
    one = evaluate(judged, frame, ks=(3,)).per_query
    # r1 without its run_id column is named by its key; r2 keeps the run_id it carries.
    several = evaluate(
        judged,
        {"r1": frame.filter(F.col(c.RUN_ID) == "r1").drop(c.RUN_ID), "other": frame.filter(F.col(c.RUN_ID) == "r2")},
        ks=(3,),
    ).per_query
    key = [c.RUN_ID, c.QUERY_ID, c.MEASURE, c.K]
    assert sorted(one.collect(), key=lambda r: tuple(str(r[k]) for k in key)) == sorted(
        several.collect(), key=lambda r: tuple(str(r[k]) for k in key)
    )


def test_two_inputs_naming_one_run_are_refused(spark: SparkSession) -> None:
    results, judgments = generated(seed=7)
    frame = rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL)
    judged = rows_frame(spark, judgments, JUDGMENTS_DDL)
    # Both carry run r1, on different queries: no document is a copy, yet the run is one name
    # for two systems.
    first, second = frame.filter(F.col(c.QUERY_ID) < "q5"), frame.filter(F.col(c.QUERY_ID) >= "q5")
    with pytest.raises(InputError, match="run 'r1' comes from two inputs, a=DataFrame and b=DataFrame"):
        evaluate(judged, {"a": first, "b": second}, ks=(3,))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("1=3,2", "gains entry '2' must be GRADE=GAIN"),
        ("1=-3", "gains entry '1=-3': the gain must be a finite number >= 0"),
        ("1=x", "gains entry '1=x': the gain must be a finite number >= 0"),
        ("1.5=3", "gains entry '1.5=3': grade '1.5' is not a whole number"),
        ("-1=2", "gains entry '-1=2': negative grades always gain 0"),
        ("1=3,1=4", "gains entry '1=4': grade 1 is given more than once"),
        ("2=inf", "gains entry '2=inf': the gain must be a finite number"),
    ],
)
def test_bad_gains_are_refused_naming_the_entry(spark: SparkSession, table: str, message: str) -> None:
    results, judgments = _example(spark)
    from ndcg_spark import ConfigError

    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate(judgments, results, gains=table)


def test_every_combination_names_its_variant() -> None:
    from ndcg_spark.options import describe_variant

    names = {
        describe_variant(kind, table, judged_only, depth)
        for kind, table, judged_only, depth in itertools.product(
            ("linear", "exponential"), ((), ((2, 3.0),)), (False, True), (None, 10)
        )
    }
    assert len(names) == 16
