"""NDCG@k evaluation of ranked results on Spark, with trec_eval's semantics.

    from ndcg_spark import evaluate
    report = evaluate(judgments, results, ks=(5, 10))
    report.summary.show()

`evaluate` and `compare` work on DataFrames in the caller's session; `read_report` reads a
published report back, and `gate` says whether quality dropped against a baseline or an earlier
report; `NdcgEvaluator` plugs NDCG@k into pyspark.ml tuning; the `ndcg-spark` command (or
spark-submit jobs/evaluate_ndcg.py) runs the whole job: read, check, score, compare, publish."""

from __future__ import annotations

from ndcg_spark.api import compare, evaluate, gate, read_qrels, read_run
from ndcg_spark.errors import ConfigError, InputError, NdcgSparkError
from ndcg_spark.evaluation import Evaluation, RunCounts
from ndcg_spark.gate.verdict import GateRow, Verdict
from ndcg_spark.option_values import ColumnNames
from ndcg_spark.publish.read_back import ReportNotReadable, published_dates, read_report
from ndcg_spark.report.result import Report
from ndcg_spark.version import package_version

__version__ = package_version()


def __getattr__(name: str) -> object:
    """NdcgEvaluator on first use: pyspark.ml (and numpy) load only for those who tune models."""
    if name == "NdcgEvaluator":
        try:
            from ndcg_spark.tuning import NdcgEvaluator
        except ModuleNotFoundError as error:  # pyspark.ml's own message names numpy, not the fix
            raise ModuleNotFoundError(
                f"NdcgEvaluator needs pyspark.ml, which needs {error.name}: pip install {error.name}",
                name=error.name,
            ) from error
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
    "GateRow",
    "ReportNotReadable",
    "Verdict",
    "compare",
    "evaluate",
    "gate",
    "published_dates",
    "read_qrels",
    "read_report",
    "read_run",
]
