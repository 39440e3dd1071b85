"""local_frame: rows the driver holds, as a frame of exactly the given schema and values."""

from __future__ import annotations

import math
import struct

from pyspark.sql import SparkSession
from pyspark.sql import types as T

from ndcg_spark.frames import local_frame

SCHEMA = T.StructType(
    [
        T.StructField("name `odd`", T.StringType(), False),
        T.StructField("k", T.IntegerType(), True),
        T.StructField("n", T.LongType(), False),
        T.StructField("x", T.DoubleType(), True),
        T.StructField("flag", T.BooleanType(), True),
    ]
)

DOUBLES = [0.1, 1 / 3, -0.0, 5e-324, 1.7976931348623157e308, 1e-05, 2.0**-40, math.inf, -math.inf]


def _bits(value: float) -> bytes:
    return struct.pack(">d", value)


def test_values_round_trip_bit_for_bit(spark: SparkSession) -> None:
    texts = ["it's", "a\\b", "ünï 😀", "", "`x`", "'; DROP", "\n", "NULL", "1"]
    ks = [None, 5, 10, 20, 100, -1, 0, 7, 8]
    rows = [(text, k, 2**62 + i, x, i % 2 == 0) for i, (text, k, x) in enumerate(zip(texts, ks, DOUBLES, strict=True))]
    frame = local_frame(spark, rows, SCHEMA)
    assert frame.schema == SCHEMA
    got = frame.collect()
    for row, expected in zip(got, rows, strict=True):
        assert row[0] == expected[0] and row[1] == expected[1] and row[2] == expected[2] and row[4] == expected[4]
        assert _bits(row[3]) == _bits(expected[3])


def test_nan_and_nulls(spark: SparkSession) -> None:
    got = local_frame(spark, [("a", None, 1, math.nan, None), ("b", 3, 2, None, True)], SCHEMA).collect()
    assert math.isnan(got[0][3]) and got[0][1] is None and got[0][4] is None
    assert got[1][3] is None and got[1][1] == 3


def test_no_rows_keeps_the_schema(spark: SparkSession) -> None:
    frame = local_frame(spark, [], SCHEMA)
    assert frame.schema == SCHEMA
    assert frame.count() == 0


def test_starts_no_python_worker(spark: SparkSession) -> None:
    """The point of local_frame: no Python worker, so no RDD of pickled rows in the plan."""
    plan = local_frame(spark, [("a", 1, 1, 0.5, True)], SCHEMA)._jdf.queryExecution().executedPlan().toString()
    assert "LocalTableScan" in plan and "ExistingRDD" not in plan
