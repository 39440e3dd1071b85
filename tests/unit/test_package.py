"""The package root: its version from pyproject.toml, and NdcgEvaluator's import naming its extra."""

from __future__ import annotations

import re
import subprocess
import sys

import ndcg_spark
from tests.conftest import ROOT

# pyspark.ml imports numpy; None in sys.modules makes that import fail as if numpy were missing.
_WITHOUT_NUMPY = """
import sys
sys.modules["numpy"] = None
try:
    from ndcg_spark import NdcgEvaluator
except ModuleNotFoundError as error:
    print(error)
"""


def test_the_version_is_pyprojects() -> None:
    declared = re.search(r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert declared and ndcg_spark.__version__ == declared.group(1)


def test_the_evaluator_without_numpy_names_the_ml_extra() -> None:
    done = subprocess.run([sys.executable, "-c", _WITHOUT_NUMPY], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "NdcgEvaluator needs pyspark.ml, which needs numpy: pip install numpy"
