#!/usr/bin/env bash
# Sets up the project and runs the whole test suite, every tier (see tests/conftest.py).
#   scripts/test.sh            all tiers: unit, transforms, end_to_end, system
#   scripts/test.sh --quick    unit and transforms only: the edit-test loop
#   scripts/test.sh -k NAME    extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
export PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python"
tiers=(tests)
if [ "${1:-}" = "--quick" ]; then
  shift
  tiers=(tests/unit tests/transforms)
fi
exec .venv/bin/python -m pytest -q -ra --durations=15 "${tiers[@]}" "$@"
