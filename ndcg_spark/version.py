"""The package's version, from its one source: `version` in pyproject.toml.

Installed (a wheel, `pip install -e`, or the zip scripts/package.sh builds, which carries the
wheel's metadata), it is the distribution's; in a checkout on PYTHONPATH, pyproject.toml's beside
the package. Read here rather than from the package root, whose import loads the whole API."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "ndcg-spark"
UNKNOWN = "unknown"
_PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
_VERSION_LINE = re.compile(r'^version\s*=\s*"([^"]+)"', re.MULTILINE)


def package_version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    try:
        found = _VERSION_LINE.search(_PYPROJECT.read_text())
    except OSError:
        return UNKNOWN
    return found.group(1) if found else UNKNOWN
