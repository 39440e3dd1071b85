"""The package root: its version from pyproject.toml."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import ndcg_spark
from tests.conftest import ROOT


def test_the_version_is_pyprojects() -> None:
    declared = re.search(r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert declared and ndcg_spark.__version__ == declared.group(1)


def test_a_spark_run_imports_no_numpy_pyarrow_or_pandas() -> None:
    """numpy, pyarrow and pandas load with the embedded engine and a comparison's draws, not with
    the package or the job's command (a driver's import, memory and start): none of them beyond
    what pyspark itself imports (numpy, on pyspark 4.0)."""
    heavy = "{m for m in ('numpy', 'pyarrow', 'pandas') if m in sys.modules}"
    probe = f"import sys, pyspark.sql; before = {heavy}; import ndcg_spark, ndcg_spark.job.cli; print(sorted({heavy} - before))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"


def test_the_command_keeps_freed_memory_for_arrow_and_numpy() -> None:
    """job/heap.py, in a process of its own (the setting is process-wide): Arrow on malloc, set
    without importing pyarrow (a Spark run's start stays free of it)."""
    code = (
        "import sys; from ndcg_spark.job.heap import keep_freed_memory; keep_freed_memory();"
        " print('pyarrow' in sys.modules); import pyarrow as pa; print(pa.default_memory_pool().backend_name)"
    )
    env = {name: value for name, value in os.environ.items() if name != "ARROW_DEFAULT_MEMORY_POOL"}
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    imported, after = shown.stdout.split()
    assert imported == "False"
    assert after == "system"
