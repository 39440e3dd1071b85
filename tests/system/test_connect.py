"""The Python API on Spark Connect: the same rows and numbers as on the classic session, to the
bit, and pytrec_eval's, with the checks, the comparison, the tables and the evaluator.

The Connect side runs tests/connect_scenarios.py in a process of its own, which starts a local
Connect server from the pyspark package (pyspark picks Connect or classic for a whole process);
this process runs the same scenarios on the classic test session meanwhile. A report the job
published (in this process, before) is read back and gated on both."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from ndcg_spark import columns as c
from ndcg_spark.errors import EXIT_OK
from ndcg_spark.measures import parse_measures
from ndcg_spark.scoring.dcg import PER_QUERY_COLUMNS
from tests import connect_scenarios, oracle
from tests.conftest import HANG_SECONDS, JUDGMENTS, RESULTS, ROOT, job_env, run_job, write
from tests.plans import MAIN_PASS_SORTS
from tests.references import generated, pytrec_ndcg

pytestmark = pytest.mark.slow

# Where each column sits in a per_query row.
_INDEX = {name: i for i, name in enumerate(PER_QUERY_COLUMNS)}


def _publish_two_dates(inputs: Path, output: Path) -> None:
    """The job's report of two dates, the second gated against the first (read_back's input)."""
    judgments = write(inputs / "j" / "part-0.parquet", JUDGMENTS)
    results = write(inputs / "r" / "part-0.parquet", RESULTS)
    for date in ("2026-12-01", "2026-12-02"):
        gated = ["--against-previous", "--fail-on-drop", "0.01", "--baseline", "r1", "--k", "1,2"]
        assert run_job(judgments, results, output, "--eval-date", date, *gated) == EXIT_OK


@pytest.fixture(scope="module")
def both(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict, dict]]:
    """(classic, connect): every scenario's result on each kind of session, both through JSON."""
    connect_dir, classic_dir = tmp_path_factory.mktemp("connect"), tmp_path_factory.mktemp("classic")
    _publish_two_dates(tmp_path_factory.mktemp("inputs"), classic_dir / connect_scenarios.PUBLISHED)
    shutil.copytree(classic_dir / connect_scenarios.PUBLISHED, connect_dir / connect_scenarios.PUBLISHED)  # times kept
    out, log = connect_dir / "results.json", connect_dir / "connect.log"
    # The Connect server's JVM lives for the scenarios' minute or two: the short-lived options
    # (C1 alone: 139 CPU seconds instead of 198, the same time on an idle machine).
    env = job_env(pythonpath=True)
    # Started first, so that it runs while this process computes the classic side; its output goes
    # to a file (a pipe nobody reads until then would fill and stall it).
    with log.open("w") as printed:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.connect_scenarios", str(out), str(connect_dir)],
            cwd=ROOT,
            env=env,
            stdout=printed,
            stderr=subprocess.STDOUT,
        )
        try:
            classic = json.loads(json.dumps(connect_scenarios.run_all(spark, classic_dir, connect_scenarios.SCENARIOS)))
            process.wait(timeout=HANG_SECONDS)  # a bound against a hung server only
        finally:
            process.kill()
    assert process.returncode == 0, log.read_text(errors="replace")[-5000:]
    yield classic, json.loads(out.read_text())


def _per_query(report: dict[str, Any]) -> dict[tuple, float]:
    """(run, query, k) -> ndcg, from a scenario's per_query rows (k None: the uncut ndcg)."""
    key = [_INDEX[name] for name in (c.RUN_ID, c.QUERY_ID, c.K)]
    ndcg = (c.MEASURE_CUT, c.MEASURE_UNCUT)
    return {tuple(row[i] for i in key): row[_INDEX[c.NDCG]] for row in report["per_query"] if row[_INDEX[c.MEASURE]] in ndcg}


def _values(report: dict[str, Any]) -> dict[tuple, float]:
    """(run, query, measure, k) -> value of every other measure, from a scenario's per_query rows."""
    key = [_INDEX[name] for name in (c.RUN_ID, c.QUERY_ID, c.MEASURE, c.K)]
    ndcg = (c.MEASURE_CUT, c.MEASURE_UNCUT)
    return {tuple(row[i] for i in key): row[_INDEX[c.VALUE]] for row in report["per_query"] if row[_INDEX[c.MEASURE]] not in ndcg}


@pytest.mark.parametrize("scenario", list(connect_scenarios.SCENARIOS))
def test_connect_gives_the_classic_sessions_rows_to_the_bit(both: tuple[dict, dict], scenario: str) -> None:
    classic, connect = both
    # JSON text: floats as their shortest round-trip text, so equal text is equal bits.
    assert json.dumps(connect[scenario], sort_keys=True) == json.dumps(classic[scenario], sort_keys=True)


def test_the_worked_example(both: tuple[dict, dict]) -> None:
    """[3, 2, 3, 0, 1]: DCG@5 6.149, IDCG@5 6.323, NDCG@5 their ratio (0.97236)."""
    _, connect = both
    grades = connect_scenarios.WORKED_EXAMPLE
    want = oracle.dcg(grades, 5) / oracle.dcg(sorted(grades, reverse=True), 5)
    row = next(row for row in connect["worked_example"]["per_query"] if row[_INDEX[c.K]] == 5)
    assert (round(row[_INDEX[c.DCG]], 3), round(row[_INDEX[c.IDCG]], 3)) == (6.149, 6.323)
    assert row[_INDEX[c.NDCG]] == pytest.approx(want, abs=1e-12)


def test_generated_data_with_ties_equals_pytrec_eval(both: tuple[dict, dict]) -> None:
    _, connect = both
    results, judgments = generated(seed=5)
    got = _per_query(connect["ties"]["plain"])
    want = pytrec_ndcg(results, judgments, [1, 3, 5, 20])
    assert set(got) == set(want) and got
    assert got == pytest.approx(want, abs=1e-9)


def test_variants_equal_the_oracle(both: tuple[dict, dict]) -> None:
    _, connect = both
    results, judgments = generated(seed=11)
    for i, options in enumerate(connect_scenarios.VARIANTS):
        want = oracle.ndcg(
            results,
            judgments,
            [1, 3, 5, 20],
            options.get("gain", "linear"),
            complete=options.get("complete", False),
            table=options.get("gains"),
            judged_only=options.get("judged_only", False),
            max_depth=options.get("max_depth"),
        )
        assert _per_query(connect["variants"][str(i)]) == pytest.approx(want, abs=1e-9), options
        asked = parse_measures(options["measures"]) if "measures" in options else ()
        binary = oracle.binary(
            results,
            judgments,
            [(measure.name, measure.k) for measure in asked],
            level=options.get("relevance_level", 1),
            complete=options.get("complete", False),
            judged_only=options.get("judged_only", False),
            max_depth=options.get("max_depth"),
        )
        assert _values(connect["variants"][str(i)]) == pytest.approx(binary, abs=1e-9), options


def test_refusals_are_the_classic_ones(both: tuple[dict, dict]) -> None:
    _, connect = both
    refused = connect["refusals"]
    assert refused["duplicates"]["error"] == "InputError" and "retrieved more than once" in refused["duplicates"]["message"]
    assert refused["duplicates"]["message"].endswith('pass duplicate_results="keep_best" to keep the best-scored copy')
    assert refused["nan"]["error"] == "InputError" and "rows are NaN" in refused["nan"]["message"]
    assert refused["column"]["error"] == "InputError" and "missing column(s) 'relevance'" in refused["column"]["message"]
    assert refused["option"]["error"] == "ConfigError"
    assert refused["baseline"]["error"] == "ConfigError"


def test_comparison_and_tables(both: tuple[dict, dict]) -> None:
    _, connect = both
    compared = connect["comparison"]
    # r2 against r1: NDCG at 3, 10 and uncut, P@3 and map; compare() reads the same rows
    assert len(compared["comparison"]) == 5 == len(compared["compare"])
    assert compared["comparison"] == compared["compare"]
    assert compared["slices"] and "| r1 (baseline) |" in compared["markdown"] and "\\begin{tabular}" in compared["latex"]
    assert compared["printed"].splitlines()[0].split() == [
        "run",
        "ndcg@3",
        "ndcg@10",
        "ndcg",
        "P@3",
        "map",
        "queries",
        "missing",
        "skipped",
    ]


def test_the_evaluators_refusals_name_its_parameters_and_the_fix(both: tuple[dict, dict]) -> None:
    _, connect = both
    refused = {**connect["evaluator"], **connect["cold_start"]}
    for case in ("nan", "misnamed", "cold_start_nan"):
        assert "\n" not in refused[case]["message"], refused[case]
    assert refused["misnamed"] == {
        "error": "ConfigError",
        "message": "NdcgEvaluator: labelCol='rating' not in the dataset (found: query_id, doc_id, label, good, noise,"
        " prediction); set the parameter to one of these columns",
    }
    assert refused["nan"]["message"].startswith("NdcgEvaluator: predictionCol 'prediction': 12 of 72 rows are NaN;")
    cold = refused["cold_start_nan"]
    assert cold["error"] == "InputError" and cold["message"].startswith("NdcgEvaluator: predictionCol 'prediction': ")
    assert 'coldStartStrategy="drop"' in cold["message"]


def test_tuning_picks_the_telling_feature(both: tuple[dict, dict]) -> None:
    _, connect = both
    tuned = connect["tuning"]
    # The label is the feature `good`: its model ranks each query's candidates in the ideal order
    # (a fold's query whose candidates are all graded 0 scores 0 and counts, so the mean may be
    # below 1); the model of noise does worse.
    noise, good = tuned["cross_validator"]
    assert good > noise + 0.03, tuned
    assert tuned["cross_validator_best"] == "by_good"


def test_the_connect_plan_shuffles_each_input_once(both: tuple[dict, dict]) -> None:
    """As tests/transforms/test_plan.py checks the classic plan: two exchanges (one per input,
    the ideal side reusing the judgments'), no broadcast, and the main pass's sorts as
    tests/plans.py measured them for this pyspark; the same counts as classic (the rows test above)."""
    _, connect = both
    plan = dict(connect["plan"])
    assert plan.pop("sorts") in MAIN_PASS_SORTS, connect["plan"]
    assert plan == {"exchanges": 2, "reused": 1, "broadcasts": 0}


def test_a_published_report_reads_back_and_gates_alike(both: tuple[dict, dict]) -> None:
    classic, connect = both
    found = connect["read_back"]
    assert found["dates"] == ["2026-12-01", "2026-12-02"]
    assert found["verdict"].startswith(
        "gate: passed against the report of 2026-12-01: none of 2 gated shows a fall of more than 0.01"
    )
    assert found["against_baseline"].startswith("gate: ")
    assert sorted((row[0], row[2], row[4]) for row in found["gate"]) == [
        ("baseline", "r2", 1),
        ("baseline", "r2", 2),
        ("date", "r1", 1),
        ("date", "r1", 2),
        ("date", "r2", 1),
        ("date", "r2", 2),
    ]
    assert found["refused"]["error"] == "ConfigError" and "for 2026-11-30" in found["refused"]["message"]
