"""trec_eval's relstring on the embedded engine: the grades of each list's top N documents as
text (m_relstring.c), from the same ranked lists the scoring reads (report/relstring.py is the
Spark engine's)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ndcg_spark import columns as c
from ndcg_spark.options import ORDER_BY_SCORE
from ndcg_spark.scoring.embedded.lists import condensed, ranked_lists
from ndcg_spark.scoring.embedded.per_query import coded, judgment_of

_TOP_GRADE = 9  # higher grades print as '>'


def _character(grade: float) -> str:
    """A document's character: '-' not judged, '.' judged below 0, '>' above 9, else its grade."""
    if np.isnan(grade):
        return "-"
    whole = int(grade)
    return ">" if whole > _TOP_GRADE else "." if whole < 0 else str(whole)


def relstrings(
    judgments: pa.Table, results: pa.Table, length: int, *, judged_only: bool = False, max_depth: int | None = None
) -> dict[tuple[str, str], str]:
    """(run_id, query_id) -> the relstring of each retrieved list of checked inputs: cut at
    max_depth (trec_eval -M), then with judged_only (-J) its judged documents graded 0 or more,
    then its first `length` documents' characters in rank order."""
    judgments, results = coded(judgments, results)
    relevance = judgments[c.RELEVANCE].to_numpy(zero_copy_only=False).astype(np.float64)
    found = judgment_of(judgments, results)
    lists = ranked_lists(results, ORDER_BY_SCORE, max_depth)
    grade_of_result = np.where(found >= 0, relevance[np.maximum(found, 0)], np.nan)
    if judged_only:
        lists = condensed(lists, grade_of_result[lists.source] >= 0)
    grade_of_row = grade_of_result[lists.source]
    runs, queries = lists.keys[c.RUN_ID].to_pylist(), lists.keys[c.QUERY_ID].to_pylist()
    texts = {}
    for i, (start, size) in enumerate(zip(lists.starts.tolist(), lists.lengths.tolist(), strict=True)):
        grades = grade_of_row[start : start + min(size, length)]
        texts[(str(runs[i]), str(queries[i]))] = "".join(_character(grade) for grade in grades)
    return texts
