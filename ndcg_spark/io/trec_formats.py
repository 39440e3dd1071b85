"""trec_eval's line formats, and the refusal of a line that does not parse: shared by the Spark
reader (io/trec.py) and the in-process one (io/trec_local.py), so both say the same."""

from __future__ import annotations

from dataclasses import dataclass

_SHOWN_CHARS = 120
LINE = "line"


@dataclass(frozen=True)
class LineFormat:
    """One of trec_eval's line formats: how many fields, and which hold numbers."""

    description: str
    fields: int
    extra_fields_ignored: bool


QRELS = LineFormat("query_id 0 doc_id relevance", 4, extra_fields_ignored=False)
RUN = LineFormat("query_id Q0 doc_id rank score run_id", 6, extra_fields_ignored=True)


def malformed_message(path: str, label: str, line_format: LineFormat, count: int, number: int, file: str, text: str) -> str:
    """Where the first malformed line is: its file, its line number (from 1, blank lines counted),
    and the line itself."""
    shown = text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."
    return (
        f"{label} {path}: {count} malformed line{'s' if count != 1 else ''}, first at line {number}"
        f" of {file}: expected '{line_format.description}'"
        f"{' (extra fields ignored)' if line_format.extra_fields_ignored else ''}, got {shown!r}"
    )
