"""Logging a published report to MLflow (--mlflow-experiment, [mlflow] experiment): one MLflow run
per job run, holding the effective config as params, the gate's verdict and the table and page
as artifacts, with a nested run per evaluated system holding its summary (one metric per
measure and cutoff, named as trec_eval prints it: ndcg_cut_10, P_5, map). The tracking server is
MLflow's own setting, MLFLOW_TRACKING_URI. MLflow is imported only here, only when asked for."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ndcg_spark import columns as c
from ndcg_spark.errors import NdcgSparkError
from ndcg_spark.evaluation import Evaluation
from ndcg_spark.gate.verdict import Verdict
from ndcg_spark.measures import Measure

MAX_PARAM_CHARS = 500  # MLflow's older servers refuse longer param values
_UNSAFE = re.compile(r"[^A-Za-z0-9_\-. /]")


class MlflowLogError(NdcgSparkError):
    """MLflow could not be reached or refused the run (exit 1: the report itself is published)."""


def metric_name(measure: str, k: int | None) -> str:
    return Measure(measure, k).trec_eval


def _params(settings: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """The config as flat params: nested tables as table.key, lists as JSON."""
    flat: dict[str, str] = {}
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_params(value, f"{name}."))
        else:
            text = value if isinstance(value, str) else json.dumps(value, default=str)
            flat[_UNSAFE.sub("_", name)] = text[:MAX_PARAM_CHARS]
    return flat


def log_to_mlflow(
    experiment: str,
    label: str,
    evaluation: Evaluation,
    verdict: Verdict | None,
    settings: Mapping[str, Any],
    files: Mapping[str, str],
    output: str,
) -> str:
    """Log the report; returns the MLflow run's id. MLflow's own errors and the network's (or the
    file store's) become MlflowLogError; any other error is a bug of ours, and is raised as it is."""
    import mlflow
    from mlflow.exceptions import MlflowException

    try:
        mlflow.set_experiment(experiment)
        with mlflow.start_run(run_name=f"ndcg-spark {label}") as parent:
            mlflow.set_tags({"ndcg_spark.eval_date": label, "ndcg_spark.output": output})
            mlflow.log_params(_params(settings))
            if verdict is not None:
                mlflow.set_tag("ndcg_spark.gate", "passed" if verdict.passed else "failed")
                mlflow.log_metric("gate_passed", 1.0 if verdict.passed else 0.0)
                for row in verdict.rows:
                    if row.difference is not None:
                        key = _UNSAFE.sub("_", f"gate.{row.run_id}.{metric_name(row.measure, row.k)}.difference")
                        mlflow.log_metric(key, row.difference)
            for name, text in files.items():
                mlflow.log_text(text, f"report/{name}")
            for run in evaluation.run_ids:
                metrics = {
                    metric_name(row[c.MEASURE], row[c.K]): float(row[c.VALUE])
                    for row in evaluation.summary
                    if row[c.RUN_ID] == run and row[c.VALUE] is not None
                }
                with mlflow.start_run(run_name=run, nested=True):
                    mlflow.set_tags({"ndcg_spark.run_id": run, "ndcg_spark.eval_date": label})
                    mlflow.log_metrics(metrics)
                    if verdict is not None:
                        failed = any(row.run_id == run for row in verdict.failed)
                        mlflow.set_tag("ndcg_spark.gate", "failed" if failed else "passed")
            return str(parent.info.run_id)
    except (MlflowException, OSError) as error:  # OSError: requests' errors, a connection's, a file store's
        raise MlflowLogError(f"MLflow experiment {experiment!r}: {type(error).__name__}: {error}".splitlines()[0]) from error
