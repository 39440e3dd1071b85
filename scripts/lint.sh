#!/usr/bin/env bash
# ruff (lint, import order and formatting) and mypy (types) on the package, the entry points, tests
# and scripts. `ruff format ndcg_spark jobs tests scripts conf` fixes what the format check names.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
.venv/bin/ruff check ndcg_spark jobs tests scripts conf
.venv/bin/ruff format --check ndcg_spark jobs tests scripts conf
.venv/bin/mypy
