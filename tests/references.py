"""Generated evaluations with every hard case, and pytrec_eval's NDCG of them: the references the
transforms and Connect tiers check against."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import ir_measures
import pytrec_eval

from ndcg_spark.measures import parse_measures

Results = list[tuple[str, str, str, float]]  # (run, query, doc, score)
Judgments = list[tuple[str, str, int]]  # (query, doc, grade)


def generated(seed: int) -> tuple[Results, Judgments]:
    """Two runs, 12 queries: scores with many ties, grades -1..3, an all-zero query, lists
    shorter and longer than every k, unjudged documents, a judged query no run retrieved."""
    rng = random.Random(seed)
    judgments, results = [], []
    for q in range(12):
        query = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(1, 14))]
        for doc in rng.sample(docs, k=max(1, len(docs) * 2 // 3)):
            judgments.append((query, doc, 0 if q == 3 else rng.choice([-1, 0, 0, 1, 2, 3])))
        if q == 11:
            continue
        for run in ("r1", "r2"):
            for doc in rng.sample(docs + ["u1", "u2"], k=rng.randint(1, len(docs) + 2)):
                results.append((run, query, doc, rng.choice([0.1, 0.2, 0.5, 1.0])))
    return results, judgments


def pytrec_ndcg(
    results: Results, judgments: Judgments, ks: Sequence[int], judged_only: bool = False
) -> dict[tuple[str, str, int | None], float]:
    """(run, query, k) -> pytrec_eval's ndcg_cut_k (k None: ndcg), for the queries it scores: those
    both judged and retrieved. pytrec_eval breaks score ties by doc_id descending, as trec_eval."""
    asked = {f"ndcg_cut.{','.join(map(str, ks))}", "ndcg"}
    return {
        (run, query, k): measured["ndcg" if k is None else f"ndcg_cut_{k}"]
        for run, query, measured in pytrec_evaluated(results, judgments, asked, 1, judged_only)
        for k in [*ks, None]
    }


def pytrec_values(
    results: Results,
    judgments: Judgments,
    measures: Sequence[tuple[str, int | None]],
    level: int = 1,
    judged_only: bool = False,
) -> dict[tuple[str, str, str, int | None], float]:
    """(run, query, measure, k) -> pytrec_eval's value of trec_eval's measure `name` (cut at k),
    with relevance level `level` (trec_eval -l), for the queries it scores."""
    asked = {name if k is None else f"{name}.{k}" for name, k in measures}
    return {
        (run, query, name, k): measured[name if k is None else f"{name}_{k}"]
        for run, query, measured in pytrec_evaluated(results, judgments, asked, level, judged_only)
        for name, k in measures
    }


def pytrec_evaluated(
    results: Results, judgments: Judgments, asked: set[str], level: int, judged_only: bool
) -> Iterator[tuple[str, str, dict[str, float]]]:
    """(run, query, pytrec_eval's values of the measures asked) for each query it scores."""
    qrels: dict[str, dict[str, int]] = {}
    for query, doc, grade in judgments:
        qrels.setdefault(query, {})[doc] = grade
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, asked, relevance_level=level, judged_docs_only_flag=judged_only)
    for run in sorted({row[0] for row in results}):
        ranked: dict[str, dict[str, float]] = {}
        for run_id, query, doc, score in results:
            if run_id == run:
                ranked.setdefault(query, {})[doc] = score
        for query, measured in evaluator.evaluate(ranked).items():
            yield run, query, measured


# Every ir_measures name --measure accepts that pytrec_eval computes; RR@k comes from ir_measures'
# msmarco provider, which orders tied scores its own way, so it is compared on untied scores.
IR_MEASURES_NAMES = [
    "nDCG@5",
    "NDCG@3",
    "nDCG",
    "P@3",
    "Precision@5",
    "R@5",
    "Recall@3",
    "AP",
    "MAP",
    "AP@5",
    "RR",
    "MRR",
    "Rprec",
    "RPrec",
    "Bpref",
    "BPref",
    "Success@3",
    "SetP",
    "SetR",
    "SetF",
    "SetAP",
    "SetRelP",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "NumQ",
    "IPrec@0.5",
    "infAP",
]
CUT_RR = ["RR@1", "RR@3", "MRR@10"]
# ir_measures' names of its own provider's measures (not pytrec_eval's), which break score ties by
# doc_id ascending: checked on untied scores.
OWN_PROVIDER = [*CUT_RR, "Judged@1", "Judged@5", "Judged@20", "Judged"]


def untied(results: Results) -> Results:
    """The same results with scores drawn anew, no two alike."""
    rng = random.Random(5)
    return [(run, query, doc, rng.random()) for run, query, doc, _ in results]


def ir_measures_values(results: Results, judgments: Judgments, names: list[str]) -> dict[tuple[str, str, str], float]:
    """(run, query, name) -> ir_measures' value of its measure `name`, for the queries judged and
    retrieved."""
    qrels: dict[str, dict[str, int]] = {}
    for query, doc, grade in judgments:
        qrels.setdefault(query, {})[doc] = grade
    found = {}
    for run in sorted({row[0] for row in results}):
        ranked: dict[str, dict[str, float]] = {}
        for run_id, query, doc, score in results:
            if run_id == run:
                ranked.setdefault(query, {})[doc] = score
        for name in names:
            for metric in ir_measures.iter_calc([ir_measures.parse_measure(name)], qrels, ranked):
                # ir_measures scores a judged query the run lacks as 0, as --complete does.
                if metric.query_id in qrels and metric.query_id in ranked:
                    found[(run, metric.query_id, name)] = float(metric.value)
    return found


def by_name(rows: dict[tuple[str, str, str, int | None], float], names: list[str]) -> dict[tuple[str, str, str], float]:
    """(run, query, name) -> value, of per_query rows keyed (run, query, measure, k), for each name
    --measure takes."""
    found = {}
    for name in names:
        (measure,) = parse_measures(name)
        for (run, query, reported, k), value in rows.items():
            if (reported, k) == (measure.reported, measure.k):
                found[(run, query, name)] = value
    return found
