#!/usr/bin/env bash
# The unit and transforms tiers on the lowest pyspark that pyproject.toml supports (its lower
# bound), in .venv-lowest; scripts/test.sh runs every tier on the newest. CI runs both, so a
# version the project claims is a version it tests. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
venv=.venv-lowest
lowest="$("$PYTHON" -c '
import re, tomllib
spec = next(r for r in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"] if r.startswith("pyspark"))
print(re.search(r">=\s*([0-9.]+)", spec).group(1))')"
if [ ! -x "$venv/bin/python" ]; then
  "$PYTHON" -m venv "$venv"
fi
stamp="$venv/.ndcg-spark-installed"
want="$(cat pyproject.toml scripts/test_lowest.sh | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --upgrade pip "setuptools>=70.1"
  constraints="$(mktemp)"
  trap 'rm -f "$constraints"' EXIT
  echo "pyspark==$lowest" > "$constraints"
  # The test extras as the main environment has them, with pyspark held at the lower bound. The
  # package itself is not installed: pytest puts the checkout on the path (pyproject.toml).
  extras="$("$PYTHON" -c '
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join([*project["dependencies"], *project["optional-dependencies"]["test"]]))')"
  mapfile -t requirements <<<"$extras"
  "$venv/bin/python" -m pip install --quiet -c "$constraints" "${requirements[@]}"
  "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$lowest')"
  echo "$want" > "$stamp"
fi
export PYSPARK_PYTHON="$PWD/$venv/bin/python"
export PYSPARK_DRIVER_PYTHON="$PWD/$venv/bin/python"
echo "test_lowest: pyspark $("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)')"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/unit tests/transforms "$@"
