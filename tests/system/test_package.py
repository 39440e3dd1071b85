"""scripts/package.sh builds the wheel and the --py-files zip, and spark-submit runs the job from
the zip (not from the checkout or the installed package)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import HANG_SECONDS, JUDGMENTS, RESULTS, job_env, write

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import ndcg_spark
print("ndcg_spark from", ndcg_spark.__file__, "version", ndcg_spark.__version__)
sys.argv = ["evaluate_ndcg.py"] + sys.argv[1:]
exec(open(sys.argv.pop(1)).read())
"""


@pytest.mark.slow
def test_package_then_spark_submit_with_py_files(tmp_path: Path) -> None:
    before = sorted(path.name for path in ROOT.iterdir())
    dist = tmp_path / "dist"
    # Offline: pip may not reach an index (a build with isolation would fetch setuptools).
    offline = {**job_env(), "PIP_NO_INDEX": "1"}
    built = subprocess.run(
        ["bash", str(ROOT / "scripts" / "package.sh"), str(dist)],
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        env=offline,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    assert sorted(path.name for path in ROOT.iterdir()) == before  # no dist/, build/ or *.egg-info in the checkout
    wheels = list(dist.glob("ndcg_spark-*-py3-none-any.whl"))
    assert len(wheels) == 1
    with zipfile.ZipFile(wheels[0]) as wheel:
        assert "ndcg_spark/scoring/dcg.py" in wheel.namelist()
        entry_points = next(name for name in wheel.namelist() if name.endswith("entry_points.txt"))
        assert "ndcg-spark = ndcg_spark.job.cli:entry_point" in wheel.read(entry_points).decode()
    with zipfile.ZipFile(dist / "ndcg_spark.zip") as archive:
        names = archive.namelist()
    assert "ndcg_spark/__init__.py" in names and "ndcg_spark/report/html.py" in names
    # The wheel's metadata rides along, so that the version is read in the zip too.
    assert any(name.endswith(".dist-info/METADATA") for name in names), names

    # Run from an empty folder, the job given as dist's copy, the library only through --py-files.
    work = tmp_path / "elsewhere"
    work.mkdir()
    probe = work / "probe.py"
    probe.write_text(PROBE)
    judgments, results = write(tmp_path / "j.parquet", JUDGMENTS), write(tmp_path / "r.parquet", RESULTS)
    env = job_env()
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "spark-submit"),
            "--master",
            "local[2]",
            "--conf",
            "spark.ui.enabled=false",
            "--py-files",
            str(dist / "ndcg_spark.zip"),
            str(probe),
            str(dist / "evaluate_ndcg.py"),
            "--judgments",
            judgments,
            "--results",
            results,
            "--output",
            str(tmp_path / "out"),
            "--k",
            "1,2",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert f"ndcg_spark from {dist / 'ndcg_spark.zip'}" in done.stdout or "ndcg_spark.zip/ndcg_spark/__init__.py" in done.stdout
    assert pq.read_table(tmp_path / "out" / "summary").num_rows == 2 * 3
    version = re.search(r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1)
    assert f" version {version}" in done.stdout
    assert json.loads((tmp_path / "out" / "_manifests" / "latest.json").read_text())["versions"]["ndcg_spark"] == version
