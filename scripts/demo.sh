#!/usr/bin/env bash
# Sets up the project, generates a small sample in sample/, runs the job on it and prints the
# run x k table. Outputs land in out/demo. The sample fits one machine, so the job runs in this
# process on the embedded engine (no JVM); `scripts/demo.sh --engine spark` runs the same job on a
# local Spark, with the same numbers (docs/engines.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --extras demo
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
export PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python"
.venv/bin/python scripts/make_sample.py --out sample
.venv/bin/ndcg-spark --config conf/local.toml "$@"
