"""Numbers as every table and message shows them: one place, for the report's tables and pages
and for the gate's verdict."""

from __future__ import annotations


def format_number(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_signed(value: float | None, digits: int = 4) -> str:
    """A difference, with its sign either way (+0.1247, -0.0300)."""
    return "-" if value is None else f"{value:+.{digits}f}"


NULL_VALUE = "(null)"  # a slice's NULL value, as every table and message shows it


def format_p(value: float | None) -> str:
    """Small p-values in scientific notation, so that 3e-12 does not print as 0.0000."""
    if value is None:
        return "-"
    return f"{value:.2e}" if 0 < value < 1e-3 else f"{value:.4f}"
