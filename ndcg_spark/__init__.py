"""NDCG@k evaluation of ranked results on Spark, with trec_eval's semantics.

    from ndcg_spark import evaluate
    report = evaluate(judgments, results, ks=(5, 10))
    report.summary.show()

`evaluate` and `compare` work on DataFrames in the caller's session; `read_report` reads a
published report back, and `gate` says whether quality dropped against a baseline or an earlier
report; `NdcgEvaluator` plugs NDCG@k into pyspark.ml tuning; the `ndcg-spark` command (or
spark-submit jobs/evaluate_ndcg.py) runs the whole job: read, check, score, compare, publish."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ndcg_spark.errors import ConfigError, InputError, NdcgSparkError
from ndcg_spark.option_values import ColumnNames
from ndcg_spark.version import package_version

__version__ = package_version()

if TYPE_CHECKING:  # what _LAZY loads, for type checkers and editors
    from ndcg_spark.api import compare, evaluate, gate, read_qrels, read_run
    from ndcg_spark.evaluation import Evaluation, RunCounts
    from ndcg_spark.gate.verdict import GateRow, Verdict
    from ndcg_spark.publish.read_back import ReportNotReadable, published_dates, read_report
    from ndcg_spark.report.result import Report

# Loaded on first use, so that what needs no Spark (the trec_eval command, an evaluation of pandas
# or Arrow tables) starts without importing pyspark.
_LAZY = {
    "compare": "ndcg_spark.api",
    "evaluate": "ndcg_spark.api",
    "gate": "ndcg_spark.api",
    "read_qrels": "ndcg_spark.api",
    "read_run": "ndcg_spark.api",
    "Evaluation": "ndcg_spark.evaluation",
    "RunCounts": "ndcg_spark.evaluation",
    "GateRow": "ndcg_spark.gate.verdict",
    "Verdict": "ndcg_spark.gate.verdict",
    "ReportNotReadable": "ndcg_spark.publish.read_back",
    "published_dates": "ndcg_spark.publish.read_back",
    "read_report": "ndcg_spark.publish.read_back",
    "Report": "ndcg_spark.report.result",
}

# `gate` names both a subpackage (ndcg_spark/gate/) and the library's function. The subpackage is
# loaded now and its attribute dropped, so that loading its modules later never binds the name
# again: `ndcg_spark.gate` is the function, from _LAZY.
importlib.import_module("ndcg_spark.gate")
globals().pop("gate")


def __getattr__(name: str) -> object:
    """The library's names on first use; NdcgEvaluator too: pyspark.ml (and numpy) load only for
    those who tune models."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
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
