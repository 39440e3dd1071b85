"""A tiny, obviously right NDCG in plain Python: the rules of the README, nothing clever."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence


def gain(relevance: int, kind: str, table: dict[int, float] | None = None) -> float:
    if relevance < 0:
        return 0.0
    if table and relevance in table:
        return table[relevance]
    if relevance == 0:
        return 0.0
    return float(relevance) if kind == "linear" else 2.0**relevance - 1.0


def dcg(gains: Sequence[float], k: int | None) -> float:
    top = gains if k is None else gains[:k]
    return sum(g / math.log2(position + 1) for position, g in enumerate(top, start=1))


def ndcg(
    results: Iterable[tuple[str, str, str, float]],
    judgments: Iterable[tuple[str, str, int]],
    ks: Sequence[int],
    kind: str = "linear",
    complete: bool = False,
    table: dict[int, float] | None = None,
    judged_only: bool = False,
    max_depth: int | None = None,
) -> dict[tuple[str, str, int | None], float]:
    """(run, query, k) -> NDCG; k None is the uncut ndcg. results are (run, query, doc, score).
    table: a gain per grade; judged_only: drop unjudged and negatively graded documents from the
    ranked list (after the max_depth cut), as trec_eval -J does."""
    values = {}
    for run, query, ranked, judged in ranked_lists(results, judgments, complete, judged_only, max_depth):
        # An unjudged document gains 0, whatever a table gives grade 0.
        gains = [gain(judged[doc], kind, table) if doc in judged else 0.0 for doc in ranked]
        ideal = sorted((gain(rel, kind, table) for rel in judged.values()), reverse=True)
        for k in [*ks, None]:
            best = dcg(ideal, k)
            values[(run, query, k)] = dcg(gains, k) / best if best > 0 else 0.0
    return values


def ranked_lists(
    results: Iterable[tuple[str, str, str, float]],
    judgments: Iterable[tuple[str, str, int]],
    complete: bool,
    judged_only: bool,
    max_depth: int | None,
) -> Iterator[tuple[str, str, list[str], dict[str, int]]]:
    """(run, query, its documents in trec_eval's order, the query's judgments) for every list
    scored: retrieved and judged, or with complete every judged query of every run. The list is
    cut at max_depth, then with judged_only keeps the judged documents graded >= 0 (-J)."""
    labels: dict[str, dict[str, int]] = defaultdict(dict)
    for query, doc, relevance in judgments:
        labels[query][doc] = relevance
    lists: dict[str, dict[str, list[tuple[float, str]]]] = defaultdict(lambda: defaultdict(list))
    for run, query, doc, score in results:
        lists[run][query].append((score, doc))
    for run, by_query in lists.items():
        for query in set(labels) if complete else set(by_query) & set(labels):
            # score descending, then doc_id descending in byte order
            ranked = sorted(by_query.get(query, []), key=lambda sd: (sd[0], sd[1].encode()), reverse=True)
            ranked = ranked[:max_depth] if max_depth is not None else ranked
            if judged_only:
                ranked = [(score, doc) for score, doc in ranked if labels[query].get(doc, -1) >= 0]
            yield run, query, [doc for _, doc in ranked], labels[query]


def binary(
    results: Iterable[tuple[str, str, str, float]],
    judgments: Iterable[tuple[str, str, int]],
    measures: Sequence[tuple[str, int | None]],
    level: int = 1,
    complete: bool = False,
    judged_only: bool = False,
    max_depth: int | None = None,
) -> dict[tuple[str, str, str, int | None], float]:
    """(run, query, measure, k) -> trec_eval's binary measures, as their definitions read: a
    document is relevant when judged with a grade >= level; R is the query's number of relevant
    documents. measures are (name, k) pairs, k None for a measure without cutoff."""
    values = {}
    for run, query, ranked, judged in ranked_lists(results, judgments, complete, judged_only, max_depth):
        grades = [judged.get(doc) for doc in ranked]
        relevant = [grade is not None and grade >= level for grade in grades]
        total = sum(grade >= level for grade in judged.values())
        nonrelevant = sum(0 <= grade < level for grade in judged.values())
        for name, k in measures:
            values[(run, query, name, k)] = _measure(name, k, relevant, grades, level, total, nonrelevant)
    return values


def _measure(
    name: str, k: int | None, relevant: list[bool], grades: list[int | None], level: int, total: int, nonrel: int
) -> float:
    top = relevant if k is None else relevant[:k]
    found = sum(top)
    if name == "P":
        return found / k if k else 0.0
    if name == "recall":
        return found / total if total else 0.0
    if name == "success":
        return 1.0 if found else 0.0
    if name in ("map", "map_cut"):
        precisions = [sum(top[:i]) / i for i, hit in enumerate(top, start=1) if hit]
        return sum(precisions) / total if total else 0.0
    if name == "recip_rank":
        return next((1.0 / i for i, hit in enumerate(relevant, start=1) if hit), 0.0)
    if name == "Rprec":
        return sum(relevant[:total]) / total if total else 0.0
    if name == "bpref":
        # each relevant document loses the share of judged non-relevant ones ranked above it,
        # counting at most R of them; unjudged and negatively graded documents are skipped
        score, above = 0.0, 0
        for grade in grades:
            if grade is None or grade < 0:
                continue
            if grade >= level:
                score += 1.0 - min(above, total) / min(total, nonrel) if above else 1.0
            else:
                above += 1
        return score / total if total else 0.0
    raise ValueError(name)


def _lround(value: float) -> int:
    """C's lround for the non-negative values here: halves away from zero."""
    return int(math.floor(value + 0.5))


def _iprec(flags: Sequence[bool], relevant: int, recall: float) -> float:
    """trec_eval 10.0's m_iprec_at_recall.c, as its loop runs: from the list's end, the highest
    precision so far, read when the running count of relevant documents reaches the level's."""
    found = sum(flags)
    cut = _lround(recall * relevant)
    if cut > found or not flags:
        return 0.0
    best, so_far = found / len(flags), found
    for i in range(len(flags), 0, -1):
        if so_far == 0:
            break
        best = max(best, so_far / i)
        if flags[i - 1]:
            if so_far == cut:
                return best
            so_far -= 1
    return best


def trec_eval_extras(
    results: Iterable[tuple[str, str, str, float]],
    judgments: Iterable[tuple[str, str, int]],
    level: int = 1,
    complete: bool = False,
    judged_only: bool = False,
    max_depth: int | None = None,
) -> dict[tuple[str, str, str], float]:
    """(run, query, trec_eval's printed name) -> value of unj_5,10,20, rbp, rbp_resid,
    iprec_at_recall_* and 11pt_avg: the measures pytrec_eval lacks, or computes with trec_eval 9's
    rule (iprec_at_recall's levels as (long)(x * R + 0.9), where 10.0 rounds)."""
    levels = [i / 10 for i in range(11)]
    values = {}
    for run, query, ranked, judged in ranked_lists(results, judgments, complete, judged_only, max_depth):
        grades = [judged.get(doc) for doc in ranked]
        relevant = sum(1 for grade in judged.values() if grade >= level)
        flags = [grade is not None and grade >= level for grade in grades]
        for k in (5, 10, 20):
            unjudged = sum(1 for grade in grades[:k] if grade is None or grade < 0)
            values[(run, query, f"unj_{k}")] = unjudged / k
        top = max([grade for grade in judged.values() if grade >= 0], default=0)
        scale = top if top > 1 else 1
        p = 0.9
        values[(run, query, "rbp")] = (1 - p) * sum(
            (grade / scale) * p**i for i, grade in enumerate(grades) if grade is not None and grade > 0
        )
        unjudged_weight = sum(p**i for i, grade in enumerate(grades) if grade is None or grade < 0)
        any_unjudged = any(grade is None or grade < 0 for grade in grades)
        values[(run, query, "rbp_resid")] = p ** len(grades) + (1 - p) * unjudged_weight if any_unjudged else 0.0
        points = [_iprec(flags, relevant, recall) for recall in levels]
        for recall, point in zip(levels, points, strict=True):
            values[(run, query, f"iprec_at_recall_{recall:.2f}")] = point
        values[(run, query, "11pt_avg")] = sum(points) / len(points)
    return values
