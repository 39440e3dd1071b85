#!/usr/bin/env bash
# Creates .venv and installs the project with its test dependencies. Safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."

java_major() {
  java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}
if ! command -v java >/dev/null 2>&1; then
  echo "setup: Java not found. Spark 4 needs Java 17 or newer:" \
       "install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless) or set JAVA_HOME." >&2
  exit 1
fi
major="$(java_major)"
if [ -z "$major" ] || [ "$major" -lt 17 ]; then
  echo "setup: found Java ${major:-unknown}; Spark 4 needs Java 17 or newer" \
       "(Debian/Ubuntu: apt-get install openjdk-17-jre-headless)." >&2
  exit 1
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Reinstall only when the declared dependencies change.
stamp=".venv/.ndcg-spark-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[test]"
  echo "$want" > "$stamp"
fi
echo "setup: ready ($(.venv/bin/python -c 'import pyspark; print("pyspark", pyspark.__version__)'), Java $major)"
