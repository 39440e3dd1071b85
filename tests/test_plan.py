"""The physical plan: each input is shuffled by query_id once, so the property cannot regress."""

from __future__ import annotations

import re

from pyspark.sql import SparkSession

from ndcg_spark.metrics import ndcg_per_query
from tests.trec_text import JUDGMENTS_DDL, RESULTS_DDL

_EXCHANGE = re.compile(r"^[\s:|+-]*(\*\(\d+\) )?Exchange hashpartitioning", re.MULTILINE)
_REUSED = re.compile(r"^[\s:|+-]*ReusedExchange", re.MULTILINE)


def test_one_shuffle_per_input(spark: SparkSession) -> None:
    results = spark.createDataFrame([("r", "q", "a", 1.0, None)], RESULTS_DDL)
    judgments = spark.createDataFrame([("q", "a", 1)], JUDGMENTS_DDL)
    settings = {"spark.sql.adaptive.enabled": "false", "spark.sql.autoBroadcastJoinThreshold": "-1"}
    previous = {key: spark.conf.get(key) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        per_query = ndcg_per_query(results, judgments, ks=[5, 10])
        plan = per_query._jdf.queryExecution().executedPlan().toString()
    finally:
        for key, value in previous.items():
            spark.conf.set(key, value)
    # results once, judgments once (the ideal DCG reuses the judgments' exchange)
    assert len(_EXCHANGE.findall(plan)) == 2, plan
    assert len(_REUSED.findall(plan)) == 1, plan
