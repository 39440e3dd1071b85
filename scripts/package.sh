#!/usr/bin/env bash
# Builds what a cluster needs, in dist/:
#   ndcg_spark-VERSION-py3-none-any.whl  pip install it into the driver's Python (brings plotly,
#                                        numpy, pyarrow and the ndcg-spark command); a comparison
#                                        runs Python on the executors, which need numpy and pyarrow
#   ndcg_spark.zip                       the library alone, for spark-submit --py-files
#   evaluate_ndcg.py, convert_trec.py    the entry points spark-submit is given
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
rm -rf dist build
.venv/bin/python -m pip wheel --quiet --no-deps --wheel-dir dist .
rm -rf build ./*.egg-info
.venv/bin/python - <<'PY'
import pathlib
import zipfile

# The wheel's metadata goes in too: importlib.metadata finds it in a zip on sys.path, so the
# manifest records the package's version (ndcg_spark/version.py).
(wheel,) = pathlib.Path("dist").glob("ndcg_spark-*.whl")
with zipfile.ZipFile(wheel) as built, zipfile.ZipFile("dist/ndcg_spark.zip", "w", zipfile.ZIP_DEFLATED) as archive:
    for path in sorted(pathlib.Path("ndcg_spark").rglob("*.py")):
        archive.write(path, path.as_posix())
    for name in built.namelist():
        if ".dist-info/" in name and name.rsplit("/", 1)[-1] in ("METADATA", "entry_points.txt"):
            archive.writestr(name, built.read(name))
PY
cp jobs/evaluate_ndcg.py jobs/convert_trec.py dist/
echo "package: $(cd dist && ls | tr '\n' ' ')"
