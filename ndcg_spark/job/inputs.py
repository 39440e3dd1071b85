"""The job's inputs read from their paths (Parquet or trec_eval text) into canonical columns."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from ndcg_spark.checks.inputs import JUDGMENTS, RESULTS, Input, Source, canonical_inputs
from ndcg_spark.checks.tables import Checked, checked
from ndcg_spark.errors import ConfigError, InputError
from ndcg_spark.io.local_paths import local_path, require_local
from ndcg_spark.io.parquet import NotParquetError, read_parquet
from ndcg_spark.io.parquet_local import data_files, read_parquet_table
from ndcg_spark.io.trec import read_trec
from ndcg_spark.io.trec_formats import QRELS, RUN, LineFormat
from ndcg_spark.io.trec_local import read_trec_table
from ndcg_spark.job.settings import FORMAT_TREC, JobConfig
from ndcg_spark.local_evaluation import SliceTable
from ndcg_spark.options import ORDER_BY_RANK
from ndcg_spark.scoring.slices import QUERY_METADATA, SliceSource, slice_source

_TREC_SLICES = "slices need --query-metadata when the results are a TREC run file (it has no such columns)"


def _not_parquet(label: str, path: str) -> ConfigError:
    """An input that is not Parquet, most often trec_eval's text given without its format flag."""
    return ConfigError(
        f"{label} {path} is not Parquet: for trec_eval's text (plain or .gz) pass --{label}-format trec"
        f' (config file: [input] {label}_format = "trec")'
    )


def read_input(spark: SparkSession, path: str, label: str, fmt: str, line_format: LineFormat, config: JobConfig) -> DataFrame:
    """Parquet as it is, or trec_eval text parsed into the configured column names."""
    if fmt == FORMAT_TREC:
        options = config.options
        return read_trec(spark, path, label, line_format, options.judgment_names if label == JUDGMENTS else options.result_names)
    try:
        return read_parquet(spark, path, label)
    except NotParquetError:
        raise _not_parquet(label, path) from None


def _read_table(path: str, label: str, fmt: str, line_format: LineFormat, config: JobConfig) -> pa.Table:
    """read_input's table, read in this process with pyarrow (the embedded engine's)."""
    options = config.options
    names = options.judgment_names if label == JUDGMENTS else options.result_names
    if fmt == FORMAT_TREC:
        return read_trec_table(path, label, line_format, names, hadoop_names=True)
    # What the checks and the scoring read, and no other column (the slices', when they come from
    # the results).
    if label == JUDGMENTS:
        required = [names.query_id, names.doc_id, names.relevance]
        wanted = required
    else:
        sliced = list(options.slices) if config.query_metadata is None else []
        ranked = [names.rank] if options.order_by == ORDER_BY_RANK else []
        required = [names.query_id, names.doc_id, names.score, *ranked, *sliced]
        wanted = [*required, names.run_id, names.rank]
    try:
        return read_parquet_table(path, label, wanted, required)
    except NotParquetError:
        raise _not_parquet(label, path) from None


def read_tables(config: JobConfig) -> tuple[Checked, SliceTable | None]:
    """read_inputs and read_slices on the embedded engine: both inputs read with pyarrow, in
    canonical columns and checked (the same refusals, each naming its path); the slice columns'
    table when slices are asked for."""
    judgments = _read_table(config.judgments, JUDGMENTS, config.judgments_format, QRELS, config)
    paths = config.result_paths
    tables = {name: _read_table(path, RESULTS, config.results_format, RUN, config) for name, path in paths}
    results = tables[None] if None in tables else tables
    where = (config.judgments, ", ".join(path for _, path in paths))
    slices = _slice_table(config, next(iter(tables.values())))
    try:
        return checked(judgments, results, config.options, where), slices
    except InputError as error:
        if error.column is None:
            raise
        first = _first_file(config, error, judgments, results)
        if first is None:
            raise
        raise InputError(
            f"{error} (first in {first})",
            column=error.column,
            problem=error.problem,
            bad=error.bad,
            rows=error.rows,
            remedy=error.remedy,
            naming=error.naming,
        ) from None


def _slice_table(config: JobConfig, results: pa.Table) -> SliceTable | None:
    """read_slices' source as a table: the query metadata, or the (first) results table as read."""
    options = config.options
    if not options.slices:
        return None
    if config.query_metadata is not None:
        table = read_parquet_table(config.query_metadata, QUERY_METADATA)
        return SliceTable(QUERY_METADATA, config.query_metadata, table, options.columns.query_id)
    if config.results_format == FORMAT_TREC:
        raise ConfigError(_TREC_SLICES)
    return SliceTable(RESULTS, config.result_paths[0][1], results, options.result_names.query_id)


def _first_file(config: JobConfig, error: InputError, judgments: pa.Table, results: object) -> str | None:
    """The first file of the refused input in which the refused row check fails alone (the
    Spark engine's "first in" its file), as a file: URI; None when no one file shows it. Read
    again file by file, on this failure path only."""
    side = JUDGMENTS if str(error).startswith(f"{JUDGMENTS} ") else RESULTS
    fmt = config.judgments_format if side == JUDGMENTS else config.results_format
    if fmt == FORMAT_TREC:
        return None
    inputs = [config.judgments] if side == JUDGMENTS else [path for _, path in config.result_paths]
    for path in inputs:
        local = local_path(path) or path
        for file in data_files(local) if os.path.isdir(local) else [local]:
            table = read_parquet_table(file, side)
            try:
                if side == JUDGMENTS:
                    checked(table, results, config.options)
                else:
                    checked(judgments, table, config.options)
            except InputError as alone:
                if (alone.column, alone.problem) == (error.column, error.problem):
                    return Path(file).resolve().as_uri()
    return None


def require_inputs(config: JobConfig) -> None:
    """Every local input path exists: checked before the session starts (another scheme's paths
    are Spark's to read, and refused when read, still before the main pass)."""
    require_local(config.judgments, JUDGMENTS)
    for _, path in config.result_paths:
        require_local(path, RESULTS)
    if config.query_metadata is not None:
        require_local(config.query_metadata, QUERY_METADATA)


def read_inputs(spark: SparkSession, config: JobConfig) -> tuple[Input, Input]:
    """(judgments, results) in canonical columns; schema problems are refused here. Several
    results inputs are read each on its own and checked and scored as one."""
    judgments = read_input(spark, config.judgments, JUDGMENTS, config.judgments_format, QRELS, config)
    results = [
        Source(read_input(spark, path, RESULTS, config.results_format, RUN, config), path, name)
        for name, path in config.result_paths
    ]
    return canonical_inputs(Source(judgments, config.judgments), results, config.options, located=True)


def read_slices(spark: SparkSession, config: JobConfig) -> SliceSource | None:
    """The query id and slice columns, from the query metadata or the results; checked now, so
    a missing column fails in seconds, before the main pass."""
    if not config.options.slices:
        return None
    if config.query_metadata is not None:
        label, path = QUERY_METADATA, config.query_metadata
    elif config.results_format == FORMAT_TREC:
        raise ConfigError(_TREC_SLICES)
    else:
        label, path = RESULTS, config.result_paths[0][1]
    frame = read_parquet(spark, path, label)
    names = config.options.result_names if label == RESULTS else config.options.columns
    return slice_source(label, path, frame, names.query_id, config.options.slices)
