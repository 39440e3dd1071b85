"""The few statistics the comparison needs on the driver, from aggregates only: the paired
t-test's p-value (Student's t via the regularized incomplete beta function) and Holm's step-down
correction. Plain Python, so the job needs no scientific stack; tests check it against scipy."""

from __future__ import annotations

import math
from collections.abc import Sequence

_EPSILON = 1e-16
_TINY = 1e-300
_MAX_ITERATIONS = 10_000


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _MAX_ITERATIONS + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            result *= c * d
        if abs(c * d - 1.0) < _EPSILON:
            break
    return result


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return regularized_beta(df / 2.0, 0.5, df / (df + t * t))


def paired_t(n: int, mean: float, variance: float) -> tuple[float | None, float | None]:
    """(t, two-sided p) of the paired t-test from the differences' count, mean and sample
    variance; None where it is undefined (fewer than 2 pairs, or every difference equal to 0).
    All differences equal but not 0: t is infinite and p is 0, as scipy says."""
    if n < 2:
        return None, None
    if variance <= 0.0:
        if mean == 0.0:
            return None, None
        return math.copysign(math.inf, mean), 0.0
    t = mean / math.sqrt(variance / n)
    return t, t_two_sided_p(t, n - 1)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment across m tests (None: not tested, left out): the i-th
    smallest p is multiplied by m - i + 1, then made monotone and capped at 1."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(present)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[index] = running
    return adjusted
