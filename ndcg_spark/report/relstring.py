"""trec_eval's relstring: the grades of each list's top N documents as text, one character each
(m_relstring.c): the grade 0-9, '>' above 9, '-' for a document not judged, '.' for one judged
below 0. Text, not a number, so it is not in per_query: trec_eval's printed report reads it from
here, one small query over the inputs, on the same order as the scoring."""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.options import ORDER_BY_SCORE
from ndcg_spark.report.trec_eval_lines import RELSTRING, RELSTRING_LENGTH
from ndcg_spark.scoring.ranking import ranking_order, window, with_tie_break

_ORDINAL = "_ordinal"
_POSITION = "_position"
_CHARACTER = "_character"


def _character(relevance: str) -> str:
    grade = f"CAST({relevance} AS BIGINT)"
    return (
        f"CASE WHEN {relevance} IS NULL THEN '-' WHEN {grade} > 9 THEN '>' WHEN {grade} >= 0 THEN CAST({grade} AS STRING)"
        " ELSE '.' END"
    )


def relstrings(
    judgments: DataFrame,
    results: DataFrame,
    pairs: DataFrame,
    length: int = RELSTRING_LENGTH,
    *,
    judged_only: bool = False,
    max_depth: int | None = None,
) -> DataFrame:
    """(run_id, query_id, relstring) for the (run, query) pairs trec_eval -q prints (`pairs`:
    run_id, query_id, the evaluated ones; with complete, -c, a judged query a run lacks prints an
    empty string): each list cut at max_depth (trec_eval -M), then with judged_only (-J) condensed
    to its judged documents graded 0 or more, then its first `length` documents' characters in
    rank order."""
    grades = judgments.select(c.QUERY_ID, c.DOC_ID, c.RELEVANCE)
    ranked = with_tie_break(results.select(c.RUN_ID, c.QUERY_ID, c.DOC_ID, c.SCORE)).join(grades, [c.QUERY_ID, c.DOC_ID], "left")
    order = window([c.QUERY_ID, c.RUN_ID], ranking_order(ORDER_BY_SCORE))
    listed = ranked.withColumn(_ORDINAL, F.expr(f"row_number() OVER ({order})"))
    if max_depth is not None:
        listed = listed.filter(F.col(_ORDINAL) <= max_depth)
    if judged_only:
        listed = listed.filter(F.col(c.RELEVANCE) >= 0)
    per_list = Window.partitionBy(c.QUERY_ID, c.RUN_ID).orderBy(_ORDINAL)
    top = listed.withColumn(_POSITION, F.row_number().over(per_list)).filter(F.col(_POSITION) <= length)
    characters = top.select(
        c.RUN_ID, c.QUERY_ID, F.struct(F.col(_POSITION), F.expr(_character(f"`{c.RELEVANCE}`")).alias(_CHARACTER)).alias("_cell")
    )
    texts = characters.groupBy(c.RUN_ID, c.QUERY_ID).agg(
        F.expr(f"array_join(transform(array_sort(collect_list(_cell)), x -> x.{_CHARACTER}), '') AS {RELSTRING}")
    )
    return pairs.join(texts, [c.RUN_ID, c.QUERY_ID], "left").fillna("", subset=[RELSTRING])
