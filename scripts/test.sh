#!/usr/bin/env bash
# Sets up the project and runs the whole test suite, every tier (see tests/conftest.py).
#   scripts/test.sh            all tiers: unit, transforms, end_to_end, system
#   scripts/test.sh --quick    unit and transforms only: the edit-test loop
#   scripts/test.sh --spark-job  the end-to-end tier with every job on Spark (its `auto` picks the
#                              embedded engine for the tests' tiny inputs; CI runs the tier both ways)
#   scripts/test.sh -k NAME    extra arguments go to pytest
# The JVMs the tests start (spark-submit's, the test sessions', a standalone cluster's daemons) map
# a class data sharing archive made once by scripts/jvm_archive.sh and kept in .venv/: each starts
# about 7 s sooner. Making it takes 40-50 s: in a fresh clone it starts as soon as Spark is
# installed and runs beside the rest of the install (scripts/setup.sh --jvm-archive); later runs
# find it made. --quick starts one JVM, so it uses the archive only when an earlier run made it.
# The whole suite runs its test files on PYTEST_WORKERS processes (default 2; 0 runs them in this
# one): its system tier waits on JVMs starting, subprocesses and kills, so two overlap those waits.
# --quick runs in this process (default 0): its tests are CPU-bound, a second JVM only competes.
# Files go to the workers in the order tests/conftest.py gives them (longest tiers first).
set -euo pipefail
cd "$(dirname "$0")/.."
tiers=(tests)
default_workers=2
setup=(--jvm-archive)
if [ "${1:-}" = "--spark-job" ]; then
  shift
  tiers=(tests/end_to_end)
  export NDCG_TEST_ENGINE=spark
elif [ "${1:-}" = "--quick" ]; then
  shift
  tiers=(tests/unit tests/transforms)
  default_workers=0
  setup=()
fi
bash scripts/setup.sh "${setup[@]}"
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
export PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python"
workers="${PYTEST_WORKERS:-$default_workers}"
if [ "$default_workers" = 0 ]; then
  archive="$(bash scripts/jvm_archive.sh --if-made || true)"
else
  archive="$(bash scripts/jvm_archive.sh)" || archive=""
fi
if [ -n "$archive" ]; then
  shared="-XX:SharedArchiveFile=$archive -Xlog:cds*=off"
  export SPARK_SUBMIT_OPTS="${SPARK_SUBMIT_OPTS:-} $shared"
  export SPARK_DAEMON_JAVA_OPTS="${SPARK_DAEMON_JAVA_OPTS:-} $shared"
fi
parallel=()
if [ "$workers" != 0 ]; then
  parallel=(-n "$workers" --dist loadfile --no-loadscope-reorder)
fi
exec .venv/bin/python -m pytest -q -ra --durations=15 "${parallel[@]}" "${tiers[@]}" "$@"
