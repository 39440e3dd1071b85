"""The embedded engine's pass: per_query's rows from Arrow tables, in-process, equal bit for bit to
the Spark engine's (scoring/dcg.py's per_query_rows), from the same plan and the same formulas.

Which (run, query) pairs are scored is the Spark engine's rule: a query judged and retrieved by
the run; with complete (trec_eval -c), every judged query for every run that retrieved anything,
a query the run lacks scoring as an empty list."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ndcg_spark import columns as c
from ndcg_spark.arrays import codes, merged, shared_codes
from ndcg_spark.checks.tables import IdCodes
from ndcg_spark.measures import NDCG_MEASURES, Measure, declaration_of
from ndcg_spark.scoring.embedded.ingredients import ArrayIngredients, IdealRows, RankedRows
from ndcg_spark.scoring.embedded.lists import (
    DOC_CODE,
    QUERY_CODE,
    RUN_CODE,
    Ints,
    Lists,
    condensed,
    discount,
    gains_of,
    ideal_lists,
    offsets,
    ranked_lists,
    running,
)
from ndcg_spark.scoring.plan import ScoringPlan

# A table lookup of judgments by (query, doc) key while its slots are at most this many per input
# row; past that, a binary search.
_LOOKUP_SLOTS_PER_ROW = 4

PER_QUERY_SCHEMA = pa.schema(
    [
        (c.RUN_ID, pa.string()),
        (c.QUERY_ID, pa.string()),
        (c.MEASURE, pa.string()),
        (c.K, pa.int32()),
        (c.NDCG, pa.float64()),
        (c.DCG, pa.float64()),
        (c.IDCG, pa.float64()),
        (c.NUM_RETRIEVED, pa.int64()),
        (c.NUM_JUDGED, pa.int64()),
        (c.NUM_RELEVANT, pa.int64()),
        (c.NUM_RELEVANT_RETRIEVED, pa.int64()),
        (c.JUDGED_AT_K, pa.float64()),
        (c.VARIANT, pa.string()),
        (c.VALUE, pa.float64()),
    ]
)


def coded(judgments: pa.Table, results: pa.Table, ids: IdCodes | None = None) -> tuple[pa.Table, pa.Table]:
    """Both inputs with their ids' codes: query and doc ids in one code space for both (from the
    checks' codes when given: their distinct values alone are ranked together)."""
    if ids is None:
        judged_query, retrieved_query = shared_codes(judgments[c.QUERY_ID], results[c.QUERY_ID])
        judged_doc, retrieved_doc = shared_codes(judgments[c.DOC_ID], results[c.DOC_ID])
        run = codes(results[c.RUN_ID])
    else:
        judged_query, retrieved_query = merged(ids.judged_query, ids.query)
        judged_doc, retrieved_doc = merged(ids.judged_doc, ids.doc)
        run = ids.run.codes
    judgments = judgments.append_column(QUERY_CODE, pa.array(judged_query)).append_column(DOC_CODE, pa.array(judged_doc))
    results = (
        results.append_column(RUN_CODE, pa.array(run))
        .append_column(QUERY_CODE, pa.array(retrieved_query))
        .append_column(DOC_CODE, pa.array(retrieved_doc))
    )
    return judgments, results


def judgment_of(judgments: pa.Table, results: pa.Table) -> Ints:
    """Each result's judgment (its index among the judgments), -1 where unjudged: (query, doc)
    codes as one key, looked up in a table indexed by key where the key space is small beside the
    rows (a lookup a row), else searched among the judgments' sorted keys."""
    columns = [table[name].to_numpy(zero_copy_only=False) for table in (judgments, results) for name in (QUERY_CODE, DOC_CODE)]
    judged_query, judged_doc, retrieved_query, retrieved_doc = columns
    docs = int(max(judged_doc.max(initial=0), retrieved_doc.max(initial=0))) + 1
    judged, retrieved = judged_query * docs + judged_doc, retrieved_query * docs + retrieved_doc
    space = int(max(judged.max(initial=0), retrieved.max(initial=0))) + 1
    if space <= _LOOKUP_SLOTS_PER_ROW * (len(judged) + len(retrieved)):
        lookup = np.full(space, -1, dtype=np.int64)
        lookup[judged] = np.arange(len(judged), dtype=np.int64)
        return lookup[retrieved]
    if len(judged) == 0:
        return np.full(len(retrieved), -1, dtype=np.int64)
    order = np.argsort(judged).astype(np.int64)  # the keys are distinct: the checks refused copies
    place = np.minimum(np.searchsorted(judged[order], retrieved), len(judged) - 1)
    return np.where(judged[order[place]] == retrieved, order[place], -1)


@dataclass(frozen=True)
class Scored:
    """What the embedded pass computed: per_query's rows (a pair's measures in turn, in
    `measures`' order, pairs by run then query), and per run the queries it retrieved and of those
    the judged ones; judged_queries: the queries judged."""

    per_query: pa.Table
    measures: list[Measure]
    retrieved: dict[str, tuple[int, int]]
    judged_queries: int


def per_query(judgments: pa.Table, results: pa.Table, plan: ScoringPlan) -> pa.Table:
    """per_query's rows (PER_QUERY_SCHEMA) of checked inputs (see score)."""
    return score(judgments, results, plan).per_query


def score(judgments: pa.Table, results: pa.Table, plan: ScoringPlan, ids: IdCodes | None = None) -> Scored:
    """The embedded pass over checked inputs: judgments with query_id, doc_id and relevance,
    results with run_id, query_id, doc_id and score (and rank), no duplicates; ids: the checks'
    codes of their ids, when at hand."""
    judgments, results = coded(judgments, results, ids)
    relevance = judgments[c.RELEVANCE].to_numpy(zero_copy_only=False).astype(np.float64)
    gain = gains_of(relevance, plan.gain, plan.gains)
    level, by_gain = plan.relevance_level, plan.by_gain

    judgment_of_result = judgment_of(judgments, results)
    lists = ranked_lists(results, plan.order_by, plan.max_depth)
    judgment = judgment_of_result[lists.source]
    if plan.judged_only:
        lists = condensed(lists, (judgment >= 0) & (_at(relevance, judgment, np.nan) >= 0))
        judgment = judgment_of_result[lists.source]

    ideal, ideal_order = ideal_lists(judgments, gain)
    queries = _Queries.of(ideal, gain[ideal_order], relevance[ideal_order], level, by_gain)
    pair_list, pair_run, pair_query = _pairs(lists, ideal, plan.complete)

    # The scored pairs' rows, gathered in pair order: a run lacking a query has none.
    has = pair_list >= 0
    lengths = np.where(has, lists.lengths[np.where(has, pair_list, 0)], 0).astype(np.int64)
    starts = offsets(lengths)
    source = np.repeat(_at(lists.starts, pair_list, 0), lengths) + np.arange(int(lengths.sum())) - np.repeat(starts, lengths)
    row_judgment = judgment[source]
    grade = _at(relevance, row_judgment, np.nan)
    row_gain = _at(gain, row_judgment, 0.0)
    judged = row_judgment >= 0
    pair_of_row = np.repeat(pair_query, lengths)
    ranked = RankedRows(
        starts,
        lengths,
        lists.position[source],
        row_gain,
        grade,
        judged,
        relevant=row_gain > 0 if by_gain else grade >= level,
        nonrelevant=judged & ~(grade >= level) & (grade >= 0),
        negative=judged & (grade < 0),
        total=queries.relevant[pair_of_row],
        nonrelevant_total=queries.nonrelevant[pair_of_row],
    )
    ideal_rows = IdealRows(
        ideal.starts[pair_query],
        ideal.lengths[pair_query],
        queries.gain,
        queries.cum_idcg,
        queries.cum_cost,
        queries.relevant[pair_query],
        queries.positive[pair_query],
        queries.max_grade[pair_query],
    )
    ingredients = ArrayIngredients(ranked, ideal_rows, plan.trec_eval_version)
    measures = list(plan.scored)
    long = _long_rows(
        pair_run,
        ideal.keys[c.QUERY_ID].take(pa.array(pair_query)),
        ideal.lengths[pair_query],
        ingredients,
        measures,
        plan.variant,
    )
    return Scored(long, measures, _retrieved(lists, ideal), len(ideal.starts))


def _retrieved(lists: Lists, ideal: Lists) -> dict[str, tuple[int, int]]:
    """Per run, the queries it retrieved and of those the judged ones."""
    runs = lists.keys[c.RUN_ID].to_numpy(zero_copy_only=False).astype(str)
    judged = _index_of(lists.keys[QUERY_CODE], ideal.keys[QUERY_CODE]) >= 0
    names, run = np.unique(runs, return_inverse=True)
    queries = np.bincount(run, minlength=len(names))
    judged_queries = np.bincount(run[judged], minlength=len(names))
    return {str(name): (int(queries[i]), int(judged_queries[i])) for i, name in enumerate(names)}


def _index_of(codes_: pa.ChunkedArray, among: pa.ChunkedArray) -> Ints:
    """The index of each code among `among` (distinct codes), -1 where absent."""
    wanted, known = codes_.to_numpy(zero_copy_only=False), among.to_numpy(zero_copy_only=False)
    index = np.full(int(max(wanted.max(initial=0), known.max(initial=0))) + 1, -1, dtype=np.int64)
    index[known] = np.arange(len(known), dtype=np.int64)
    return index[wanted]


def _at(values: np.ndarray, index: Ints, missing: float) -> np.ndarray:
    """values[index], `missing` where index is -1."""
    found = index >= 0
    return np.where(found, values[np.where(found, index, 0)], missing)


@dataclass(frozen=True)
class _Queries:
    """Per ideal row (every query's, in the ideal lists' order): its gain, the running ideal DCG and
    the running sum of max(gain, 1) over gains > 0; per judged query: R at the level, the count of
    gains > 0, N (judged non-relevant at the level), the highest grade."""

    gain: np.ndarray
    cum_idcg: np.ndarray
    cum_cost: np.ndarray
    relevant: Ints
    positive: Ints
    nonrelevant: Ints
    max_grade: np.ndarray

    @classmethod
    def of(cls, ideal: Lists, gain: np.ndarray, relevance: np.ndarray, level: int, by_gain: bool) -> _Queries:
        query_of, count = ideal.list_of_rows(), len(ideal.starts)

        def counted(rows: np.ndarray) -> Ints:
            return np.bincount(query_of[rows], minlength=count).astype(np.int64)

        max_grade = np.full(count, -np.inf)
        np.maximum.at(max_grade, query_of, relevance)
        return cls(
            gain,
            running(discount(gain, ideal.position), ideal.starts, ideal.lengths),
            running(np.where(gain > 0, np.maximum(gain, 1.0), 0.0), ideal.starts, ideal.lengths),
            counted(gain > 0 if by_gain else relevance >= level),
            counted(gain > 0),
            counted((relevance < level) & (relevance >= 0)),
            max_grade,
        )


def _pairs(lists: Lists, ideal: Lists, complete: bool) -> tuple[Ints, np.ndarray, Ints]:
    """The scored pairs, by run then query in byte order: each one's ranked list (-1 when the run
    lacks the query), run and judged query (its index among the ideal lists)."""
    list_query = _index_of(lists.keys[QUERY_CODE], ideal.keys[QUERY_CODE])
    run_names, list_run = np.unique(lists.keys[c.RUN_ID].to_numpy(zero_copy_only=False).astype(str), return_inverse=True)
    judged_queries = len(ideal.starts)
    if complete:
        found = np.full(len(run_names) * judged_queries, -1, dtype=np.int64)
        scored = np.flatnonzero(list_query >= 0)
        found[list_run[scored] * judged_queries + list_query[scored]] = scored
        pair_run = np.repeat(np.arange(len(run_names)), judged_queries)
        pair_query = np.tile(np.arange(judged_queries, dtype=np.int64), len(run_names))
        pair_list = found
    else:
        pair_list = np.flatnonzero(list_query >= 0).astype(np.int64)
        pair_run, pair_query = list_run[pair_list], list_query[pair_list]
    order = np.lexsort([ideal.keys[QUERY_CODE].to_numpy(zero_copy_only=False)[pair_query], pair_run])
    return pair_list[order], run_names[pair_run[order]], pair_query[order]


def _long_rows(
    runs: np.ndarray,
    queries: pa.Array,
    num_judged: Ints,
    ingredients: ArrayIngredients,
    measures: list[Measure],
    variant: str,
) -> pa.Table:
    """A row per (pair, measure), pairs in (run, query) order, measures in measured_rows' order."""
    pairs = len(runs)
    columns: dict[str, list[np.ndarray]] = {name: [] for name in PER_QUERY_SCHEMA.names}
    none = np.full(pairs, np.nan)

    def each(term: object) -> np.ndarray:
        return none if term is None else np.broadcast_to(np.asarray(term, dtype=np.float64), (pairs,))

    with np.errstate(all="ignore"):
        for measure in measures:
            declaration = declaration_of(measure)
            assert declaration.value is not None, f"{measure.name} is not supported"
            value = each(declaration.value(ingredients, measure))
            details = declaration.details(ingredients, measure)
            columns[c.MEASURE].append(np.full(pairs, measure.reported, dtype=object))
            columns[c.K].append(np.full(pairs, -1 if measure.k is None else measure.k, dtype=np.int64))
            columns[c.NDCG].append(value if measure.name in NDCG_MEASURES else none)
            columns[c.DCG].append(each(details.dcg))
            columns[c.IDCG].append(each(details.ideal_dcg))
            columns[c.NUM_RELEVANT].append(each(details.relevant))
            columns[c.NUM_RELEVANT_RETRIEVED].append(each(details.relevant_retrieved))
            columns[c.JUDGED_AT_K].append(ingredients.judged_at(measure.k))
            columns[c.VALUE].append(value)
    count = len(measures)

    # Pair-major: a pair's rows together, in measures' order.
    def interleave(parts: list[np.ndarray]) -> np.ndarray:
        return np.stack(parts, axis=1).reshape(-1) if parts else np.zeros(0)

    k = interleave(columns[c.K])
    table = {
        c.RUN_ID: pa.array(np.repeat(runs, count), pa.string()),
        c.QUERY_ID: pc.take(queries, pa.array(np.repeat(np.arange(pairs), count))) if pairs else pa.array([], pa.string()),
        c.MEASURE: pa.array(interleave(columns[c.MEASURE]), pa.string()),
        c.K: pa.array(k, pa.int32(), mask=k < 0),
        c.NDCG: _doubles(interleave(columns[c.NDCG])),
        c.DCG: _doubles(interleave(columns[c.DCG])),
        c.IDCG: _doubles(interleave(columns[c.IDCG])),
        c.NUM_RETRIEVED: pa.array(np.repeat(ingredients.retrieved(), count), pa.int64()),
        c.NUM_JUDGED: pa.array(np.repeat(num_judged, count), pa.int64()),
        c.NUM_RELEVANT: pa.array(interleave(columns[c.NUM_RELEVANT]).astype(np.int64), pa.int64()),
        c.NUM_RELEVANT_RETRIEVED: pa.array(interleave(columns[c.NUM_RELEVANT_RETRIEVED]).astype(np.int64), pa.int64()),
        c.JUDGED_AT_K: _doubles(interleave(columns[c.JUDGED_AT_K])),
        c.VARIANT: pa.array(np.full(pairs * count, variant, dtype=object), pa.string()),
        c.VALUE: _doubles(interleave(columns[c.VALUE])),
    }
    return pa.table(table, schema=PER_QUERY_SCHEMA)


def _doubles(values: np.ndarray) -> pa.Array:
    """Doubles with NaN as NULL (the Spark engine's NULLs; no measure value is NaN)."""
    values = values.astype(np.float64)
    return pa.array(values, pa.float64(), mask=np.isnan(values))
