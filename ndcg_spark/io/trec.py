"""trec_eval's text formats: qrels and run files in and out (the report's text is report/trec_eval.py).

A line is split on runs of whitespace, as trec_eval does: qrels `query_id 0 doc_id relevance`
(exactly four fields), runs `query_id Q0 doc_id rank score run_id` (six; trec_eval ignores any
after the sixth, and so does this). Blank lines are skipped. Lines are parsed into the same
columns a Parquet input has, under the configured names, so the rest of the job cannot tell the
formats apart; a line that does not parse is refused up front, naming its file and line number.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ndcg_spark import columns as c
from ndcg_spark.errors import InputError, first_line
from ndcg_spark.io.trec_formats import LINE, QRELS, LineFormat, malformed_message
from ndcg_spark.option_values import ColumnNames

VALUE = "value"  # the column Spark's text source reads a line into
_FIELDS = "_fields"
_FILE_PATH = "_metadata.file_path"
_BLOCK_START = "_metadata.file_block_start"
_LINE_INDEX_BITS = (1 << 33) - 1  # monotonically_increasing_id: row index within its partition


def _field(index: int) -> Column:
    return F.col(_FIELDS)[index]


def _qrels_columns(names: ColumnNames) -> list[Column]:
    return [
        _field(0).alias(names.query_id),
        _field(2).alias(names.doc_id),
        # A double: a grade written "1.0" is read, "1.5" is refused later as not whole, like
        # a fractional grade in Parquet.
        _field(3).try_cast(T.DoubleType()).alias(names.relevance),
    ]


def _run_columns(names: ColumnNames) -> list[Column]:
    return [
        _field(0).alias(names.query_id),
        _field(2).alias(names.doc_id),
        _field(3).try_cast(T.LongType()).alias(names.rank),
        _field(4).try_cast(T.DoubleType()).alias(names.score),
        _field(5).alias(names.run_id),
    ]


def _malformed(line_format: LineFormat) -> Column:
    count = F.size(F.col(_FIELDS))
    wrong_count = count < line_format.fields if line_format.extra_fields_ignored else count != line_format.fields
    if line_format is QRELS:
        unparsed = _field(3).try_cast(T.DoubleType()).isNull()
    else:
        unparsed = _field(3).try_cast(T.LongType()).isNull() | _field(4).try_cast(T.DoubleType()).isNull()
    return wrong_count | unparsed


def _split(lines: DataFrame) -> DataFrame:
    """Lines with their fields; blank lines dropped."""
    text = F.regexp_replace(F.col(VALUE), r"^\s+|\s+$", "")
    return lines.filter(text != "").withColumn(_FIELDS, F.split(text, r"\s+"))


def read_text(spark: SparkSession, path: str, label: str) -> DataFrame:
    try:
        lines = spark.read.text(path)
        lines.schema  # noqa: B018 - a bad path fails here
    except Exception as error:  # noqa: BLE001 - AnalysisException and Py4J errors alike
        raise InputError(f"{label} {path}: cannot read text: {first_line(error)}") from None
    return lines


def read_trec(spark: SparkSession, path: str, label: str, line_format: LineFormat, names: ColumnNames) -> DataFrame:
    """A qrels or run file (or folder of them) as a raw frame with the configured column names.
    Costs one scan of the text before the main pass, to refuse malformed lines early."""
    lines = _split(read_text(spark, path, label))
    bad = lines.filter(_malformed(line_format))
    count = bad.count()
    if count:
        raise InputError(_malformed_message(spark, path, label, line_format, bad, count))
    columns = _qrels_columns(names) if line_format is QRELS else _run_columns(names)
    return lines.select(*columns)


def _malformed_message(spark: SparkSession, path: str, label: str, line_format: LineFormat, bad: DataFrame, count: int) -> str:
    """Where the first malformed line is: its file, its line number, and the line itself."""
    first = (
        bad.select(F.col(_FILE_PATH).alias("file"), F.col(_BLOCK_START).alias("start"))
        .orderBy("file", "start")
        .limit(1)
        .collect()[0]
    )
    number, text = _first_bad_line(spark, first["file"], first["start"], line_format)
    return malformed_message(path, label, line_format, count, number, first["file"], text)


def _first_bad_line(spark: SparkSession, file: str, start: int, line_format: LineFormat) -> tuple[int, str]:
    """Line number (from 1, blank lines counted) of the first malformed line in the block of the
    file that starts at byte `start`: the lines of earlier blocks, plus its index in its block
    (a block is read in order by one task). Runs only when a file is refused."""
    lines = spark.read.text(file)
    before = lines.filter(F.col(_BLOCK_START) < start).count()
    in_block = (
        lines.filter(F.col(_BLOCK_START) == start)
        .select(
            (F.monotonically_increasing_id().bitwiseAND(F.lit(_LINE_INDEX_BITS))).alias("index"),
            F.col(VALUE),
        )
        .transform(_split)
        .filter(_malformed(line_format))
        .orderBy("index")
        .limit(1)
        .collect()[0]
    )
    return before + in_block["index"] + 1, in_block[VALUE]


def qrels_lines(judgments: DataFrame) -> DataFrame:
    """Canonical judgments as qrels lines, in (query_id, doc_id) order."""
    return judgments.orderBy(c.QUERY_ID, c.DOC_ID).select(
        F.concat_ws(" ", F.col(c.QUERY_ID), F.lit("0"), F.col(c.DOC_ID), F.col(c.RELEVANCE).cast("bigint").cast("string")).alias(
            LINE
        )
    )


def run_lines(results: DataFrame) -> DataFrame:
    """Canonical results as run lines, per run and query in rank order. Scores are printed in
    the shortest form that reads back as the same double, so a round trip changes no ranking."""
    return results.orderBy(c.RUN_ID, c.QUERY_ID, c.RANK, F.col(c.SCORE).desc(), F.col(c.DOC_ID).desc()).select(
        F.concat_ws(
            "\t",
            F.col(c.QUERY_ID),
            F.lit("Q0"),
            F.col(c.DOC_ID),
            F.col(c.RANK).cast("string"),
            F.col(c.SCORE).cast("string"),
            F.col(c.RUN_ID),
        ).alias(LINE)
    )
