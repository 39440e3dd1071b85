"""The physical plan of the main pass: each input is shuffled by query_id once, nothing is
broadcast, so the property cannot silently regress."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from ndcg_spark.checks.inputs import JUDGMENTS, RESULTS, Source, canonical_inputs
from ndcg_spark.evaluation import main_pass
from ndcg_spark.job.inputs import read_inputs
from ndcg_spark.job.settings import JOB, OPTIONS, build_config
from ndcg_spark.measures import NDCG_CUT, Measure, scored
from ndcg_spark.options import Options
from ndcg_spark.scoring.plan import ScoringPlan
from tests.plans import BROADCAST, EXCHANGE, MAIN_PASS_SORTS, REUSED, SORT, counts, drift
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL


@pytest.fixture()
def static_plans(spark: SparkSession) -> Iterator[None]:
    """AQE off: the plan is the one Spark plans up front, read before anything runs."""
    previous = spark.conf.get("spark.sql.adaptive.enabled")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        yield
    finally:
        spark.conf.set("spark.sql.adaptive.enabled", previous)


def _plan(frame) -> str:
    return frame._jdf.queryExecution().executedPlan().toString()


def _assert_one_shuffle_per_input(plan: str) -> None:
    # results once, judgments once; the ideal DCG reuses the judgments' exchange
    assert len(EXCHANGE.findall(plan)) == 2, drift(plan)
    assert len(REUSED.findall(plan)) == 1, drift(plan)
    assert not BROADCAST.search(plan), drift(plan)


@pytest.mark.parametrize("order_by", ["score", "rank"])
@pytest.mark.parametrize("integer_ids", [False, True])
def test_main_pass_shuffles_each_input_once(
    spark: SparkSession, static_plans: None, tmp_path: Path, order_by: str, integer_ids: bool
) -> None:
    ids = [1, 2] if integer_ids else ["1", "2"]
    judgments, results = tmp_path / "judgments.parquet", tmp_path / "results.parquet"
    pq.write_table(pa.table({"query_id": ids, "doc_id": ids, "relevance": [1, 0]}), judgments)
    pq.write_table(
        pa.table({"run_id": ["r", "r"], "query_id": ids, "doc_id": ids, "score": [1.0, 2.0], "rank": [1, 1]}),
        results,
    )
    config = build_config(
        {
            JOB: {
                "judgments": str(judgments),
                "results": str(results),
                "output": str(tmp_path / "out"),
            },
            OPTIONS: {
                "order_by": order_by,
                "ks": "5,10",
            },
        }
    )
    pairs = main_pass(*read_inputs(spark, config), ScoringPlan.of(config.options)).pairs
    ranked_by = "rank#" if order_by == "rank" else "score#"
    plan = _plan(pairs)
    _assert_one_shuffle_per_input(plan)
    # Four sorts of rows, no more (Spark 4.3; tests/plans.py says 4.0's): the results' copies
    # window (also the merge join's order), the ranking (both of its windows share it), the
    # judgments' copies window (also the join's order) and their ideal order. The ideal side
    # reads the judgments' exchange before the copies window, so the judgments are not sorted
    # for copies twice.
    sorts = SORT.findall(plan)
    assert len(sorts) in MAIN_PASS_SORTS, drift(plan)
    assert re.search(r"Sort \[query_id#\d+L? ASC NULLS FIRST, run_id#\d+ ASC NULLS FIRST, " + ranked_by, plan), drift(plan)


def test_library_entry_point_shuffles_each_input_once(spark: SparkSession, static_plans: None) -> None:
    # Python rows, not tests.conftest.rows_frame: an Arrow table's size is known to be tiny, so its
    # plan broadcasts; an RDD's is unknown, as a big input's would be.
    results = spark.createDataFrame([("r", "q", "a", 1.0, None)], RESULTS_DDL)
    judgments = spark.createDataFrame([("q", "a", 1)], JUDGMENTS_DDL)
    options = Options(ks=(5, 10)).validated()
    # evaluate()'s own path: its frames checked as given (located=False), then the one pass
    judged, retrieved = canonical_inputs(Source(judgments, JUDGMENTS), [Source(results, RESULTS)], options, located=False)
    _assert_one_shuffle_per_input(_plan(main_pass(judged, retrieved, ScoringPlan.of(options)).pairs))


def test_variants_and_several_inputs_add_no_sort_and_no_shuffle(spark: SparkSession, static_plans: None, tmp_path: Path) -> None:
    """-J, -M, custom gains and two results inputs: the same four sorts; the two inputs are
    shuffled together, once."""
    judgments = tmp_path / "judgments.parquet"
    pq.write_table(pa.table({"query_id": ["1", "2"], "doc_id": ["1", "2"], "relevance": [1, 0]}), judgments)
    results = {}
    for name in ("a", "b"):
        results[name] = str(tmp_path / f"{name}.parquet")
        pq.write_table(pa.table({"query_id": ["1", "2"], "doc_id": ["1", "2"], "score": [1.0, 2.0]}), results[name])
    config = build_config(
        {
            JOB: {
                "judgments": str(judgments),
                "results": [f"{name}={path}" for name, path in results.items()],
                "output": str(tmp_path / "out"),
            },
            OPTIONS: {
                "ks": "5,10",
                "judged_only": True,
                "max_depth": 3,
                "gains": "1=2",
            },
        }
    )
    options = config.options
    plan = ScoringPlan.of(options)
    pairs = main_pass(*read_inputs(spark, config), plan).pairs
    plan = _plan(pairs)
    _assert_one_shuffle_per_input(plan)
    assert len(SORT.findall(plan)) in MAIN_PASS_SORTS, drift(plan)


EVERY_MEASURE = ("P.5,10", "recall.5,100", "map", "map_cut.10", "recip_rank", "Rprec", "success.1,5", "bpref")


@pytest.mark.parametrize("asked", [EVERY_MEASURE, ("all_trec",)], ids=["eight", "all_trec"])
@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("judged_only", [False, True])
def test_every_measure_adds_no_sort_and_no_shuffle(
    spark: SparkSession, static_plans: None, tmp_path: Path, lenient: bool, judged_only: bool, asked: tuple[str, ...]
) -> None:
    """All the measures beside NDCG come from the same windows: the same shuffles, the same
    sorts, with the copies refused or kept, with -J and -M; trec_eval's whole all_trec too."""
    judgments, results = tmp_path / "judgments.parquet", tmp_path / "results.parquet"
    pq.write_table(pa.table({"query_id": ["1", "2"], "doc_id": ["1", "2"], "relevance": [2, 0]}), judgments)
    pq.write_table(pa.table({"query_id": ["1", "2"], "doc_id": ["1", "2"], "score": [1.0, 2.0]}), results)
    config = build_config(
        {
            JOB: {
                "judgments": str(judgments),
                "results": str(results),
                "output": str(tmp_path / "out"),
            },
            OPTIONS: {
                "ks": "5,10",
                "measures": list(asked),
                "relevance_level": 2,
                "judged_only": judged_only,
                "max_depth": 50,
                "duplicate_judgments": "keep_max" if lenient else "error",
                "duplicate_results": "keep_best" if lenient else "error",
            },
        }
    )
    options = config.options
    assert len(scored(options.measures)) == (11 if asked == EVERY_MEASURE else 88)  # all_trec's text ones aside

    def plan(measures: tuple) -> str:
        ndcg = tuple(Measure(NDCG_CUT, k) for k in options.ks)
        scoring = ScoringPlan((*ndcg, *scored(measures)), options.relevance_level, judged_only=judged_only, max_depth=50)
        return _plan(main_pass(*read_inputs(spark, config), scoring).pairs)

    every, ndcg_alone = plan(options.measures), plan(())
    _assert_one_shuffle_per_input(every)
    assert counts(every) == counts(ndcg_alone), drift(every)
    if not lenient:
        assert len(SORT.findall(every)) in MAIN_PASS_SORTS, drift(every)
