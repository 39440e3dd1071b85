"""spark-submit entry point: trec_eval text files to Parquet and back.

    convert_trec.py to-parquet   --kind qrels|run INPUT OUTPUT
    convert_trec.py from-parquet --kind qrels|run INPUT OUTPUT [--partitions N]

To Parquet, lines are checked as the job checks them (a malformed line is named by file and
line) and written with the job's default column names: qrels as query_id, doc_id, relevance
(int); runs as run_id, query_id, doc_id, score (double), rank (long). From Parquet, those columns
are read (a run without rank gets trec_eval's order: score descending, doc_id descending) and
written as text, one file by default, ready for trec_eval.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.errors import EXIT_FAILURE, EXIT_OK, InputError, NdcgSparkError, first_line
from ndcg_spark.io.parquet import read_parquet
from ndcg_spark.io.trec import qrels_lines, read_trec, run_lines
from ndcg_spark.io.trec_formats import QRELS, RUN
from ndcg_spark.option_values import ColumnNames
from ndcg_spark.options import ORDER_BY_SCORE
from ndcg_spark.scoring.ranking import TIE_BREAK, ranking_order, window, with_tie_break

TO_PARQUET = "to-parquet"
FROM_PARQUET = "from-parquet"
KIND_QRELS = "qrels"
KIND_RUN = "run"


def parser() -> argparse.ArgumentParser:
    parsed = argparse.ArgumentParser(prog="convert_trec", description=__doc__.splitlines()[0])
    parsed.add_argument("direction", choices=(TO_PARQUET, FROM_PARQUET))
    parsed.add_argument("--kind", choices=(KIND_QRELS, KIND_RUN), required=True)
    parsed.add_argument("input")
    parsed.add_argument("output")
    parsed.add_argument("--partitions", type=int, default=1, help="text files written by from-parquet (default 1)")
    return parsed


def to_parquet(spark: SparkSession, kind: str, path: str) -> DataFrame:
    names = ColumnNames()
    if kind == KIND_QRELS:
        raw = read_trec(spark, path, "qrels", QRELS, names)
        fractional = raw.filter(F.col(c.RELEVANCE) != F.floor(F.col(c.RELEVANCE))).count()
        if fractional:
            raise InputError(f"qrels {path}: column 'relevance': {fractional} rows are not whole numbers")
        return raw.select(c.QUERY_ID, c.DOC_ID, F.col(c.RELEVANCE).cast("int").alias(c.RELEVANCE))
    raw = read_trec(spark, path, "run", RUN, names)
    return raw.select(c.RUN_ID, c.QUERY_ID, c.DOC_ID, c.SCORE, c.RANK)


def from_parquet(spark: SparkSession, kind: str, path: str) -> DataFrame:
    frame = read_parquet(spark, path, kind)
    if kind == KIND_QRELS:
        return qrels_lines(frame.select(c.QUERY_ID, c.DOC_ID, c.RELEVANCE))
    if c.RANK not in frame.columns:
        order = window([c.RUN_ID, c.QUERY_ID], ranking_order(ORDER_BY_SCORE))
        frame = frame.transform(with_tie_break).withColumn(c.RANK, F.expr(f"row_number() OVER ({order})")).drop(TIE_BREAK)
    return run_lines(frame.select(c.RUN_ID, c.QUERY_ID, c.DOC_ID, c.SCORE, c.RANK))


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    spark = SparkSession.builder.appName("ndcg-spark-convert-trec").getOrCreate()
    try:
        if args.direction == TO_PARQUET:
            to_parquet(spark, args.kind, args.input).write.mode("error").parquet(args.output)
        else:
            lines = from_parquet(spark, args.kind, args.input)
            lines.coalesce(args.partitions).write.mode("error").text(args.output)
    except NdcgSparkError as error:
        print(f"convert_trec: {error}", file=sys.stderr)
        return error.exit_code
    except Exception as error:  # noqa: BLE001 - one line for the person, e.g. output exists
        print(f"convert_trec: failed: {type(error).__name__}: {first_line(error)}", file=sys.stderr)
        return EXIT_FAILURE
    print(f"convert_trec: wrote {args.output}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
