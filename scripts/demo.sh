#!/usr/bin/env bash
# Sets up the project, generates a small sample in sample/, runs the job with spark-submit
# in local mode and prints the run x k table. Outputs land in out/demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --extras demo
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
export PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python"
.venv/bin/python scripts/make_sample.py --out sample
.venv/bin/spark-submit --master 'local[2]' \
  --driver-java-options "-Dlog4j2.configurationFile=ndcg_spark/log4j2.properties" \
  jobs/evaluate_ndcg.py --config conf/local.toml "$@"
