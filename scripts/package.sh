#!/usr/bin/env bash
# Builds what a cluster needs, in dist/ (or the folder given: scripts/package.sh OUT):
#   ndcg_spark-VERSION-py3-none-any.whl  pip install it into the driver's Python (brings plotly,
#                                        numpy, pyarrow and the ndcg-spark command); a comparison
#                                        runs Python on the executors, which need numpy and pyarrow
#   ndcg_spark.zip                       the library alone, for spark-submit --py-files
#   evaluate_ndcg.py, convert_trec.py    the entry points spark-submit is given
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-dist}")"
bash scripts/setup.sh >/dev/null
# Built from a copy in a temporary folder, where setuptools leaves its build/ and *.egg-info: the
# checkout is only read. No build isolation: the venv's setuptools (setup.sh installs it) builds,
# and nothing is fetched from the index.
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
tar --exclude=__pycache__ -cf - pyproject.toml README.md ndcg_spark | tar -xf - -C "$src"
rm -rf "$out"
mkdir -p "$out"
.venv/bin/python -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$out" "$src"
OUT="$out" .venv/bin/python - <<'PY'
import os
import pathlib
import zipfile

# The wheel's metadata goes in too: importlib.metadata finds it in a zip on sys.path, so the
# manifest records the package's version (ndcg_spark/version.py).
out = pathlib.Path(os.environ["OUT"])
(wheel,) = out.glob("ndcg_spark-*.whl")
with zipfile.ZipFile(wheel) as built, zipfile.ZipFile(out / "ndcg_spark.zip", "w", zipfile.ZIP_DEFLATED) as archive:
    for path in sorted(pathlib.Path("ndcg_spark").rglob("*.py")):
        archive.write(path, path.as_posix())
    for name in built.namelist():
        if ".dist-info/" in name and name.rsplit("/", 1)[-1] in ("METADATA", "entry_points.txt"):
            archive.writestr(name, built.read(name))
PY
cp jobs/evaluate_ndcg.py jobs/convert_trec.py "$out/"
echo "package: $(cd "$out" && ls | tr '\n' ' ')"
