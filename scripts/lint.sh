#!/usr/bin/env bash
# ruff (lint and import order) and mypy (types) on the package, the entry points, tests and scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
.venv/bin/ruff check ndcg_spark jobs tests scripts conf
.venv/bin/mypy
