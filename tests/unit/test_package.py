"""The package root: its version from pyproject.toml."""

from __future__ import annotations

import re

import ndcg_spark
from tests.conftest import ROOT


def test_the_version_is_pyprojects() -> None:
    declared = re.search(r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert declared and ndcg_spark.__version__ == declared.group(1)
