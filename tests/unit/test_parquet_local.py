"""Parquet read in this process reads what the evaluation needs: the columns asked for that the
input has, every column when a required one is missing (for the message to list what is there)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import InputError
from ndcg_spark.io.parquet_local import read_parquet_table


def test_reads_only_the_columns_needed(tmp_path: Path) -> None:
    path = tmp_path / "results.parquet"
    pq.write_table(pa.table({"query_id": ["q"], "doc_id": ["d"], "score": [1.0], "payload": ["x" * 100]}), path)
    wanted, required = ["query_id", "doc_id", "score", "run_id", "rank"], ["query_id", "doc_id", "score"]
    assert read_parquet_table(str(path), "results", wanted, required).column_names == ["query_id", "doc_id", "score"]
    # A required column missing: every column, so that the checks name what is there.
    everything = read_parquet_table(str(path), "results", [*wanted, "relevance"], [*required, "relevance"])
    assert everything.column_names == ["query_id", "doc_id", "score", "payload"]


def test_files_that_disagree_on_a_type_are_named(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    pq.write_table(pa.table({"query_id": ["q"], "score": [1.0]}), folder / "a.parquet")
    pq.write_table(pa.table({"query_id": [1], "score": [1.0]}), folder / "b.parquet")
    with pytest.raises(
        InputError, match=r"results .*: its files disagree on the schema: column 'query_id' is string in .*a\.parquet"
    ):
        read_parquet_table(str(folder), "results")
