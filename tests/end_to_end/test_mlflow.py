"""--mlflow-experiment: the summary as metrics, the config as params, the gate's verdict and the
table and page as artifacts, in a local file store; without MLflow, a usage error before Spark."""

from __future__ import annotations

import sys
from pathlib import Path

# The test extra installs MLflow: without it this file fails to import, not skips (CI must see a
# broken install).
import mlflow
import pyarrow.parquet as pq
import pytest

from ndcg_spark.errors import EXIT_OK, EXIT_USAGE
from ndcg_spark.job.cli import main
from ndcg_spark.publish.mlflow_log import MlflowLogError, log_to_mlflow, metric_name
from ndcg_spark.report.html import PLOTLY_FILE
from tests.conftest import error_lines, run_job


@pytest.fixture()
def tracking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    uri = (tmp_path / "mlruns").as_uri()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 keeps its file store for tests like this one
    mlflow.set_tracking_uri(uri)
    return uri


def test_the_report_is_logged(inputs, tmp_path: Path, tracking: str) -> None:
    judgments, results = inputs
    extra = ["--k", "1,2", "--measure", "P.1", "--baseline", "r1", "--fail-on-drop", "0.5", "--mlflow-experiment", "nightly"]
    assert run_job(judgments, results, tmp_path / "out", "--eval-date", "2026-12-01", *extra, html=True) == EXIT_OK
    client = mlflow.MlflowClient(tracking)
    experiment = client.get_experiment_by_name("nightly")
    runs = client.search_runs([experiment.experiment_id])
    parent = next(run for run in runs if run.info.run_name == "ndcg-spark 2026-12-01")
    children = {run.info.run_name: run for run in runs if run.data.tags.get("mlflow.parentRunId") == parent.info.run_id}
    assert sorted(children) == ["r1", "r2"]
    assert set(children["r2"].data.metrics) == {"ndcg_cut_1", "ndcg_cut_2", "ndcg", "P_1"}
    summary = pq.read_table(tmp_path / "out" / "summary" / "eval_date=2026-12-01").to_pylist()
    for run, child in children.items():
        published = {metric_name(row["measure"], row["k"]): row["value"] for row in summary if row["run_id"] == run}
        assert child.data.metrics == published  # every value, to the last bit
    params = parent.data.params
    assert (
        params["ks"] == "[1, 2]"
        and params["gate.fail_on_drop"] == "0.5"
        and params["baseline"] == "r1"
        and params["judgments"] == judgments
    )
    assert parent.data.tags["ndcg_spark.gate"] == "passed" and parent.data.metrics["gate_passed"] == 1.0
    gate = pq.read_table(tmp_path / "out" / "gate" / "eval_date=2026-12-01").to_pylist()
    differences = {f"gate.{row['run_id']}.{metric_name(row['measure'], row['k'])}.difference": row["difference"] for row in gate}
    assert len(differences) == 2  # r2 against r1 at NDCG@1 and NDCG@2, the cutoffs gated by default
    assert {key: value for key, value in parent.data.metrics.items() if key.startswith("gate.")} == differences
    artifacts = sorted(item.path for item in client.list_artifacts(parent.info.run_id, "report"))
    assert artifacts == sorted(["report/2026-12-01.html", "report/2026-12-01.md", f"report/{PLOTLY_FILE}"])  # the page opens


def test_asking_for_mlflow_without_it_is_a_usage_error(inputs, tmp_path: Path, capsys, monkeypatch) -> None:
    judgments, results = inputs
    monkeypatch.setitem(sys.modules, "mlflow", None)  # as if not installed
    code = main(["--judgments", judgments, "--results", results, "--output", str(tmp_path / "o"), "--mlflow-experiment", "x"])
    assert code == EXIT_USAGE
    assert error_lines(capsys.readouterr().err) == [
        "ndcg-spark: --mlflow-experiment needs MLflow on the driver (import of mlflow halted; None in sys.modules):"
        " pip install mlflow-skinny, or drop --mlflow-experiment (config file: [mlflow] experiment)"
    ]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "raised, reported",
    [
        (mlflow.exceptions.MlflowException("RESOURCE_DOES_NOT_EXIST: no such experiment"), True),
        (ConnectionError("Connection refused"), True),
        (TypeError("a bug of ours"), False),
    ],
)
def test_only_mlflows_and_the_networks_errors_are_a_logging_failure(monkeypatch, raised, reported) -> None:
    def refuse(name: str) -> None:
        raise raised

    monkeypatch.setattr(mlflow, "set_experiment", refuse)
    with pytest.raises(MlflowLogError if reported else TypeError) as caught:
        log_to_mlflow("nightly", "2026-12-01", None, None, {}, {}, "out")  # type: ignore[arg-type]
    if reported:
        assert str(caught.value).startswith(f"MLflow experiment 'nightly': {type(raised).__name__}: ")
