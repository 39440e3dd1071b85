"""Frame and column helpers every step shares: the one shuffle by query, row counting, SQL
expression text, and frames of rows the driver holds.

Wide expressions (one aggregate per cutoff and value, a struct per cutoff) are written as SQL
text for F.expr: PySpark builds a Column through the JVM one call per function, column and
literal (F.max(F.when(F.col(p) <= k, F.col(v))).alias(a) costs 64 calls), F.expr one parse
(6 calls); at 4-5 cutoffs the plan's Columns took some 7,000 calls, seconds of every run."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c


def copartition(frame: DataFrame) -> DataFrame:
    """Hash by query_id once: with the session's spark.sql.requireAllClusterKeysForCoPartition=false
    every later join, window and aggregation reuses this partitioning, so each input is shuffled once."""
    return frame.repartition(F.col(c.QUERY_ID))


def sql_name(column: str) -> str:
    """A column name quoted for SQL expression text."""
    return "`" + column.replace("`", "``") + "`"


def sql_string(text: str) -> str:
    """A string literal for SQL expression text: quoted, its backslashes and quotes escaped."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def count_where(condition: str) -> Column:
    """How many rows of a group meet the condition (SQL text), as a long: indicator's sum, as
    the one SQL expression a wide aggregation is built from (see above)."""
    return F.expr(f"CAST(sum(CASE WHEN {condition} THEN 1 ELSE 0 END) AS BIGINT)")


def indicator(condition: Column) -> Column:
    """1 where the condition holds, else 0: summed, it counts the rows that meet it."""
    return F.when(condition, F.lit(1)).otherwise(F.lit(0))


def local_frame(spark: SparkSession, rows: Sequence[Sequence[object]], schema: T.StructType) -> DataFrame:
    """Rows the driver holds (a summary, a comparison) as a DataFrame of exactly `schema`.

    Built in the JVM from one SQL VALUES text: spark.createDataFrame of Python rows starts a
    Python worker to unpickle them, about 2 s in a fresh run, for a handful of rows. Every value
    is a literal of its column's type (doubles as their shortest round-trip text, so bit for
    bit; strings as their UTF-8 bytes, so nothing needs escaping); a column the schema declares
    nullable is typed nullable even when no row holds a NULL."""
    names = ", ".join(sql_name(field.name) for field in schema)
    placeholder = [None if field.nullable else _ZEROS[type(field.dataType)] for field in schema]
    values = ", ".join(
        "(" + ", ".join(_literal(value, field) for value, field in zip(row, schema, strict=True)) + ")"
        for row in (rows or [placeholder])
    )
    where = "" if rows else " WHERE FALSE"
    return spark.sql(f"SELECT * FROM VALUES {values} AS _rows({names}){where}").to(schema)


_ZEROS: dict[type[T.DataType], object] = {
    T.StringType: "",
    T.BooleanType: False,
    T.IntegerType: 0,
    T.LongType: 0,
    T.DoubleType: 0.0,
    T.ArrayType: [],
}


def _literal(value: object, field: T.StructField) -> str:
    kind = field.dataType
    if value is None:
        return f"CAST(NULL AS {kind.simpleString()})"
    if isinstance(kind, T.ArrayType):
        element = T.StructField("element", kind.elementType, kind.containsNull)
        items = ", ".join(_literal(item, element) for item in value)  # type: ignore[attr-defined]
        text = f"CAST(ARRAY({items}) AS {kind.simpleString()})"
    elif isinstance(kind, T.StructType):
        # A tuple (or Row) of the struct's fields, in order.
        parts = ", ".join(
            f"'{inner.name}', {_literal(item, inner)}"
            for item, inner in zip(value, kind.fields, strict=True)  # type: ignore[call-overload]
        )
        text = f"NAMED_STRUCT({parts})"
    elif isinstance(kind, T.StringType):
        text = f"CAST(X'{str(value).encode('utf-8').hex()}' AS STRING)"
    elif isinstance(kind, T.BooleanType):
        text = "TRUE" if value else "FALSE"
    elif isinstance(kind, T.IntegralType):
        text = f"CAST({int(value)} AS {kind.simpleString()})"  # type: ignore[call-overload]
    elif isinstance(kind, T.DoubleType):
        number = float(value)  # type: ignore[arg-type]
        text = f"{number!r}D" if math.isfinite(number) else f"CAST('{number}' AS DOUBLE)"
    else:
        raise TypeError(f"local_frame: no literal for {kind.simpleString()} ({field.name})")
    # IF(TRUE, v, NULL) is v, typed nullable: VALUES makes a column nullable only if a row is.
    return f"IF(TRUE, {text}, NULL)" if field.nullable else text
