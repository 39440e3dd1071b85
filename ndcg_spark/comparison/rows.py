"""The comparison dataset's rows: one run against the baseline at one cutoff. Its schema is
derived from ComparisonRow's fields, so the two cannot disagree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.frames import local_frame
from ndcg_spark.measures import Measure, report_order, scored
from ndcg_spark.options import RESAMPLING_ARRAYS, RESAMPLING_AUTO, Options, ResamplingEngine

# Columns of the comparison dataset.
NUM_QUERIES = c.NUM_QUERIES
NDCG_BASELINE = "ndcg_baseline"
NDCG_RUN = "ndcg_run"
MEAN_DIFFERENCE = "mean_difference"
P_T = "p_value_t"
P_RANDOMIZATION = "p_value_randomization"
P_T_HOLM = "p_value_t_holm"
P_RANDOMIZATION_HOLM = "p_value_randomization_holm"

SPARK_TYPE = "spark_type"  # a field's Spark type, where its Python type does not say it
_SPARK_TYPES = {"str": T.StringType(), "int": T.LongType(), "float": T.DoubleType(), "bool": T.BooleanType()}


@dataclass(frozen=True)
class Cutoff:
    measure: str
    k: int | None

    @property
    def asked(self) -> str:
        """As --measure asks for it: P.5, map."""
        return self.measure if self.k is None else f"{self.measure}.{self.k}"


@dataclass
class ComparisonRow:
    """One run against the baseline at one cutoff; the fields are the comparison dataset's
    columns, in its order (COMPARISON_SCHEMA is derived from them). The Holm columns are set once
    every run's row of the cutoff is known."""

    baseline: str
    run_id: str
    measure: str
    k: int | None = field(metadata={SPARK_TYPE: T.IntegerType()})  # the per_query dataset's k
    num_queries: int
    ndcg_baseline: float | None = None
    ndcg_run: float | None = None
    mean_difference: float | None = None
    wins: int = 0
    ties: int = 0
    losses: int = 0
    t_statistic: float | None = None
    p_value_t: float | None = None
    p_value_t_holm: float | None = None
    p_value_randomization: float | None = None
    p_value_randomization_holm: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    permutations: int = 0
    randomization_exact: bool = False
    bootstrap: int = 0
    seed: int = 0

    def values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, item.name) for item in fields(self))


def dataclass_schema(kind: type) -> T.StructType:
    """A dataclass's fields as a Spark schema: `X | None` nullable, X not; Python's int a long
    unless the field says otherwise."""
    columns = []
    for item in fields(kind):
        annotation = str(item.type)
        base = annotation.removesuffix(" | None")
        spark_type = item.metadata[SPARK_TYPE] if SPARK_TYPE in item.metadata else _SPARK_TYPES[base]
        columns.append(T.StructField(item.name, spark_type, base != annotation))
    return T.StructType(columns)


COMPARISON_SCHEMA = dataclass_schema(ComparisonRow)


ARRAYS_FROM_ROWS = 10**7  # auto: the draws as arrays from this many (pair, draw) rows (10^4 pairs at 1000 draws)


@dataclass(frozen=True)
class Resampling:
    permutations: int
    bootstrap: int
    seed: int
    engine: ResamplingEngine = RESAMPLING_AUTO

    @classmethod
    def of(cls, options: Options) -> Resampling:
        return cls(options.permutations, options.bootstrap, options.seed, options.resampling)

    def arrays(self, pairs: int) -> bool:
        """Whether the draws of `pairs` (run, query) pairs are computed as arrays: asked for, or
        (auto) when the rows would be many. Python workers take some 2.5 s to start, more than
        the rows of a few thousand queries cost (the demo's 390 pairs: 5.1 s against 4.2)."""
        if self.engine == RESAMPLING_AUTO:
            return pairs * max(self.permutations, self.bootstrap) >= ARRAYS_FROM_ROWS
        return self.engine == RESAMPLING_ARRAYS


def cutoffs_of(measures: Sequence[Measure]) -> list[Cutoff]:
    """Every (measure, k) compared, in the reports' order (NDCG's first)."""
    cutoffs = [Cutoff(measure.reported, measure.k) for measure in scored(measures)]
    return sorted(cutoffs, key=lambda cut: report_order(cut.measure, cut.k))


def comparison_rows_frame(spark: SparkSession, rows: list[ComparisonRow]) -> DataFrame:
    return local_frame(spark, [row.values() for row in rows], COMPARISON_SCHEMA)
