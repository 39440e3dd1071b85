#!/usr/bin/env bash
# Prints the path of a class data sharing (CDS) archive of Spark's JVM, made once per JDK and Spark
# installation and kept in .venv/. A JVM started with -XX:SharedArchiveFile=PATH maps the classes
# Spark loads as it starts instead of reading them from its jars: a tiny job under spark-submit
# starts about 7 s sooner. The test suite starts a few dozen such JVMs.
#   scripts/jvm_archive.sh           make it when missing (40-50 s), print its path
#   scripts/jvm_archive.sh --if-made print its path only when it exists (exit 1 otherwise)
# While another call is making it, a call waits for that one instead of making a second.
# A JVM checks the archive against its JDK and class path and ignores it when they differ
# (-Xlog:cds*=off keeps that silent).
set -euo pipefail
cd "$(dirname "$0")/.."
spark_home="$(.venv/bin/python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
# Keyed on the JDK's home and version and on the jars' names and sizes. Not on `ls -l`: its
# "total" of allocated blocks changed in the minute after pip installed the jars, so a fresh
# clone made the archive twice. Not on `java -version`'s text either, which also says whether
# that JVM mapped the JDK's own archive ("sharing").
jdk="$(java -XshowSettings:properties -version 2>&1 | grep -E '^ *java\.(home|vm\.version) =')"
jars="$(find "$spark_home/jars" -maxdepth 1 -name '*.jar' -printf '%f %s\n' | sort)"
key="$(printf '%s\n%s\n' "$jdk" "$jars" | sha256sum | cut -c1-16)"
archive="$PWD/.venv/jvm-archive/spark-$key.jsa"
if [ -f "$archive" ]; then
  echo "$archive"
  exit 0
fi
if [ "${1:-}" = "--if-made" ]; then
  exit 1
fi
mkdir -p "$(dirname "$archive")"
# One maker at a time (scripts/setup.sh --jvm-archive starts one in the background): a second
# caller waits for the first, then finds the archive made.
exec 9>"$(dirname "$archive")/.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi
if [ -f "$archive" ]; then
  echo "$archive"
  exit 0
fi
work="$(mktemp -d)"
making="$archive.making"
trap 'rm -rf "$work" "$making"' EXIT
# What most Spark runs load: the session, a Parquet write and read, a shuffle, a window, codegen.
cat > "$work/warm.py" <<'PY'
import sys
from pyspark.sql import SparkSession, Window, functions as F
spark = SparkSession.builder.getOrCreate()
spark.range(100).selectExpr("id % 7 AS q", "id AS d").write.parquet(sys.argv[1])
ranked = spark.read.parquet(sys.argv[1]).withColumn("p", F.row_number().over(Window.partitionBy("q").orderBy("d")))
ranked.groupBy("q").agg(F.sum("p")).collect()
PY
# The JVM writes the archive as it exits: under a temporary name beside it, then renamed into
# place (one atomic rename in one folder; a move from /tmp may be a copy), so that no JVM maps a
# half-written file.
PYSPARK_PYTHON="$PWD/.venv/bin/python" PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python" \
  SPARK_SUBMIT_OPTS="-XX:ArchiveClassesAtExit=$making -Xlog:cds*=off" \
  .venv/bin/spark-submit --master 'local[2]' --conf spark.ui.enabled=false \
  "$work/warm.py" "$work/frame" >"$work/log" 2>&1 || {
  echo "jvm_archive: the Spark run failed; no archive made" >&2
  tail -20 "$work/log" >&2
  exit 1
}
mv "$making" "$archive"
# The archives of an earlier JDK or Spark are of no use to any JVM started from now on: removed,
# so that they do not pile up (a JVM still running keeps its mapping of an unlinked file).
find "$(dirname "$archive")" -maxdepth 1 -name 'spark-*.jsa' ! -name "$(basename "$archive")" -delete
echo "$archive"
