"""The embedded engine in-process, no JVM: Spark's log (fdlibm's) bit for bit, and every measure it
computes against pytrec_eval (trec_eval 9) on generated cases with every hard case, in each
variant pytrec_eval has (-J, -l). The Spark tier proves both engines equal to the bit
(tests/transforms/test_engines.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval

from ndcg_spark import columns as c
from ndcg_spark.measures import BY_NAME, GEOMETRIC, strict_math
from ndcg_spark.measures.terms import half_up
from ndcg_spark.options import Options
from ndcg_spark.scoring.embedded.per_query import PER_QUERY_SCHEMA, per_query, score
from ndcg_spark.scoring.embedded.summary import summary_rows
from ndcg_spark.scoring.plan import ScoringPlan
from tests.references import Judgments, Results, generated, pytrec_evaluated

# Spark's ln and log2 of these (StrictMath's, read from Spark 4.3 as float.hex), where numpy's own
# log differs in the last bit for the whole numbers.
SPARK_LN = {
    3.0: ("0x1.193ea7aad030ap+0", "0x1.95c01a39fbd68p+0"),
    48.0: ("0x1.ef8383c50bb74p+1", "0x1.6570068e7ef5ap+2"),
    74.0: ("0x1.1375cd6fcab1cp+2", "0x1.8d67af16da764p+2"),
    185.0: ("0x1.4e1a4f518c72cp+2", "0x1.e2022762a791ep+2"),
    196.0: ("0x1.51cca16d7bba8p+2", "0x1.e75767f54042ep+2"),
    299.0: ("0x1.6cd411481a020p+2", "0x1.072b058f1dc37p+3"),
    7.0: ("0x1.f2272ae325a57p+0", "0x1.675767f54042dp+1"),
    0.1: ("-0x1.26bb1bbb55515p+1", "-0x1.a934f0979a371p+1"),
    1e-300: ("-0x1.5963447f87fb5p+9", "-0x1.f24a09f1a8b89p+9"),
    123456.789: ("0x1.77281cad8a844p+3", "0x1.0e9e4bf2a1cb2p+4"),
}


def test_strict_math_is_sparks_log_to_the_bit() -> None:
    values = np.array(list(SPARK_LN))
    assert [float(v).hex() for v in strict_math.log(values)] == [ln for ln, _ in SPARK_LN.values()]
    assert [float(v).hex() for v in strict_math.log2(values)] == [log2 for _, log2 in SPARK_LN.values()]
    assert sum(float(np.log(v)).hex() != ln for v, (ln, _) in SPARK_LN.items()) == 6  # numpy's own would not do
    edges = strict_math.log(np.array([0.0, -1.0, np.inf, 1.0, 5e-324]))
    assert edges[0] == -np.inf and np.isnan(edges[1]) and edges[2] == np.inf and edges[3] == 0.0
    assert edges[4] == pytest.approx(math.log(5e-324))


# Spark's pow(b, n) (StrictMath's) where numpy's power differs in the last bit, as float.hex.
SPARK_POW = {
    (0.9, 4.0): "0x1.4fec56d5cfaaep-1",
    (0.9, 12.0): "0x1.2135355a70fb8p-2",
    (0.9, 29.0): "0x1.81da8ee4adf9ap-5",
    (0.8, 13.0): "0x1.c25c268497688p-5",
    (0.8, 17.0): "0x1.70ef54646d49cp-6",
    (0.8, 35.0): "0x1.a95a5b7f87a1ep-12",
    (0.5, 1074.0): "0x0.0000000000001p-1022",
}


def test_strict_math_pow_is_sparks_to_the_bit() -> None:
    assert {key: strict_math.pow_positive(*key).hex() for key in SPARK_POW} == SPARK_POW
    assert sum(float(np.power(*key)).hex() != bits for key, bits in SPARK_POW.items()) == 6  # numpy's own would not do
    assert strict_math.powers(0.9, 4).tolist() == [1.0, 0.9, 0.9 * 0.9, strict_math.pow_positive(0.9, 3.0)]
    assert strict_math.pow_positive(0.5, 1075.0) == 0.0 and strict_math.pow_positive(2.0, 1024.0) == math.inf
    with pytest.raises(ValueError, match="0 < x < inf"):
        strict_math.pow_positive(-0.5, 2.0)


def test_half_up_rounds_as_spark_does() -> None:
    values = np.array([0.5, 1.5, 2.5, 0.49999999999999994, 2.4999999999999996, -2.5, 0.0, 7.0])
    assert half_up(values).tolist() == [1.0, 2.0, 3.0, 0.0, 2.0, -3.0, 0.0, 7.0]


# Every measure the embedded engine computes that pytrec_eval (trec_eval 9) has and computes as
# 10.0 does (iprec_at_recall and 11pt_avg differ between the versions; unj, rbp and rbp_resid are
# 10.0's only).
MEASURES = [
    "ndcg_cut.1,3,5,20",
    "ndcg",
    "P.1,5,10",
    "recall.5,100",
    "map",
    "map_cut.5,10",
    "recip_rank",
    "Rprec",
    "bpref",
    "infAP",
    "binG",
    "success.1,5",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "Rprec_mult",
    "utility",
    "set_P",
    "set_F",
    "set_map",
    "set_relative_P",
    "set_recall",
    "relative_P.5",
    "num_nonrel_judged_ret",
]


def embedded_values(results: Results, judgments: Judgments, **options: object) -> dict[tuple[str, str, str], float]:
    """(run, query, trec_eval's name) -> the embedded engine's value."""
    plan = ScoringPlan.of(Options.of({"ks": (1,), "measures": MEASURES, **options}))
    table = per_query(judgments_table(judgments), results_table(results), plan)
    return {
        (row[c.RUN_ID], row[c.QUERY_ID], row[c.MEASURE] if row[c.K] is None else f"{row[c.MEASURE]}_{row[c.K]}"): row[c.VALUE]
        for row in table.to_pylist()
    }


def judgments_table(judgments: Judgments) -> pa.Table:
    query, doc, grade = zip(*judgments, strict=True)
    return pa.table({c.QUERY_ID: query, c.DOC_ID: doc, c.RELEVANCE: pa.array(grade, pa.float64())})


def results_table(results: Results) -> pa.Table:
    run, query, doc, score = zip(*results, strict=True)
    return pa.table({c.RUN_ID: run, c.QUERY_ID: query, c.DOC_ID: doc, c.SCORE: pa.array(score, pa.float64())})


def pytrec(results: Results, judgments: Judgments, level: int, judged_only: bool) -> dict[tuple[str, str, str], float]:
    """(run, query, trec_eval's name) -> pytrec_eval's value."""
    evaluated = pytrec_evaluated(results, judgments, set(MEASURES), level, judged_only)
    return {(run, query, name): value for run, query, measured in evaluated for name, value in measured.items()}


@pytest.mark.parametrize(("level", "judged_only"), [(1, False), (1, True), (2, False), (2, True)])
@pytest.mark.parametrize("seed", [3, 5, 11])
def test_every_measure_equals_pytrec_eval(seed: int, level: int, judged_only: bool) -> None:
    results, judgments = generated(seed)
    got = embedded_values(results, judgments, relevance_level=level, judged_only=judged_only)
    want = pytrec(results, judgments, level, judged_only)
    assert set(got) == set(want)
    for key, value in got.items():
        assert value == pytest.approx(want[key], abs=1e-12), key
    assert len({name for _, _, name in got}) == 41  # ndcg_cut x4, P x3, Rprec_mult x10, ...
    assert any(0 < value < 1 for value in got.values())


@pytest.mark.parametrize(("seed", "level", "judged_only"), [(3, 1, False), (17, 2, False), (29, 1, True), (41, 2, True)])
def test_every_pytrec_eval_name_equals_pytrec_eval_as_trec_eval_9(seed: int, level: int, judged_only: bool) -> None:
    """pytrec_eval bundles trec_eval 9: with trec_eval_version=9, every measure it computes is its
    value, with no exception. Per query where trec_eval prints per query; gm_map and gm_bpref,
    which trec_eval prints for 'all' only (pytrec_eval's per-query value is the log it averages),
    by their summary."""
    names = sorted(set(pytrec_eval.supported_measures) - {"relstring", "runid"})  # text, not numbers
    results, judgments = generated(seed)
    want = {
        (run, query, name): value
        for run, query, measured in pytrec_evaluated(results, judgments, set(names), level, judged_only)
        for name, value in measured.items()
    }
    options = Options.of({"ks": (1,), "measures": names, "trec_eval_version": 9, "relevance_level": level})
    plan = ScoringPlan.of(dataclasses.replace(options, judged_only=judged_only))
    scored = score(judgments_table(judgments), results_table(results), plan)
    got = {
        (row[c.RUN_ID], row[c.QUERY_ID], row[c.MEASURE] if row[c.K] is None else f"{row[c.MEASURE]}_{row[c.K]}"): row[c.VALUE]
        for row in scored.per_query.to_pylist()
    }
    means = {(row[c.RUN_ID], row[c.MEASURE]): row[c.VALUE] for row in summary_rows(scored.per_query, scored.measures, "")}
    geometric = {name for name in names if BY_NAME[name].combine == GEOMETRIC}
    printed = {name for _, _, name in want}
    assert all(any(line == name or line.startswith(f"{name}_") for line in printed) for name in names)
    for (run, query, name), value in want.items():
        if name in geometric:  # pytrec_eval's per-query log; checked by the mean below
            continue
        if math.isnan(value):  # trec_eval 9's 0 / 0 on a list -J empties (10.0 guards it): no value, here 0
            assert got[(run, query, name)] == 0.0, (run, query, name)
            continue
        assert got[(run, query, name)] == pytest.approx(value, abs=1e-12), (run, query, name)
    for name in geometric:
        for run in ("r1", "r2"):
            logs = [value for (r, _, n), value in want.items() if (r, n) == (run, name)]
            assert means[(run, name)] == pytest.approx(math.exp(sum(logs) / len(logs)), rel=1e-12), (run, name)


RECALL_MEASURES = ["iprec_at_recall", "11pt_avg", "iprec_at_recall.0.15,0.33,0.45"]


@pytest.mark.parametrize("seed", [3, 17, 29])
def test_trec_eval_version_9_gives_pytrec_evals_recall_levels(seed: int) -> None:
    """pytrec_eval bundles trec_eval 9, whose iprec_at_recall counts a level's documents as
    (long)(level x R + 0.9): with trec_eval_version=9 every value is its own; 10.0's rule, the
    default, gives other values on the same lists."""
    results, judgments = generated(seed)
    asked = {"iprec_at_recall.0.0,0.1,0.15,0.2,0.3,0.33,0.4,0.45,0.5,0.6,0.7,0.8,0.9,1.0", "11pt_avg"}
    want = {
        (run, query, name): value
        for run, query, measured in pytrec_evaluated(results, judgments, asked, 1, False)
        for name, value in measured.items()
    }

    def ours(version: int) -> dict[tuple[str, str, str], float]:
        plan = ScoringPlan.of(Options.of({"ks": (1,), "measures": RECALL_MEASURES, "trec_eval_version": version}))
        rows = per_query(judgments_table(judgments), results_table(results), plan).to_pylist()
        return {(row[c.RUN_ID], row[c.QUERY_ID], row[c.MEASURE]): row[c.VALUE] for row in rows if row[c.K] is None}

    nine, ten = ours(9), ours(10)
    assert set(want) <= set(nine) and len(want) > 100
    assert {key: value for key, value in want.items() if nine[key] != pytest.approx(value, abs=1e-12)} == {}
    assert any(ten[key] != pytest.approx(value, abs=1e-12) for key, value in want.items())


WORKED = [3, 2, 3, 0, 1]  # the README's worked example: NDCG@5 0.9725


def _worked(kind: str = "pandas") -> tuple[object, object]:
    judgments = {"query_id": ["q1"] * 5, "doc_id": [f"d{i}" for i in range(1, 6)], "relevance": WORKED}
    results = {"query_id": ["q1"] * 5, "doc_id": [f"d{i}" for i in range(1, 6)], "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
    if kind == "arrow":
        return pa.table(judgments), pa.table(results)
    if kind == "large_string":  # pandas' Arrow-backed strings
        return _large(pa.table(judgments)), _large(pa.table(results))
    if kind == "polars":
        import polars as pl

        return pl.DataFrame(judgments), pl.DataFrame(results)
    return pd.DataFrame(judgments), pd.DataFrame(results)


def _large(table: pa.Table) -> pa.Table:
    """The table with its ids as Arrow's large strings."""
    return table.cast(pa.schema([(f.name, pa.large_string() if f.name.endswith("_id") else f.type) for f in table.schema]))


@pytest.mark.parametrize("kind", ["pandas", "arrow", "large_string", "polars"])
def test_evaluate_takes_what_a_notebook_holds(kind: str) -> None:
    from ndcg_spark import evaluate

    judgments, results = _worked(kind)
    report = evaluate(judgments, results, ks=(5,), measures=["P@5"])
    values = {(row.measure, None if row.k is pd.NA else row.k): row.value for row in report.summary.itertuples()}
    dcg = 3 + 2 / math.log2(3) + 3 / math.log2(4) + 1 / math.log2(6)
    ideal = 3 + 3 / math.log2(3) + 2 / math.log2(4) + 1 / math.log2(5)
    assert values[("ndcg_cut", 5)] == pytest.approx(dcg / ideal, abs=1e-15)
    assert round(values[("ndcg_cut", 5)], 4) == 0.9724
    assert values == {("ndcg_cut", 5): values[("ndcg_cut", 5)], ("ndcg", None): values[("ndcg_cut", 5)], ("P", 5): 0.8}
    assert list(report.per_query.columns) == [field.name for field in PER_QUERY_SCHEMA]
    assert str(report).splitlines()[1].split() == ["run", "0.9724", "0.9724", "0.8000", "1", "0", "0"]


def test_the_embedded_refusals_are_the_librarys_one_liners() -> None:
    from ndcg_spark import evaluate
    from ndcg_spark.errors import ConfigError, InputError

    judgments, results = _worked()
    with pytest.raises(
        ConfigError, match=r"^judgments must be a Spark, pandas or Polars DataFrame, or an Arrow table, not builtins.list$"
    ):
        evaluate([1, 2], results)
    with pytest.raises(InputError, match=r"^results DataFrame: missing column\(s\) 'score' \(found: query_id, doc_id\)"):
        evaluate(judgments, results.drop(columns=["score"]))
    twice = pd.concat([results, results.head(2)])
    with pytest.raises(InputError) as copies:
        evaluate(judgments, twice)
    assert str(copies.value) == (
        "results DataFrame: columns 'query_id', 'doc_id': 2 documents are retrieved more than once for the same query and run"
        ' (2 extra rows); trec_eval refuses this; pass duplicate_results="keep_best" to keep the best-scored copy'
    )
    kept = evaluate(judgments, twice, ks=(5,), duplicate_results="keep_best")
    assert kept.evaluation.duplicate_results_dropped == 2
    nulls = results.assign(score=[1.0, None, 2.0, None, 3.0])
    with pytest.raises(InputError, match=r"^results DataFrame: column 'score': 2 of 5 rows are null$"):
        evaluate(judgments, nulls)
    halves = judgments.assign(relevance=[1.5, 2.0, 3.0, 0.0, 1.0])
    with pytest.raises(InputError, match=r"^judgments DataFrame: column 'relevance': 1 of 5 rows are not whole numbers$"):
        evaluate(halves, results)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_err_is_ir_measures_err(seed: int) -> None:
    """ERR@k against ir_measures' own (gdeval.pl, which it runs with perl, printing 5 decimals):
    grades -1 to 4, unjudged documents, score ties (gdeval breaks them by docno descending, as
    trec_eval), a query with no document graded above 0 (gdeval skips it; ours is 0)."""
    import random

    import ir_measures

    rng = random.Random(seed)
    judgments, results = [], []
    for q in range(1, 25):
        docs = [f"d{i}" for i in range(rng.randint(1, 25))]
        for doc in rng.sample(docs, k=max(1, len(docs) * 2 // 3)):
            judgments.append((str(q), doc, 0 if q == 3 else rng.choice([-1, 0, 0, 1, 2, 3, 4])))
        for doc in rng.sample([*docs, "u1", "u2"], k=rng.randint(1, len(docs) + 2)):
            results.append(("r", str(q), doc, rng.choice([0.1, 0.2, 0.5, 1.0])))
    ks = (1, 5, 20)
    plan = ScoringPlan.of(Options.of({"ks": (1,), "measures": [f"ERR@{k}" for k in ks]}))
    ours = {
        (row[c.QUERY_ID], row[c.K]): row[c.VALUE]
        for row in per_query(judgments_table(judgments), results_table(results), plan).to_pylist()
        if row[c.MEASURE] == "err"
    }
    qrels = [ir_measures.Qrel(query, doc, grade) for query, doc, grade in judgments]
    run = [ir_measures.ScoredDoc(query, doc, score) for _, query, doc, score in results]
    theirs = {
        (metric.query_id, metric.measure.params["cutoff"]): metric.value
        for metric in ir_measures.iter_calc([ir_measures.ERR @ k for k in ks], qrels, run)
    }
    assert theirs and set(theirs) <= set(ours)
    assert {key: round(value, 5) for key, value in ours.items() if key in theirs} == theirs
    assert all(value == 0.0 for key, value in ours.items() if key not in theirs)
    assert any(0 < value < 1 for value in theirs.values())


def test_several_results_tables_score_as_one_and_a_run_comes_from_one() -> None:
    """A dict of tables, one system each (ids of different types in them compared as text), as the
    Spark engine takes a dict of frames; a run in two of them is refused, as there."""
    from ndcg_spark import evaluate
    from ndcg_spark.errors import InputError

    judgments, results = _worked()
    one = evaluate(judgments, {"a": results, "b": results}, ks=(5,))
    assert list(one.summary.run_id) == ["a", "a", "b", "b"] and one.summary.value.iloc[0] == one.summary.value.iloc[2]
    # doc ids 1..5 as numbers in one table, as text in the judgments: compared as text, they match
    texts = judgments.assign(doc_id=[str(i) for i in range(1, 6)])
    mixed = evaluate(texts, {"text": results, "numbers": results.assign(doc_id=range(1, 6))}, ks=(5,))
    values = {(row.run_id, row.measure): row.value for row in mixed.summary.itertuples()}
    assert round(values[("numbers", "ndcg_cut")], 4) == 0.9724 and values[("text", "ndcg_cut")] == 0.0
    refusal = r"^results: run 'r1' comes from two inputs, a=DataFrame and b=DataFrame; each run must come from one input$"
    with pytest.raises(InputError, match=refusal):
        evaluate(judgments, {"a": results.assign(run_id="r1"), "b": results.assign(run_id="r1")})
