"""NDCG@k evaluation of ranked results on Spark, with trec_eval's semantics.

    from ndcg_spark import evaluate
    report = evaluate(judgments, results, ks=(5, 10))
    report.summary.show()

`evaluate` and `compare` work on DataFrames in the caller's session; `NdcgEvaluator` plugs NDCG@k
into pyspark.ml tuning; the `ndcg-spark` command (or spark-submit jobs/evaluate_ndcg.py) runs the
whole job: read, check, score, compare, publish."""

from __future__ import annotations

__version__ = "0.1.0"

from ndcg_spark.api import Report, compare, evaluate, read_qrels, read_run  # noqa: E402
from ndcg_spark.errors import ConfigError, InputError, NdcgSparkError  # noqa: E402
from ndcg_spark.evaluation import Evaluation, RunCounts  # noqa: E402
from ndcg_spark.options import ColumnNames  # noqa: E402


def __getattr__(name: str) -> object:
    """NdcgEvaluator on first use: pyspark.ml (and numpy) load only for those who tune models."""
    if name == "NdcgEvaluator":
        from ndcg_spark.evaluator import NdcgEvaluator

        return NdcgEvaluator
    raise AttributeError(f"module 'ndcg_spark' has no attribute {name!r}")

__all__ = [
    "ColumnNames",
    "ConfigError",
    "Evaluation",
    "InputError",
    "NdcgEvaluator",
    "NdcgSparkError",
    "Report",
    "RunCounts",
    "__version__",
    "compare",
    "evaluate",
    "read_qrels",
    "read_run",
]
