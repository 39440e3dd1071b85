"""What the checks name and take, without Spark: the inputs' names in messages, and which kind of
table an input is (the embedded engine's checks and evaluate() read it before any engine loads)."""

from __future__ import annotations

from typing import Literal

from ndcg_spark.errors import ConfigError

JUDGMENTS = "judgments"
RESULTS = "results"
# What a DataFrame of the Python API stands for in messages, where the job would name a path.
GIVEN = "DataFrame"
# 2^rel overflows a double past 1023; far beyond any real grading scale.
MAX_EXPONENTIAL_RELEVANCE = 1000

# What evaluate() takes: Spark DataFrames, or tables the embedded engine reads (checks/tables.py).
_TAKEN = "a Spark, pandas or Polars DataFrame, or an Arrow table"


TableKind = Literal["pandas", "polars", "pyarrow"]
_TABLE_MODULES: tuple[TableKind, ...] = ("pandas", "polars", "pyarrow")


def table_kind(frame: object) -> TableKind | None:
    """Which table of the embedded engine's this input is (a pandas or Polars DataFrame, an Arrow
    table), told by its class's module (nothing imported to tell); None for any other object."""
    module = type(frame).__module__.split(".")[0]
    return next((kind for kind in _TABLE_MODULES if kind == module), None)


def not_a_table(frame: object, label: str) -> ConfigError:
    """The refusal of an input of another kind."""
    return ConfigError(f"{label} must be {_TAKEN}, not {type(frame).__module__}.{type(frame).__qualname__}")


def require_baseline(baseline: str, runs: list[str]) -> None:
    """A baseline run that is not among the runs, refused in the one message every path gives
    (before the main pass when the runs are known from the inputs' names, else after it)."""
    if baseline not in runs:
        raise ConfigError(f"baseline run {baseline!r} is not in the results (runs: {', '.join(runs)})")
