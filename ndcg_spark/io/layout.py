"""Where a report lives under the output folder: one place for every name a reader relies on."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ndcg_spark import columns as c

PER_QUERY_DIR = "per_query"
SUMMARY_DIR = "summary"
COMPARISON_DIR = "comparison"
SLICES_DIR = "slices"
GATE_DIR = "gate"
TREC_EVAL_DIR = "trec_eval"
REPORT_DIR = "report"
LATEST = "latest"  # the name of the undated report's page (and manifest)


@dataclass(frozen=True)
class OutputLayout:
    """The output folder of one run as a reader sees it: its datasets and page, for its eval date
    (or none). What only publication needs (lock, commit record, manifest): publish/layout.py."""

    root: str
    eval_date: dt.date | None = None

    @property
    def label(self) -> str:
        """The date as YYYY-MM-DD, or 'latest' without one: names the page (and the manifest)."""
        return LATEST if self.eval_date is None else self.eval_date.isoformat()

    def base(self, name: str) -> str:
        return f"{self.root.rstrip('/')}/{name}"

    def folder(self, name: str) -> str:
        """The folder readers read: DIR/name, or its eval_date=YYYY-MM-DD partition."""
        base = self.base(name)
        return base if self.eval_date is None else f"{base}/{c.EVAL_DATE}={self.eval_date.isoformat()}"

    @property
    def page(self) -> str:
        return f"{self.base(REPORT_DIR)}/{self.label}.html"

    def table(self, extension: str) -> str:
        """The summary as a table to paste, beside the page: DIR/report/DATE.md or .tex."""
        return f"{self.base(REPORT_DIR)}/{self.label}.{extension}"
