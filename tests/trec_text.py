"""Test helpers: trec_eval's text formats as canonical DataFrames, and its expected outputs."""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession

from tests.conftest import rows_frame

JUDGMENTS_DDL = "query_id string, doc_id string, relevance bigint"
RESULTS_DDL = "run_id string, query_id string, doc_id string, score double, rank bigint"


def qrels(spark: SparkSession, path: str) -> DataFrame:
    rows = []
    with open(path) as handle:
        for line in handle:
            query, _, doc, rel = line.split()
            rows.append((query, doc, int(rel)))
    return rows_frame(spark, rows, JUDGMENTS_DDL)


def run(spark: SparkSession, path: str) -> DataFrame:
    rows = []
    with open(path) as handle:
        for line in handle:
            # trec_eval ignores anything after the sixth field (results.trunc has such lines).
            query, _, doc, rank, score, run_id = line.split()[:6]
            rows.append((run_id, query, doc, float(score), int(rank)))
    return rows_frame(spark, rows, RESULTS_DDL)


def expected(path: str, measures: set[str]) -> dict[tuple[str, str], float]:
    """(measure, query_id or 'all') -> value, for the measures asked."""
    values: dict[tuple[str, str], float] = {}
    with open(path) as handle:
        for line in handle:
            measure, query, value = line.split()
            if measure in measures:
                values[(measure, query)] = float(value)
    return values


def ndcg_measures(path: str) -> dict[str, int | None]:
    """The ndcg measures an expected file holds: 'ndcg_cut_10' -> 10, 'ndcg' -> None."""
    found: dict[str, int | None] = {}
    with open(path) as handle:
        for line in handle:
            measure = line.split()[0]
            if measure == "ndcg":
                found[measure] = None
            elif measure.startswith("ndcg_cut_"):
                found[measure] = int(measure.removeprefix("ndcg_cut_"))
    return found


_UNCUT = ("map", "Rprec", "bpref", "recip_rank")
_CUT = ("P", "recall", "map_cut", "success")


def binary_measures(path: str) -> dict[str, tuple[str, int | None]]:
    """The binary measures (P, recall, map, map_cut, recip_rank, Rprec, success, bpref) an
    expected file holds: 'P_5' -> ('P', 5), 'map' -> ('map', None)."""
    found: dict[str, tuple[str, int | None]] = {}
    with open(path) as handle:
        for line in handle:
            measure = line.split()[0]
            name, _, k = measure.rpartition("_")
            if measure in _UNCUT:
                found[measure] = (measure, None)
            elif name in _CUT and k.isdigit():
                found[measure] = (name, int(k))
    return found
