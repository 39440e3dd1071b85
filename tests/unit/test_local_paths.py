"""Local input paths, checked before any engine starts: what is local, and a missing one refused
in one line that names it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ndcg_spark.errors import InputError
from ndcg_spark.io.local_paths import local_path, require_local


@pytest.mark.parametrize(
    ("path", "local"),
    [
        ("data/judgments.parquet", "data/judgments.parquet"),
        ("/abs/run", "/abs/run"),
        ("file:///abs/run", "/abs/run"),
        ("hdfs://nn/data/run", None),
        ("s3a://bucket/run", None),
        ("data/part-*.parquet", None),
    ],
)
def test_local_paths_are_told_from_others(path: str, local: str | None) -> None:
    assert local_path(path) == local


def test_a_missing_local_path_is_refused_and_an_existing_one_is_not(tmp_path: Path) -> None:
    require_local(str(tmp_path), "judgments")
    require_local("hdfs://nn/nowhere", "judgments")  # Hadoop's to resolve, later
    with pytest.raises(InputError, match=re.escape(f"results {tmp_path}/nowhere: no such file or folder")):
        require_local(f"{tmp_path}/nowhere", "results")
