"""trec_eval -q's printed report as text lines, from rows in memory: what report/trec_eval.py
builds with Spark, digit for digit, for the embedded engine. Python's printf is C's, trec_eval's
own: the value is rounded once, from its binary value, to 4 places."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ndcg_spark import columns as c
from ndcg_spark.measures import catalogue

ALL_QUERIES = "all"
RUNID = "runid"
RELSTRING = "relstring"
RELSTRING_LENGTH = 10  # trec_eval's relstring: the top 10 documents, unless -m relstring.N
_NAMES = [declaration.name for declaration in catalogue.CATALOGUE]
_PLACE = {name: i + 1 for i, name in enumerate(_NAMES)}
# The declaration's name of a reported measure name: iprec_at_recall_0.10 -> iprec_at_recall,
# ndcg_1=3,2=9 -> ndcg (report/trec_eval.py's, the same pattern).
# Shared with report/trec_eval.py's Spark SQL: the text of one pattern (Python's re and Java's alike).
FAMILY_PATTERN = "^(" + "|".join(sorted(_NAMES, key=len, reverse=True)) + r")(_[-0-9.,=a-z]+)?$"
_FAMILY = re.compile(FAMILY_PATTERN)
_WHOLE = {declaration.name for declaration in catalogue.CATALOGUE if declaration.whole}
_SUMMARY_ONLY = {declaration.name for declaration in catalogue.CATALOGUE if not declaration.per_query_printed}

Key = tuple[int, str, int, str, tuple[bool, int]]


def _place(measure: str) -> int:
    """Where trec_eval prints a measure among the others; 0 for a name it does not know."""
    matched = _FAMILY.match(measure)
    return _PLACE.get(matched[1], 0) if matched else 0


def _name(measure: str, k: int | None) -> str:
    return measure if k is None else f"{measure}_{k}"


def _line(measure: str, k: int | None, query: str, value: float) -> str:
    name = _name(measure, k)
    if measure in _WHOLE:
        return "%-22s\t%s\t%d" % (name, query, int(value))  # noqa: UP031 - trec_eval's printf formats
    return "%-22s\t%s\t%.4f" % (name, query, value)  # noqa: UP031


def _key(block: int, query: str, measure: str, k: int | None) -> Key:
    return (block, query, _place(measure), measure, (k is not None, k or 0))


def printed_lines(
    per_query: Iterable[Mapping[str, Any]],
    summary: Iterable[Mapping[str, Any]],
    relstrings: Mapping[str, str] | None = None,
    relstring_name: str = "relstring",
    *,
    summary_lines: bool = True,
    run_id: str | None = None,
) -> list[str]:
    """One run's lines in trec_eval's order: each query's values (queries in byte order, measures in
    trec_eval's order, parameters and cutoffs ascending; not those trec_eval prints for 'all'
    only), then the 'all' lines, the run's name first when run_id is given. Rows carry query_id
    (per_query), measure, k and value; relstrings: query_id -> its text, printed per query."""
    keyed: list[tuple[Key, str]] = []
    for row in per_query:
        measure, k, query = row[c.MEASURE], row[c.K], row[c.QUERY_ID]
        if measure in _SUMMARY_ONLY:
            continue
        keyed.append((_key(0, query, measure, k), _line(measure, k, query, row[c.VALUE])))
    for query, text in (relstrings or {}).items():
        keyed.append((_key(0, query, relstring_name, None), "%-22s\t%s\t'%s'" % (relstring_name, query, text)))  # noqa: UP031
    if summary_lines:
        for row in summary:
            measure, k = row[c.MEASURE], row[c.K]
            keyed.append((_key(1, ALL_QUERIES, measure, k), _line(measure, k, ALL_QUERIES, row[c.VALUE])))
        if run_id is not None:
            keyed.append((_key(1, ALL_QUERIES, RUNID, None), "%-22s\t%s\t%s" % (RUNID, ALL_QUERIES, run_id)))  # noqa: UP031
    return [line for _, line in sorted(keyed, key=lambda item: item[0])]
