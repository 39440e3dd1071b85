"""The means' sums: exact integers, whatever the order Spark adds in, and the comparison's
variance from them."""

from __future__ import annotations

import math
import random
import statistics
from fractions import Fraction

from pyspark.sql import SparkSession

from ndcg_spark.comparison.compare import _mean, _variance
from ndcg_spark.scoring.exact_sums import FRACTION_BITS
from ndcg_spark.scoring.summary import exact_mean, exact_sum, mean_of, part_sums
from tests.conftest import rows_frame

_UNIT = 2**FRACTION_BITS
# Values with bits far below a double's 53 (1/3, 0.2), both signs, both ends, and a value too
# small for the binary places kept (it truncates to 0).
_VALUES = [0.2, 0.4, 0.6, 1 / 3, -1 / 3, -0.7, 1.0, -1.0, 1e-20, 5e-324, 0.0, 0.999999999999]


def _truncated(value: float) -> int:
    """value in units of 2^-FRACTION_BITS, truncated toward zero: the sum's definition."""
    scaled = Fraction(value) * _UNIT
    return math.trunc(scaled)


def test_sum_is_the_exact_sum_of_the_truncated_values(spark: SparkSession) -> None:
    values = _VALUES * 50
    frame = rows_frame(spark, [(v,) for v in values], "v double")
    got = frame.agg(exact_sum("v").alias("s")).first()
    assert got is not None
    assert int(got["s"]) == sum(_truncated(v) for v in values)


def test_mean_is_the_same_in_any_order_and_within_the_truncation(spark: SparkSession) -> None:
    rng = random.Random(7)
    values = [rng.random() for _ in range(3000)] + [0.2] * 1000
    means = set()
    for partitions, seed in ((1, 0), (7, 1), (13, 2)):
        shuffled = values[:]
        random.Random(seed).shuffle(shuffled)
        frame = rows_frame(spark, [(v,) for v in shuffled], "v double").repartition(partitions)
        row = frame.agg(exact_mean("v").alias("m")).first()
        assert row is not None
        means.add(row["m"])
    assert len(means) == 1
    # The truncated sum rounded once to a double, then divided: the definition.
    truncated = Fraction(sum(_truncated(v) for v in values), _UNIT)
    assert means == {float(truncated) / len(values)}
    exact = sum(Fraction(v) for v in values) / len(values)
    assert abs(Fraction(means.pop()) - exact) <= Fraction(1, _UNIT) + Fraction(math.ulp(float(exact)))


def test_the_driver_puts_the_part_sums_together_as_exact_mean_does(spark: SparkSession) -> None:
    """The summary's means come from part_sums and mean_of: bit for bit exact_mean's, in any
    order, and None where exact_mean is NULL."""
    rng = random.Random(11)
    values: list[float | None] = [rng.random() for _ in range(2000)] + _VALUES * 20 + [None] * 5
    for partitions in (1, 5):
        frame = rows_frame(spark, [(v, i % 3) for i, v in enumerate(values)], "v double, g int").repartition(partitions)
        for row in frame.groupBy("g").agg(exact_mean("v").alias("m"), *part_sums("v")).collect():
            assert mean_of(row, "v") == row["m"] and row["m"] is not None
    nulls = rows_frame(spark, [(None,), (None,)], "v double").agg(exact_mean("v").alias("m"), *part_sums("v")).first()
    assert nulls is not None and mean_of(nulls, "v") is None and nulls["m"] is None


def test_mean_of_no_values_is_null(spark: SparkSession) -> None:
    frame = rows_frame(spark, [(None,), (None,)], "v double")
    row = frame.agg(exact_mean("v").alias("m")).first()
    assert row is not None and row["m"] is None


def test_the_comparison_reads_the_sums_as_the_summary_does(spark: SparkSession) -> None:
    differences = [0.25, -0.5, 1 / 3, 0.125, -0.2, 0.7]
    frame = rows_frame(spark, [(d,) for d in differences], "d double")
    row = frame.agg(exact_sum("d").alias("t"), exact_sum("d * d").alias("s"), exact_mean("d").alias("m")).first()
    assert row is not None
    n = len(differences)
    assert _mean(row["t"], n) == row["m"]
    assert math.isclose(_variance(row["t"], row["s"], n), statistics.variance(differences), rel_tol=1e-15)
