"""The Report: what an evaluation computed, as frames in the published datasets' schemas. The
Python API returns it and the job publishes it, so both hold the same frames."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark.sql import DataFrame

from ndcg_spark import columns as c
from ndcg_spark.comparison.rows import COMPARISON_SCHEMA, ComparisonRow
from ndcg_spark.evaluation import Evaluation, comparison_frame, slices_frame, summary_frame
from ndcg_spark.option_values import choice
from ndcg_spark.options import Options
from ndcg_spark.report.formatting import format_report
from ndcg_spark.report.tables import TABLE_FORMATS, TABLE_MARKDOWN, TableFormat
from ndcg_spark.report.tables import render as render_table
from ndcg_spark.scoring.slices import SLICE_SUMMARY_SCHEMA
from ndcg_spark.scoring.summary import SUMMARY_COLUMNS
from ndcg_spark.sessions import ExecutorStore

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


@dataclass(frozen=True)
class Report:
    """What `evaluate` computed. `per_query` is a plan over the stored (run, query) rows; `summary`,
    `comparison` and `slices` hold rows already computed, in the job's output schemas. Of inputs
    a notebook holds (pandas, Polars, Arrow), the embedded engine's report: per_query and summary
    are pandas DataFrames with the same columns and values."""

    per_query: DataFrame | pd.DataFrame | pa.Table
    summary: DataFrame | pd.DataFrame | pa.Table
    comparison: DataFrame | pd.DataFrame | pa.Table | None
    slices: DataFrame | pd.DataFrame | pa.Table | None
    evaluation: Evaluation
    # The regression gate's verdict (the job's --fail-on-drop), one row per gated (run, measure, k).
    gate: DataFrame | pa.Table | None = None
    # A report read back from a published output (read_report): its manifest, with the config it
    # ran with, its inputs and counts.
    manifest: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)
    store: ExecutorStore = field(default_factory=ExecutorStore, repr=False, compare=False)

    def unpersist(self) -> None:
        """Free the stored (run, query) rows (reading `per_query` after this computes the pass
        again). On a Spark Connect session they stay cached until this is called or the session
        ends; on a classic session Spark frees them once the report is garbage-collected."""
        self.store.release()

    def __str__(self) -> str:
        """The tables the job prints (its notes naming evaluate's keywords)."""
        return format_report(self.evaluation, complete="complete=True")

    def table(self, table_format: TableFormat = TABLE_MARKDOWN, title: str = "evaluation") -> str:
        """The summary and comparison as Markdown (default) or a LaTeX tabular, to paste."""
        return render_table(self.evaluation, title, choice("table_format", table_format, TABLE_FORMATS))


def report_of(per_query: DataFrame, evaluation: Evaluation, options: Options, store: ExecutorStore | None = None) -> Report:
    """The report of an evaluation: the comparison with a baseline, the slices when asked for
    (each then present, even with no rows)."""
    spark = per_query.sparkSession
    return Report(
        per_query=per_query,
        summary=summary_frame(spark, per_query, evaluation),
        comparison=comparison_frame(spark, evaluation) if options.baseline is not None else None,
        slices=slices_frame(spark, evaluation) if options.slices else None,
        evaluation=evaluation,
        store=ExecutorStore() if store is None else store,
    )


def local_report_of(per_query: pa.Table, evaluation: Evaluation, compared: bool = False, sliced: bool = False) -> Report:
    """The report of an embedded evaluation: pandas frames, whole numbers as pandas' nullable
    integers (k NULL on an uncut measure), as the Spark engine's columns; compared, sliced: a
    baseline, slices were asked for (each is then present, even with no rows)."""
    comparison = local_comparison(evaluation.comparison) if compared else None
    return Report(
        per_query=_pandas(per_query),
        summary=_pandas(summary_table(evaluation)),
        comparison=comparison,
        slices=_pandas(slices_table(evaluation)) if sliced else None,
        evaluation=evaluation,
    )


def arrow_report_of(per_query: pa.Table, evaluation: Evaluation, compared: bool = False, sliced: bool = False) -> Report:
    """The report of an embedded evaluation as Arrow tables, the published datasets' schemas:
    what the job writes with pyarrow (compared, sliced: a comparison and slices were asked for)."""
    return Report(
        per_query=per_query,
        summary=summary_table(evaluation),
        comparison=comparison_table(evaluation.comparison) if compared else None,
        slices=slices_table(evaluation) if sliced else None,
        evaluation=evaluation,
    )


def slices_table(evaluation: Evaluation) -> pa.Table:
    """The slices' rows as Arrow, of the Spark engine's columns (SLICE_SUMMARY_SCHEMA)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    rows = [row.asDict() for row in evaluation.slices]
    return pa.Table.from_pylist(rows, schema=to_arrow_schema(SLICE_SUMMARY_SCHEMA))


def summary_table(evaluation: Evaluation) -> pa.Table:
    """The summary's rows in the Spark engine's column types (scoring.summary.summarize's schema)."""
    import pyarrow as pa

    schema = pa.schema(
        [
            (c.RUN_ID, pa.string()),
            (c.MEASURE, pa.string()),
            (c.K, pa.int32()),
            (c.NDCG, pa.float64()),
            (c.NUM_QUERIES, pa.int64()),
            (c.JUDGED_AT_K, pa.float64()),
            (c.VARIANT, pa.string()),
            (c.VALUE, pa.float64()),
        ]
    )
    assert tuple(schema.names) == SUMMARY_COLUMNS
    return pa.Table.from_pylist([row.asDict() for row in evaluation.summary], schema=schema)


def comparison_table(rows: list[ComparisonRow]) -> pa.Table:
    """The comparison's rows as Arrow, of the Spark engine's columns (COMPARISON_SCHEMA)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    return pa.Table.from_pylist([dataclasses.asdict(row) for row in rows], schema=to_arrow_schema(COMPARISON_SCHEMA))


def local_comparison(rows: list[ComparisonRow]) -> pd.DataFrame:
    """The comparison's rows as a pandas frame of the Spark engine's columns (COMPARISON_SCHEMA)."""
    return _pandas(comparison_table(rows))


def _pandas(table: pa.Table) -> pd.DataFrame:
    import pandas as pd
    import pyarrow as pa

    integers = {pa.int32(): pd.Int32Dtype(), pa.int64(): pd.Int64Dtype()}
    return table.to_pandas(types_mapper=integers.get)
