"""The post-pass's shuffle partitions: sized only when adaptive execution is off."""

from __future__ import annotations

from typing import Any, cast

import pytest
from pyspark.sql import SparkSession

from ndcg_spark.spark_conf import ADAPTIVE, SHUFFLE_PARTITIONS, post_pass_settings


class _Conf:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


class _Session:
    """What post_pass_settings reads of a session: its conf."""

    def __init__(self, values: dict[str, str]) -> None:
        self.conf = _Conf(values)


def _session(adaptive: str | None, partitions: str) -> SparkSession:
    values = {SHUFFLE_PARTITIONS: partitions} | ({} if adaptive is None else {ADAPTIVE: adaptive})
    return cast(SparkSession, _Session(values))


@pytest.mark.parametrize("adaptive", ["true", "TRUE", None])
def test_adaptive_execution_coalesces_by_itself(adaptive: str | None) -> None:
    assert post_pass_settings(_session(adaptive, "200"), 1_000_000, 10_000) == {}


@pytest.mark.parametrize(
    ("partitions", "main_rows", "post_rows", "expected"),
    [
        ("200", 5_400, 180, "7"),  # 200 * 180 / 5400 = 6.67: rounded up
        ("200", 100_000_000, 1_000_000, "2"),
        ("7", 100, 100, "7"),  # never more than configured
        ("200", 1_000_000, 0, "1"),  # never fewer than one
        ("200", 0, 0, "1"),
    ],
)
def test_without_it_the_post_pass_keeps_the_main_pass_rows_per_task(
    partitions: str, main_rows: int, post_rows: int, expected: str
) -> None:
    settings = post_pass_settings(_session("false", partitions), main_rows, post_rows)
    assert settings == {SHUFFLE_PARTITIONS: expected}
