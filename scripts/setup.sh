#!/usr/bin/env bash
# Creates .venv and installs the project with its test dependencies. Safe to rerun.
#   scripts/setup.sh                 install what is missing
#   scripts/setup.sh --extras demo   only what the demo needs (the job and pyarrow for its sample),
#                                    not the test tools (scripts/demo.sh); the default is test
#   scripts/setup.sh --jvm-archive   also start making the JVM archive (scripts/jvm_archive.sh) in
#                                    the background as soon as Spark is installed: it overlaps the
#                                    rest of the install (and whatever runs next); the next
#                                    jvm_archive.sh waits for it instead of making a second one
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

archive_in_background=false
extras=test
while [ $# -gt 0 ]; do
  case "$1" in
    --jvm-archive) archive_in_background=true ;;
    --extras) extras="$2"; shift ;;
    *) echo "setup: unknown argument $1 (--jvm-archive, --extras demo|test)" >&2; exit 2 ;;
  esac
  shift
done
start_archive() {
  if $archive_in_background; then
    mkdir -p .venv/jvm-archive
    bash scripts/jvm_archive.sh >.venv/jvm-archive/make.log 2>&1 &
  fi
}

PYTHON="${PYTHON:-python3}"
# 3.11: the job reads its config file with tomllib (pyproject.toml's requires-python).
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "setup: $PYTHON is not Python 3.11 or newer ($("$PYTHON" --version 2>&1 | head -1));" \
       "install one, or name it: PYTHON=python3.12 scripts/setup.sh" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Reinstall only when the declared dependencies or this script change, or more extras are asked
# for (the test extras hold the demo's).
stamp=".venv/.ndcg-spark-installed"
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)"
installed="$(cat "$stamp" 2>/dev/null || true)"
if [ "$installed" != "$want test" ] && [ "$installed" != "$want $extras" ]; then
  # pip, and setuptools for scripts/package.sh's build without isolation (no fetch at build time;
  # from 70.1 it builds wheels without the wheel package).
  .venv/bin/python -m pip install --quiet --upgrade pip "setuptools>=70.1"
  # Spark first (pyproject.toml's own requirement), so the archive can start while the rest installs.
  spark="$(.venv/bin/python -c 'import tomllib; print(next(r for r in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"] if r.startswith("pyspark")))' 2>/dev/null || true)"
  if [ -n "$spark" ]; then
    .venv/bin/python -m pip install --quiet "$spark"
  fi
  start_archive
  .venv/bin/python -m pip install --quiet -e ".[$extras]"
  echo "$want $extras" > "$stamp"
else
  start_archive
fi
echo "setup: ready ($(.venv/bin/python -c 'import pyspark; print("pyspark", pyspark.__version__)'), Java $major)"
