"""The measures beside NDCG against pytrec_eval (trec_eval's own code) on generated data with every
hard case: ties, negative grades, an all-zero query, unjudged documents, k beyond the list; alone
and with -c, -J, -M and a relevance level of 2, per query and on the mean, to 1e-9."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.api import evaluate
from ndcg_spark.measures import SUM, combine_of, parse_measures
from ndcg_spark.scoring.summary import summarize
from tests import oracle
from tests.conftest import rows_frame, scored_per_query
from tests.references import Judgments, Results, generated, pytrec_evaluated, pytrec_values
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL

KS = (1, 3, 5, 20)
MEASURES = [
    *[(name, k) for name in ("P", "recall", "map_cut", "ndcg_cut") for k in KS],
    ("success", 1),
    ("success", 5),
    ("map", None),
    ("recip_rank", None),
    ("Rprec", None),
    ("bpref", None),
    ("ndcg", None),
]
ASKED = [name if k is None else f"{name}.{k}" for name, k in MEASURES]


def _cut(results: Results, depth: int | None) -> Results:
    """Each list's first `depth` documents in trec_eval's order (score, then doc_id, descending):
    trec_eval -M, as pytrec_eval has no such option."""
    if depth is None:
        return results
    lists: dict[tuple[str, str], list[tuple[str, str, str, float]]] = {}
    for row in results:
        lists.setdefault((row[0], row[1]), []).append(row)
    return [row for rows in lists.values() for row in sorted(rows, key=lambda row: (row[3], row[2]), reverse=True)[:depth]]


def _reference(
    results: Results, judgments: Judgments, level: int, judged_only: bool, depth: int | None, complete: bool
) -> dict[tuple[str, str, str, int | None], float]:
    values = pytrec_values(_cut(results, depth), judgments, MEASURES, level, judged_only)
    if complete:  # trec_eval -c: a judged query a run lacks scores 0 on every measure
        runs, judged = {row[0] for row in results}, {row[0] for row in judgments}
        for run in runs:
            for query in judged:
                for name, k in MEASURES:
                    values.setdefault((run, query, name, k), 0.0)
    return values


VARIANTS = [
    # relevance level, judged_only, max_depth, complete
    (1, False, None, False),
    (2, False, None, False),
    (1, True, None, False),
    (2, True, None, True),
    (1, False, 4, False),
    (2, False, 3, True),
    (1, True, 4, True),
    (1, False, None, True),
]


@pytest.mark.parametrize(("level", "judged_only", "max_depth", "complete"), VARIANTS)
def test_every_measure_equals_pytrec_eval(
    spark: SparkSession, level: int, judged_only: bool, max_depth: int | None, complete: bool
) -> None:
    results, judgments = generated(seed=23)
    per_query = scored_per_query(
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        ks=[5],
        measures=ASKED,
        relevance_level=level,
        judged_only=judged_only,
        max_depth=max_depth,
        complete=complete,
    ).cache()
    got = {(row[c.RUN_ID], row[c.QUERY_ID], row[c.MEASURE], row[c.K]): row[c.VALUE] for row in per_query.collect()}
    want = _reference(results, judgments, level, judged_only, max_depth, complete)
    assert set(got) == set(want)
    assert {key: value for key, value in got.items() if abs(value - want[key]) > 1e-9} == {}
    means = {(row[c.RUN_ID], row[c.MEASURE], row[c.K]): row[c.VALUE] for row in summarize(per_query).collect()}
    for (run, name, k), mean in means.items():
        values = [value for (r, _, m, key), value in want.items() if (r, m, key) == (run, name, k)]
        assert mean == pytest.approx(sum(values) / len(values), abs=1e-9)
    assert len(means) == 2 * len(MEASURES)


def test_value_equals_ndcg_on_the_ndcg_rows_and_ndcg_is_null_elsewhere(spark: SparkSession) -> None:
    results, judgments = generated(seed=5)
    rows = scored_per_query(
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        ks=[5],
        measures=["P@5", "AP"],
    ).collect()
    assert {row[c.MEASURE] for row in rows} == {"ndcg_cut", "ndcg", "P", "map"}
    for row in rows:
        if row[c.MEASURE] in (c.MEASURE_CUT, c.MEASURE_UNCUT):
            assert row[c.VALUE] == row[c.NDCG] and row[c.DCG] is not None
        else:
            assert row[c.NDCG] is None and row[c.DCG] is None and row[c.IDCG] is None


def test_the_worked_example_of_the_docs(spark: SparkSession) -> None:
    """docs/semantics.md: a, c, b, z ranked; a 3, b 2, c 0, d 1 judged; relevance level 2."""
    judgments = rows_frame(spark, [("q", "a", 3), ("q", "b", 2), ("q", "c", 0), ("q", "d", 1)], JUDGMENTS_DDL)
    ranked = ["a", "c", "b", "z"]
    results = rows_frame(spark, [("r", "q", doc, float(4 - i), None) for i, doc in enumerate(ranked)], RESULTS_DDL)
    rows = scored_per_query(
        results,
        judgments,
        ks=[5],
        measures=["P.1,2", "recall.2", "map", "map_cut.2", "RR", "Rprec", "Success@1", "bpref"],
        relevance_level=2,
    ).collect()
    got = {(row[c.MEASURE], row[c.K]): row[c.VALUE] for row in rows}
    assert got == pytest.approx(
        {
            ("P", 1): 1.0,
            ("P", 2): 0.5,
            ("recall", 2): 0.5,
            ("map", None): (1 + 2 / 3) / 2,
            ("map_cut", 2): 0.5,
            ("recip_rank", None): 1.0,
            ("Rprec", None): 0.5,
            ("success", 1): 1.0,
            ("bpref", None): 0.75,
            ("ndcg_cut", 5): got[("ndcg_cut", 5)],
            ("ndcg", None): got[("ndcg", None)],
        },
        abs=1e-12,
    )
    binary = {(row[c.MEASURE], row[c.K]): row for row in rows if row[c.NDCG] is None}
    assert {row[c.NUM_RELEVANT] for row in binary.values()} == {2}  # R at level 2, not the 3 graded > 0
    assert binary[("P", 2)][c.NUM_RELEVANT_RETRIEVED] == 1 and binary[("map", None)][c.NUM_RELEVANT_RETRIEVED] == 2


def test_custom_gains_leave_relevance_to_the_grade(spark: SparkSession) -> None:
    """--gains 1=0: grade 1 gains nothing for NDCG, yet is relevant at level 1 for P and recall
    (trec_eval's gains apply to ndcg only)."""
    judgments = rows_frame(spark, [("q", "a", 1), ("q", "b", 2), ("q", "c", 0)], JUDGMENTS_DDL)
    results = rows_frame(spark, [("r", "q", doc, float(3 - i), None) for i, doc in enumerate(["a", "c", "b"])], RESULTS_DDL)
    rows = scored_per_query(results, judgments, ks=[1], measures=["P.1", "recall.2", "Rprec"], gains={1: 0.0}).collect()
    got = {(row[c.MEASURE], row[c.K]): row for row in rows}
    assert got[("ndcg_cut", 1)][c.VALUE] == 0.0  # a gains 0
    assert (got[("P", 1)][c.VALUE], got[("recall", 2)][c.VALUE], got[("Rprec", None)][c.VALUE]) == (1.0, 0.5, 0.5)
    assert got[("P", 1)][c.NUM_RELEVANT] == 2 and got[("ndcg_cut", 1)][c.NUM_RELEVANT] == 1


# The catalogue's other measures pytrec_eval computes (trec_eval's -m syntax; its printed names
# are ours, measure and k together). Not iprec_at_recall and 11pt_avg: pytrec_eval bundles trec_eval
# 9, which turned a recall level into a count as (long)(x * R + 0.9), where 10.0 rounds (lround(x *
# R)); ours are 10.0's, checked on its own files (test_all_trec.py).
CATALOGUE_ASKED = [
    "Rprec_mult",
    "utility",
    "binG",
    "infAP",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "relative_P.1,3,5,20",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "G",
    "ndcg_rel",
    "Rndcg",
]


def _scored(
    spark: SparkSession, seed: int, asked: list[str], level: int, judged_only: bool, max_depth: int | None, complete: bool
) -> tuple[Results, Judgments, dict[tuple[str, str, str], float], dict[tuple[str, str], float]]:
    """The generated inputs of `seed` and, by trec_eval's printed name, each (run, query)'s value
    and each run's summary value of the measures `asked`."""
    results, judgments = generated(seed=seed)
    report = evaluate(
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        rows_frame(spark, [(*row, None) for row in results], RESULTS_DDL),
        ks=[5],
        measures=asked,
        relevance_level=level,
        judged_only=judged_only,
        max_depth=max_depth,
        complete=complete,
    )
    printed = {(m.reported, m.k): m.trec_eval for m in parse_measures(asked)}
    got = {
        (row[c.RUN_ID], row[c.QUERY_ID], printed[(row[c.MEASURE], row[c.K])]): row[c.VALUE]
        for row in report.per_query.collect()
        if (row[c.MEASURE], row[c.K]) in printed
    }
    means = {
        (row[c.RUN_ID], printed[(row[c.MEASURE], row[c.K])]): row[c.VALUE]
        for row in report.evaluation.summary
        if (row[c.MEASURE], row[c.K]) in printed
    }
    report.unpersist()
    return results, judgments, got, means


def _combined(want: dict[tuple[str, str, str], float], run: str, name: str) -> float:
    """trec_eval's 'all' of the per-query values `want` of a run: a sum for the counts, else a mean."""
    values = [value for (r, _, n), value in want.items() if (r, n) == (run, name)]
    return sum(values) if combine_of(name) == SUM else sum(values) / len(values)


@pytest.mark.parametrize(("level", "judged_only", "max_depth", "complete"), VARIANTS)
def test_the_catalogues_other_measures_equal_pytrec_eval(
    spark: SparkSession, level: int, judged_only: bool, max_depth: int | None, complete: bool
) -> None:
    results, judgments, got, means = _scored(spark, 29, CATALOGUE_ASKED, level, judged_only, max_depth, complete)
    names = {name for _, _, name in got}
    want = {}
    for run, query, measured in pytrec_evaluated(_cut(results, max_depth), judgments, set(CATALOGUE_ASKED), level, judged_only):
        want.update({(run, query, name): measured[name] for name in names})
    if complete:  # a judged query a run lacks scores as an empty list, as trec_eval -c; num_rel is its R
        relevant = {query: sum(1 for q, _, grade in judgments if q == query and grade >= level) for query, _, _ in judgments}
        for run, query, name in got:
            want.setdefault((run, query, name), float(relevant[query]) if name == "num_rel" else 0.0)
    assert set(got) == set(want) and len(want) > 20 * len(names)
    assert {key: (value, want[key]) for key, value in got.items() if abs(value - want[key]) > 1e-9} == {}
    assert {key: mean for key, mean in means.items() if abs(mean - _combined(want, *key)) > 1e-9} == {}


ORACLE_ASKED = ["unj", "rbp", "rbp_resid", "iprec_at_recall", "11pt_avg"]


@pytest.mark.parametrize(("level", "judged_only", "max_depth", "complete"), VARIANTS)
def test_the_measures_pytrec_eval_lacks_equal_the_oracle(
    spark: SparkSession, level: int, judged_only: bool, max_depth: int | None, complete: bool
) -> None:
    """unj, rbp and rbp_resid (not in pytrec_eval), iprec_at_recall and 11pt_avg (trec_eval 10.0's
    rule, not pytrec_eval's 9), per query and on the mean, against tests/oracle.py."""
    results, judgments, got, means = _scored(spark, 37, ORACLE_ASKED, level, judged_only, max_depth, complete)
    want = oracle.trec_eval_extras(results, judgments, level, complete, judged_only, max_depth)
    assert set(got) == set(want) and len(want) > 20 * len({name for _, _, name in got})
    assert {key: (value, want[key]) for key, value in got.items() if abs(value - want[key]) > 1e-9} == {}
    assert {key: mean for key, mean in means.items() if abs(mean - _combined(want, *key)) > 1e-12} == {}
