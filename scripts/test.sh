#!/usr/bin/env bash
# Sets up the project and runs the whole test suite (extra arguments go to pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
export PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python"
exec .venv/bin/python -m pytest -q -ra --durations=15 "$@"
