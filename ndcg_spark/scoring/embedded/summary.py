"""The embedded engine's summary: each (run, measure, cutoff)'s value over its per-query rows,
combined as its declaration says, with the Spark engine's exact sums (scoring/summary.py), so that
every mean is the same double: the values' first 62 binary places summed as integers, a geometric
mean's logs (Spark's ln) likewise, counts and unbounded values as exact decimals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ndcg_spark import columns as c
from ndcg_spark.measures import GEOMETRIC, MIN_GEO_MEAN, NDCG_MEASURES, SUM, Measure, bounded, combine_of
from ndcg_spark.measures.strict_math import log
from ndcg_spark.scoring.exact_sums import LOG_SCALE, PART_BITS, mean_of_some, mean_of_total

_SCALE = float(2**PART_BITS)
_DECIMAL_PLACES = Decimal("1e-18")  # DECIMAL(38, 18), the Spark engine's exact sums


def exact_total(values: npt.NDArray[np.float64]) -> int:
    """The sum of values in [-1, 1] in units of 2^-62, as the Spark engine sums them: each value's
    two parts of 31 bits (truncated toward zero, as CAST(double AS BIGINT)), summed as integers."""
    scaled = values * _SCALE
    high = np.trunc(scaled)
    low = np.trunc((scaled - high) * _SCALE)
    return int(high.astype(np.int64).sum()) * 2**PART_BITS + int(low.astype(np.int64).sum())


def _decimal_sum(values: npt.NDArray[np.float64]) -> Decimal:
    """sum(CAST(value AS DECIMAL(38, 18))): each double's decimal digits rounded to 18 places."""
    if np.all(values == np.trunc(values)) and np.all(np.abs(values) < 2**53):
        return Decimal(int(values.astype(np.int64).sum()))
    return sum((Decimal(repr(float(v))).quantize(_DECIMAL_PLACES, ROUND_HALF_UP) for v in values), Decimal(0))


def combined(values: npt.NDArray[np.float64], measure: str) -> float | None:
    """trec_eval's 'all' of `measure` over its per-query values (scoring.summary._combined)."""
    count = len(values)
    if combine_of(measure) == GEOMETRIC:
        logs = log(np.maximum(values, MIN_GEO_MEAN)) / LOG_SCALE
        return math.exp(mean_of_some(exact_total(logs), count) * LOG_SCALE)
    if combine_of(measure) == SUM:
        return float(_decimal_sum(values))
    if not bounded(measure):
        return float(_decimal_sum(values)) / float(count)
    return mean_of_total(exact_total(values), count)


def summary_rows(per_query: pa.Table, measures: Sequence[Measure], variant: str) -> list[dict[str, Any]]:
    """The summary's rows (scoring.summary.SUMMARY_COLUMNS, as dicts: no Spark here) of the
    embedded per_query, whose rows are a pair's measures in turn (`measures`, in that order),
    pairs by run; by run, then measure."""
    count = len(measures)
    runs = per_query[c.RUN_ID].to_numpy(zero_copy_only=False)[::count]
    values = per_query[c.VALUE].to_numpy(zero_copy_only=False).astype(np.float64).reshape(-1, count)
    judged = per_query[c.JUDGED_AT_K].to_numpy(zero_copy_only=False).astype(np.float64).reshape(-1, count)
    starts = np.flatnonzero(np.concatenate([[True], runs[1:] != runs[:-1]])) if len(runs) else np.zeros(0, dtype=np.int64)
    rows = []
    ends = [*starts[1:], len(runs)] if len(starts) else []
    for start, end in zip(starts, ends, strict=True):
        for j, measure in enumerate(measures):
            value = combined(values[start:end, j], measure.reported)
            shares = judged[start:end, j]
            shares = shares[~np.isnan(shares)]
            rows.append(
                {
                    c.RUN_ID: str(runs[start]),
                    c.MEASURE: measure.reported,
                    c.K: measure.k,
                    c.NDCG: value if measure.name in NDCG_MEASURES else None,
                    c.NUM_QUERIES: int(end - start),
                    c.JUDGED_AT_K: mean_of_total(exact_total(shares), len(shares)),
                    c.VARIANT: variant,
                    c.VALUE: value,
                }
            )
    return rows
