"""Canonical column names: inputs are renamed to these once, at load time."""

from __future__ import annotations

QUERY_ID = "query_id"
DOC_ID = "doc_id"
RELEVANCE = "relevance"
SCORE = "score"
RUN_ID = "run_id"
RANK = "rank"
EVAL_DATE = "eval_date"

# Intermediate columns.
GAIN = "gain"
IS_JUDGED = "is_judged"
POSITION = "position"
CUM_DCG = "cum_dcg"
IDEAL_POSITION = "ideal_position"
CUM_IDCG = "cum_idcg"
# With several results inputs: the index of the input a row came from.
INPUT = "_input"

# Report columns.
MEASURE = "measure"
K = "k"
NDCG = "ndcg"
# Every row's value of its measure (on NDCG's rows, equal to NDCG).
VALUE = "value"
DCG = "dcg"
IDCG = "idcg"
NUM_RETRIEVED = "num_retrieved"
NUM_JUDGED = "num_judged"
NUM_RELEVANT = "num_relevant"
NUM_RELEVANT_RETRIEVED = "num_relevant_retrieved"
NUM_JUDGED_RETRIEVED = "num_judged_retrieved"
JUDGED_AT_K = "judged_at_k"
NUM_QUERIES = "num_queries"
# How the values were computed (gain, custom gains, judged-only, depth cut): Options.variant.
VARIANT = "variant"

# Values of the measure column: a cutoff row has k set, the uncut row has k NULL.
MEASURE_CUT = "ndcg_cut"
MEASURE_UNCUT = "ndcg"


def cutoff_order(k: int | None) -> tuple[bool, int]:
    """Sort key of a cutoff: k ascending, the uncut measure (k NULL) last, as Spark orders
    k ASC NULLS LAST."""
    return (k is None, k or 0)


def at_cutoff(name: str, k: int | None) -> str:
    """The column of a value at cutoff k in a wide row (`dcg_10`), or uncut (`dcg_all`)."""
    return f"{name}_all" if k is None else f"{name}_{k}"
