"""The summary's exact sums, as numbers: how both engines' means come out the same double
whatever the order of their sums (scoring/summary.py builds the Spark SQL of them,
scoring/embedded/summary.py computes them in numpy). No Spark here."""

from __future__ import annotations

# Values in [-1, 1] are summed as integers: two parts of PART_BITS bits each.
PART_BITS = 31
PARTS = 2
FRACTION_BITS = PART_BITS * PARTS

# How the summary reads a measure that is not a plain mean of values in [-1, 1] (the
# declaration's combine and bounded): geometric means sum ln(max(value, MIN_GEO_MEAN)) / 16, in
# [-0.72, 0], exactly; sums and unbounded means (utility) sum DECIMAL(38, 18), exact and
# independent of order as the integer parts are.
LOG_SCALE = 16.0


def mean_of_total(total: int, count: int) -> float | None:
    """The mean of `count` values from their exact sum (an integer in units of
    2^-FRACTION_BITS), as exact_mean computes it; None for no values."""
    return mean_of_some(total, count) if count else None


def mean_of_some(total: int, count: int) -> float:
    """mean_of_total where there are values (count > 0)."""
    return float(total) / float(2**FRACTION_BITS) / float(count)
