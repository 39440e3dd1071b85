#!/usr/bin/env bash
# The package installed alone, as the README says (`pip install .`), with only the dependencies it
# declares: no test extras to bring in what it forgot. In a fresh .venv-install, from a folder
# outside the checkout (Spark's Python workers would import the checkout's package first), it runs
# each path that needs a dependency of its own:
#   - on Spark, the comparison's draws as arrays (--resampling arrays: numpy, pyarrow and pandas in
#     the Python workers, through pyspark's mapInArrow) and the gate reading them;
#   - the same job on the embedded engine (auto's choice for the sample: numpy and pyarrow in
#     this process), its page and its datasets;
#   - the HTML page (plotly) and the Markdown beside it;
#   - `ndcg-spark trec_eval`, its stdout byte for byte trec_eval's on its own test file.
# A dependency the package uses but does not declare fails here, not on a user's night.
# CI runs it (.ci/run); NDCG_CONFORMANCE_DIR names trec_eval's test files when not beside the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
PYTHON="${PYTHON:-python3}"
venv="$root/.venv-install"
conformance="${NDCG_CONFORMANCE_DIR:-$root/../shared/conformance/trec_eval}"
fail() { echo "test_install: FAILED: $*" >&2; exit 1; }

# A new venv each time: what an earlier run installed must not hide what this one lacks.
rm -rf "$venv"
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "$root"
echo "test_install: installed $("$venv/bin/python" -m pip list 2>/dev/null | grep -ciE '^[a-z]') distributions:" \
  "$("$venv/bin/python" -m pip list --format=freeze 2>/dev/null | grep -iE '^(pyspark|pandas|pyarrow|numpy|plotly)==' | tr '\n' ' ')"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
export PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python"
"$venv/bin/python" "$root/scripts/make_sample.py" --out sample >/dev/null

passed=0
# The comparison as arrays, the gate against the baseline, the page and the Markdown: on Spark,
# then (auto: the sample fits this machine) on the embedded engine.
for engine in spark auto; do
  out="out-$engine"
  "$venv/bin/ndcg-spark" --judgments sample/judgments.parquet --results sample/results.parquet \
    --output "$out" --k 5,10 --baseline bm25 --resampling arrays --fail-on-drop 0.01 --engine "$engine" \
    >job.out 2>job.err || fail "the job (--engine $engine) with --resampling arrays and a gate exited $? ($(tail -n 3 job.err))"
  grep -q 'gate: passed' job.out || fail "the job (--engine $engine) printed no passing gate: $(head -c 2000 job.out)"
  [ -s "$out/report/latest.html" ] || fail "no HTML page in $out/report/"
  ls "$out"/report/plotly-*.min.js >/dev/null 2>&1 || fail "no plotly script beside the page in $out/report/"
  [ -s "$out/report/latest.md" ] || fail "no Markdown table in $out/report/"
  for dataset in per_query summary comparison; do
    [ -d "$out/$dataset" ] || fail "no $dataset dataset in $out/"
  done
  passed=$((passed + 1))
done
grep -q '"engine": "local"' out-auto/_manifests/latest.json || fail "auto did not run the sample on the embedded engine"

# trec_eval's command line, its stdout trec_eval's own bytes.
"$venv/bin/ndcg-spark" trec_eval -q -m all_trec "$conformance/qrels.test" "$conformance/results.test" \
  >trec_eval.out 2>trec_eval.err || fail "ndcg-spark trec_eval exited $? ($(tail -n 3 trec_eval.err))"
cmp -s trec_eval.out "$conformance/out.test.aq" || fail "ndcg-spark trec_eval's output differs from out.test.aq"
passed=$((passed + 1))

echo "test_install: $passed passed, 0 failed"
