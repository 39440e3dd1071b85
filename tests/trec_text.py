"""Test helpers: trec_eval's text formats as canonical DataFrames, and its expected outputs."""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession

from ndcg_spark import columns as c
from ndcg_spark.measures import BY_NAME, family_of
from tests.conftest import rows_frame

JUDGMENTS_DDL = "query_id string, doc_id string, relevance bigint"
RESULTS_DDL = "run_id string, query_id string, doc_id string, score double, rank bigint"


def qrels_rows(path: str) -> list[tuple[str, str, int]]:
    """(query_id, doc_id, relevance) of a qrels file."""
    rows = []
    with open(path) as handle:
        for line in handle:
            query, _, doc, rel = line.split()
            rows.append((query, doc, int(rel)))
    return rows


def run_rows(path: str) -> list[tuple[str, str, str, float, int]]:
    """(run_id, query_id, doc_id, score, rank) of a run file."""
    rows = []
    with open(path) as handle:
        for line in handle:
            # trec_eval ignores anything after the sixth field (results.trunc has such lines).
            query, _, doc, rank, score, run_id = line.split()[:6]
            rows.append((run_id, query, doc, float(score), int(rank)))
    return rows


def qrels(spark: SparkSession, path: str) -> DataFrame:
    return rows_frame(spark, qrels_rows(path), JUDGMENTS_DDL)


def run(spark: SparkSession, path: str) -> DataFrame:
    return rows_frame(spark, run_rows(path), RESULTS_DDL)


# trec_eval -m all_trec's expected outputs: expected file, qrels, results, complete (-c), level (-l).
ALL_TREC_CASES = [
    ("out.test.aq", "qrels.test", "results.test", False, 1),
    ("out.test.aqc", "qrels.test", "results.trunc", True, 1),
    ("out.test.aql", "qrels.rel_level", "results.test", False, 2),
]
# out.test.meas_params's measures, as trec_eval's test writes them (its ndcg's gains apart).
MEASURE_PARAMETERS = [
    "iprec_at_recall..10,.20,.25,.75,.50",
    "P.5,7,3",
    "recall.20,2000",
    "Rprec_mult.5.0,0.2,0.35",
    "utility.2,-1,0,0",
    "11pt_avg..25,.5,.75",
    "success.2,5,20",
    "ndcg_cut.10,20,23",
]


def supported_lines(path: str) -> dict[tuple[str, str], float]:
    """(printed measure, query or 'all') -> value, for the numeric lines of supported measures."""
    found = {}
    with open(path) as handle:
        for line in handle:
            measure, query, value = line.split()
            family, _ = family_of(measure)
            declaration = BY_NAME.get(family if family in BY_NAME else measure.rsplit("_", 1)[0])
            if declaration is None or not declaration.supported:
                continue
            found[(measure, query)] = float(value)
    return found


def printed(row: dict) -> str:
    """The name trec_eval prints for a report row's measure and cutoff."""
    return row[c.MEASURE] if row[c.K] is None else f"{row[c.MEASURE]}_{row[c.K]}"


def mismatches(expected: dict[tuple[str, str], float], got: dict[tuple[str, str], float]) -> dict:
    """The expected lines ours lacks or differs from at trec_eval's 4 decimals."""
    return {key: (got.get(key), value) for key, value in expected.items() if key not in got or round(got[key], 4) != value}


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


MEAS_PARAMS = [
    "-q",
    "-mndcg.1=3,2=9,4=4.5",
    "-mndcg_cut.10,20,23.4",
    "-m",
    "iprec_at_recall..10,.20,.25,.75,.50",
    "-m",
    "P.5,7,3",
    "-m",
    "recall.20,2000",
    "-m",
    "Rprec_mult.5.0,0.2,0.35",
    "-m",
    "utility.2,-1,0,0",
    "-m",
    "11pt_avg..25,.5,.75",
    "-m",
    "success.2,5,20",
]
# trec_eval's test: expected output, and its arguments (files last).
TREC_EVAL_COMMANDS = [
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "all_trec", "-q", "-mrelstring.20", "-l2"], "qrels.rel_level", "results.test"),
    ("out.test.meas_params", MEAS_PARAMS, "qrels.test", "results.test"),
]
