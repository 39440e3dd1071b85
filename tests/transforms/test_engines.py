"""Both engines give the same bits: per_query of the embedded engine (numpy, in-process) equals the
Spark engine's, every field of every row, for every measure the embedded engine computes, on
generated cases with every hard case (score ties, grades -1 to 3, unjudged documents, empty and
all-zero queries, a judged query no run retrieved, runs lacking queries), in every variant: -J,
-M, -c, exponential and custom gains, -l, and all of them at once."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pandas as pd
import pyarrow as pa
import pytest
from pyspark.sql import SparkSession

from ndcg_spark import Report, evaluate, gate
from ndcg_spark.errors import ConfigError, InputError
from ndcg_spark.measures import BY_NAME, NDCG_MEASURES, parse_measures, supported_names
from ndcg_spark.options import Options
from ndcg_spark.scoring.embedded.per_query import per_query
from ndcg_spark.scoring.plan import ScoringPlan
from tests.conftest import rows_frame, scored_per_query
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL
from tests.unit.test_embedded import MEASURES, judgments_table, results_table

# Every measure of the catalogue: pytrec_eval's and 10.0's own (iprec_at_recall, 11pt_avg, unj, rbp,
# rbp_resid), and those that walk the ranked and ideal lists side by side (G, ndcg_rel, Rndcg).
ALL = [
    *MEASURES,
    "iprec_at_recall",
    "11pt_avg",
    "unj",
    "num_q",
    "gm_map",
    "gm_bpref",
    "rbp",
    "rbp.0.8",
    "rbp_resid",
    "G",
    "ndcg_rel",
    "Rndcg",
    "err",
    "judged",
    "Judged",
]


def _sorted(rows: Iterable[tuple]) -> list[tuple]:
    """Rows in one order, NULLs (an uncut measure's k) first, as Spark sorts them."""
    return sorted(rows, key=lambda row: tuple((value is not None, value) for value in row))


VARIANTS = [
    {},
    {"judged_only": True},
    {"max_depth": 7},
    {"complete": True},
    {"gain": "exponential"},
    {"gains": {0: 0.5, 1: 1, 2: 3, 3: 7.25}},
    {"relevance_level": 2},
    {"trec_eval_version": 9},
    {"judged_only": True, "max_depth": 5, "complete": True, "relevance_level": 2, "gain": "exponential"},
]


def generated(seed: int) -> tuple[list[tuple], list[tuple]]:
    """Three runs over 30 queries of up to 40 documents; some queries unjudged, some lists empty
    of judged documents, scores drawn from a few values (ties) or at random."""
    rng = random.Random(seed)
    judgments, results = [], []
    for q in range(30):
        query = f"q{q}"
        for doc in sorted({f"d{rng.randint(0, 60)}" for _ in range(rng.randint(0, 30))}):
            judgments.append((query, doc, rng.choice([-1, 0, 0, 1, 1, 2, 3])))
        for run in ("a", "b", "c"):
            if rng.random() < 0.15:
                continue
            for doc in sorted({f"d{rng.randint(0, 60)}" for _ in range(rng.randint(1, 40))}):
                results.append((run, query, doc, float(rng.choice([1, 2, 3, rng.random()]))))
    return results, judgments


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: ",".join(variant) or "default")
@pytest.mark.parametrize("seed", [0, 1])
def test_both_engines_give_the_same_bits(spark: SparkSession, seed: int, variant: dict) -> None:
    results, judgments = generated(seed)
    options = {"ks": (1, 5, 10), "measures": ALL, **variant}
    on_spark = scored_per_query(
        rows_frame(spark, [(run, query, doc, score, None) for run, query, doc, score in results], RESULTS_DDL),
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        **options,
    )
    embedded = per_query(judgments_table(judgments), results_table(results), ScoringPlan.of(Options.of(options)))
    assert embedded.schema.names == on_spark.columns
    spark_rows = _sorted(tuple(row) for row in on_spark.collect())
    embedded_rows = _sorted(tuple(row.values()) for row in embedded.to_pylist())
    assert embedded_rows == spark_rows  # == on floats: the same bits (no NaN among them)
    assert len(embedded_rows) > 3000


def test_the_embedded_engine_reads_arrow_ids_of_any_type() -> None:
    """Integer ids score as their strings (trec_eval's byte order breaks ties: "10" before "9")."""
    judgments = pa.table({"query_id": [1, 1], "doc_id": [9, 10], "relevance": [1.0, 0.0]})
    results = pa.table({"run_id": ["r", "r"], "query_id": [1, 1], "doc_id": [9, 10], "score": [1.0, 1.0]})
    table = per_query(judgments, results, ScoringPlan.of(Options.of({"ks": (1,), "measures": ["P.1"]})))
    assert table.column("query_id").to_pylist() == ["1", "1", "1"]
    assert table.column("value").to_pylist() == [1.0, 1.0, 1.0]  # "9" ranks before "10": relevant first


@pytest.mark.parametrize("variant", [VARIANTS[0], VARIANTS[-1]], ids=["default", "all"])
def test_evaluate_on_pandas_gives_the_spark_engines_report(spark: SparkSession, variant: dict) -> None:
    """evaluate() of pandas frames runs embedded; its per_query, summary and comparison with a
    baseline equal the Spark engine's to the bit, and its printed tables are the same text."""
    results, judgments = generated(2)
    options = {"ks": (1, 5, 10), "measures": ALL, "baseline": "a", "permutations": 300, "bootstrap": 100, **variant}
    on_spark, embedded = _on_both(spark, judgments, results, options)
    assert list(embedded.summary.columns) == on_spark.summary.columns
    assert list(embedded.per_query.columns) == on_spark.per_query.columns
    assert _rows(embedded.summary) == [tuple(row) for row in on_spark.summary.collect()]
    assert _sorted(_rows(embedded.per_query)) == _sorted(tuple(row) for row in on_spark.per_query.collect())
    assert on_spark.comparison is not None and embedded.comparison is not None
    assert _rows(embedded.comparison) == [tuple(row) for row in on_spark.comparison.collect()]
    assert str(embedded) == str(on_spark)
    assert embedded.table() == on_spark.table()


def _on_both(spark: SparkSession, judgments: list, results: list, options: dict) -> tuple[Report, Report]:
    """evaluate() of the same rows as Spark DataFrames and as pandas frames (the embedded engine)."""
    on_spark = evaluate(
        rows_frame(spark, judgments, JUDGMENTS_DDL),
        rows_frame(spark, [(run, query, doc, score, None) for run, query, doc, score in results], RESULTS_DDL),
        **options,
    )
    embedded = evaluate(
        pd.DataFrame(judgments, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(results, columns=["run_id", "query_id", "doc_id", "score"]),
        **options,
    )
    return on_spark, embedded


def _rows(frame: pd.DataFrame) -> list[tuple]:
    """A pandas frame's rows as Spark's Rows hold them: pandas' NA, and NaN in a column of doubles
    (no value is NaN), as None."""
    return [tuple(None if pd.isna(value) else value for value in row) for row in frame.astype(object).itertuples(index=False)]


def test_both_engines_rank_by_the_rank_column_when_asked(spark: SparkSession) -> None:
    """order_by="rank": each list in its rank column's order (a shuffle of the scores' order here),
    ties of rank broken by score and doc_id as the Spark engine's ranking_order breaks them."""
    results, judgments = generated(3)
    rng = random.Random(3)
    lists: dict[tuple[str, str], list[tuple]] = {}
    for row in results:
        lists.setdefault((row[0], row[1]), []).append(row)
    ranked = []
    for rows in lists.values():
        ranks = [rng.randint(1, len(rows)) for _ in rows]  # repeats: ties of rank
        ranked += [(*row, rank) for row, rank in zip(rows, ranks, strict=True)]
    options = {"ks": (1, 5, 10), "measures": ALL, "order_by": "rank"}
    on_spark = scored_per_query(rows_frame(spark, ranked, RESULTS_DDL), rows_frame(spark, judgments, JUDGMENTS_DDL), **options)
    names = ["run_id", "query_id", "doc_id", "score", "rank"]
    table = pa.table({name: [row[i] for row in ranked] for i, name in enumerate(names)})
    embedded = per_query(judgments_table(judgments), table, ScoringPlan.of(Options.of(options)))
    assert _sorted(tuple(row.values()) for row in embedded.to_pylist()) == _sorted(tuple(row) for row in on_spark.collect())
    by_score = per_query(judgments_table(judgments), table, ScoringPlan.of(Options.of({**options, "order_by": "score"})))
    assert by_score.column("value").to_pylist() != embedded.column("value").to_pylist()  # the ranks did reorder


def test_every_measure_of_the_catalogue_is_compared() -> None:
    """ALL names every supported declaration, so a new one is on both engines' bench."""
    compared = {measure.name for measure in parse_measures(ALL)} | set(NDCG_MEASURES)
    assert compared == {name for name in supported_names() if not BY_NAME[name].text}


def _perturbed(results: list, seed: int) -> list:
    """The same lists with run b's scores drawn anew: a report of another day, some queries worse."""
    rng = random.Random(seed)
    return [(run, query, doc, rng.random() if run == "b" else score) for run, query, doc, score in results]


@pytest.mark.parametrize("against", ["baseline", "earlier"])
def test_the_gate_of_pandas_reports_is_the_spark_engines(spark: SparkSession, against: str) -> None:
    """gate() of in-memory reports (the embedded engine's) gives the Spark engine's verdict, row
    for row: the comparison's numbers, the outcome, the queries that fell most."""
    results, judgments = generated(4)
    later = _perturbed(results, 9)
    options = {"ks": (1, 5), "measures": ["P.5", "map"]}
    gated = {"fail_on_drop": 0.001, "measures": ["ndcg_cut.5", "P.5", "map"], "permutations": 300, "bootstrap": 100}

    spark_now, local_now = _on_both(spark, judgments, later, options)
    if against == "baseline":
        spark_verdict, local_verdict = gate(spark_now, "a", **gated), gate(local_now, "a", **gated)
    else:
        spark_before, local_before = _on_both(spark, judgments, results, options)
        spark_verdict, local_verdict = gate(spark_now, spark_before, **gated), gate(local_now, local_before, **gated)
    assert local_verdict.rows == spark_verdict.rows
    assert len(local_verdict.rows) >= 6 and any(row.fell_most for row in local_verdict.rows)
    assert str(local_verdict) == str(spark_verdict)


def test_a_gate_across_the_engines_is_refused(spark: SparkSession) -> None:
    """A report is gated against a reference of its own kind: one line says so otherwise."""
    results, judgments = generated(4)
    on_spark, local = _on_both(spark, judgments, results, {"ks": (5,)})
    with pytest.raises(ConfigError, match=r"^gate\(\) of an in-memory report takes a reference of the same kind"):
        gate(local, on_spark, fail_on_drop=0.01)
    with pytest.raises(ConfigError, match=r"^gate\(\) of a Spark report takes a reference of the same kind"):
        gate(on_spark, local, fail_on_drop=0.01)


def test_engine_keyword_moves_pandas_to_spark_and_refuses_local_of_spark_frames(spark: SparkSession) -> None:
    """engine="spark" evaluates pandas frames on the active session (a report of Spark
    DataFrames, the same rows); engine="local" of Spark DataFrames is refused in one line."""
    results, judgments = generated(3)
    frames = (
        pd.DataFrame(judgments, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(results, columns=["run_id", "query_id", "doc_id", "score"]),
    )
    embedded = evaluate(*frames, ks=(1, 5))
    moved = evaluate(*frames, ks=(1, 5), engine="spark")
    assert isinstance(embedded.summary, pd.DataFrame) and not isinstance(moved.summary, pd.DataFrame)
    assert _rows(embedded.summary) == [tuple(row) for row in moved.summary.collect()]
    with pytest.raises(ConfigError, match="engine='local' evaluates pandas, Polars or Arrow tables"):
        evaluate(moved.per_query, moved.per_query, engine="local")


def test_slices_of_pandas_frames_are_the_spark_engines(spark: SparkSession) -> None:
    """slices= on the embedded engine, from query metadata and from the results' own column: the
    Spark engine's rows to the bit; a query with two values of a slice is refused alike."""
    results, judgments = generated(4)
    queries = sorted({row[1] for row in results})
    metadata = pd.DataFrame({"query_id": queries, "locale": [["de", "en", None][i % 3] for i in range(len(queries))]})
    metadata["bucket"] = [i % 2 for i in range(len(queries))]
    frames = (
        pd.DataFrame(judgments, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(results, columns=["run_id", "query_id", "doc_id", "score"]),
    )
    options = {"ks": (1, 5), "measures": ["P.5", "map"], "slices": ["locale", "bucket"]}
    embedded = evaluate(*frames, query_metadata=metadata, **options)
    on_spark = evaluate(
        *(spark.createDataFrame(frame) for frame in frames), query_metadata=spark.createDataFrame(metadata), **options
    )
    assert on_spark.slices is not None and embedded.slices is not None
    assert _rows(embedded.slices) == [tuple(row) for row in on_spark.slices.collect()]
    assert len(embedded.evaluation.slices) > 0
    moved = evaluate(*frames, query_metadata=metadata, engine="spark", **options)  # the frames to the session
    assert moved.slices is not None and [tuple(row) for row in moved.slices.collect()] == _rows(embedded.slices)
    # From the results themselves: a column that differs within a query is refused on both.
    tagged = frames[1].assign(device=["phone" if i % 2 else "desktop" for i in range(len(frames[1]))])
    for frame in (tagged, spark.createDataFrame(tagged)):
        judged = frames[0] if isinstance(frame, pd.DataFrame) else spark.createDataFrame(frames[0])
        with pytest.raises(InputError, match="column 'device': .* queries have more than one value"):
            evaluate(judged, frame, slices=["device"])
