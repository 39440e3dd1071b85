"""Side-by-side benchmark: the job (spark-submit), the same job on the embedded engine
("job_local": the ndcg-spark command with --engine local, no JVM, publishing the same output),
Spark's floor, the ranking floor, the bare NDCG, Spark MLlib's RankingMetrics (spark-submit) and,
when installed, DuckDB, pytrec_eval and ranx, on the same generated Parquet inputs, alternating
within each round.

The floor reads both inputs and shuffles each by query_id once (noop write): what any Spark job
doing this must pay. The ranking floor adds the one thing no exact NDCG can skip: numbering every
result list in score order (one window over one sort, ties by the integer doc_id, which is cheaper
than trec_eval's string order), and nothing else: no join, no ideal DCG, no checks.

The bare NDCG (the peer "bare_ndcg", spark-submit) computes the job's means and nothing else, as
one SQL query: a shuffle per input, a shuffled hash join, one sort of the results and one of the
judgments, no checks, no output: about what any Spark design of the job pays before its checks and
its reports. "bare_ndcg_output" also writes its per-query rows and its summary as Parquet.

A tool's time is reported only when its mean NDCG@k agrees with the job's to 1e-9 on the same
data; a peer that disagrees is named and left out. RankingMetrics computes another NDCG by design
(binary relevance, the only kind its Python API passes): it is timed, and how far its means are
from the job's is reported. Whole-process wall time and CPU time (user and system, of the process
and its children; medians over the rounds) and peak RSS of the largest process (GNU time), the
ratios to the floor and of the job (and of job_local) to each peer, written as JSON and Markdown
under --out. The package is byte-compiled first, as pip installs it.

    .venv/bin/pip install -e ".[bench]"          # numpy, duckdb; optional: pytrec-eval-terrier, ranx
    .venv/bin/python scripts/bench.py --queries 100000 --depth 100 --repeat 3 --skew 0.1

--job-from DIR also times the job of another checkout (a git worktree of the commit before a
change, say) as "job_from", in turn with this one on the same data; its means must equal the job's.
With --baseline it also times that checkout's job with --baseline run0, as "job_from_baseline".

--breakdown then runs the job (and job_from, and the bare NDCG peers asked for) once more each with
Spark's event log and tabulates where the time goes: Spark jobs, the start before the first, the
job's steps (main pass, per_query, summary, publish, from its step log), the longest Spark job of the main
pass, and the time no Spark job ran; then, for every run alike, from the event log alone: the time
to the longest Spark job (the main stage), that job with its tasks' count, time and CPU time, the
time after it, and the process's CPU time.

--java-options="..." adds driver JVM options to every Spark tool alike (the floors included), to
see how a JVM setting moves them all, e.g. -XX:TieredStopAtLevel=1 (the C1 compiler only).

--peers api,api_connect times the Python API (ndcg_spark.evaluate, nothing published) on a classic
local session and on a local Spark Connect server, in a plain Python process each: what the library
costs on each kind of session. Their means must equal the job's. Their peak RSS and CPU time are
the Python process's alone: the JVM it starts is not its child as spark-submit's is, and is not
counted.

--measures also times the job with every measure beside NDCG as "job_measures", in turn with the
job on the same data; its NDCG means must equal the job's, and the report gives the ratio of the
two. "--measures cutoffs" (the default) asks for P, recall and map_cut at the same cutoffs as NDCG,
success at 1, 5, 10, and map, recip_rank, Rprec, bpref: 24 values per query where NDCG alone has 5;
"--measures once" asks for each measure once (P.10, recall.100, map, map_cut.10, recip_rank, Rprec,
success.10, bpref); "--measures all_trec" asks for trec_eval's -m all_trec, as "job_measures_all_trec".
Several sets, comma-separated ("--measures once,all_trec"), are each timed in turn with the job.

--warm runs the warm benchmark instead (scripts/bench_warm.py): in one session with both inputs
cached, ndcg_spark.evaluate (then its summary) and NdcgEvaluator against Spark MLlib's
RankingEvaluator with its arrays built, each call after a warm-up, in turn; medians, ratios and the
Spark jobs one call launches.

--runs N generates results with N runs (run_id run0, run1, ...) of the same documents, each with
scores of its own; the peers, which score one run, are left out. --baseline also times the job
with --baseline run0 as "job_baseline" (and each --measures set likewise, "job_measures_once_baseline"),
in turn with the job on the same data, and reports each one's ratio to the same run without it:
the comparison's cost (its randomization test's draws and its bootstrap resamples, 1000 each).

    .venv/bin/python scripts/bench.py --queries 20000 --runs 3 --baseline --measures once --peers ""

--skew F also generates a dataset of the same number of result rows in which one query holds the
fraction F of them, and runs the job (and DuckDB) on it as well: "job_skewed" against "job".
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KS = (5, 10, 20, 100)
_CUTOFFS = ",".join(map(str, KS))
# --measures: every measure beside NDCG, at the same cutoffs where it takes one, or each once.
MEASURE_SETS = {
    "cutoffs": (
        f"P.{_CUTOFFS}",
        f"recall.{_CUTOFFS}",
        f"map_cut.{_CUTOFFS}",
        "success.1,5,10",
        "map",
        "recip_rank",
        "Rprec",
        "bpref",
    ),
    "once": ("P.10", "recall.100", "map", "map_cut.10", "recip_rank", "Rprec", "success.10", "bpref"),
    # trec_eval's -m all_trec: every measure of the catalogue's that it holds, at its defaults.
    "all_trec": ("all_trec",),
}


# --baseline: the job again with a comparison against the first run.
BASELINE_SUFFIX = "_baseline"
BASELINE_TOOL = f"job{BASELINE_SUFFIX}"
BASELINE_ARGS = ("--baseline", "run0")


def measures_tool(name: str) -> str:
    """The tool that times the job with the measure set `name` beside NDCG."""
    return "job_measures" if name == "cutoffs" else f"job_measures_{name}"


TOLERANCE = 1e-9
CHUNK_ROWS = 2_000_000


def _write_chunk(out: Path, part: int, queries, depths, judged: int, rng, runs: int = 1) -> None:
    """Results for the given queries (each with its own depth) and their judgments: `judged`
    documents per query, about half of them retrieved (even numbers), the others not (odd). With
    runs > 1, every run retrieves the same documents with scores of its own (column run_id)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    query = np.repeat(queries, depths)
    starts = np.repeat(np.cumsum(depths) - depths, depths)
    doc = (np.arange(len(query), dtype=np.int64) - starts) * 2
    columns = {"query_id": query, "doc_id": doc}
    if runs > 1:
        columns = {name: np.tile(values, runs) for name, values in columns.items()}
        columns["run_id"] = np.repeat(np.array([f"run{i}" for i in range(runs)]), len(query))
    score = np.round(rng.random(len(query) * runs), 3)  # 3 decimals: ties are common
    pq.write_table(pa.table({**columns, "score": score}), out / "results" / f"part-{part:05d}.parquet")
    j_query = np.repeat(queries, judged)
    base = np.tile(np.arange(judged, dtype=np.int64), len(queries))
    j_doc = np.where(base % 2 == 0, base, base + 2 * np.repeat(depths, judged) + 1)
    relevance = rng.integers(0, 4, len(j_query)).astype(np.int32)
    pq.write_table(
        pa.table({"query_id": j_query, "doc_id": j_doc, "relevance": relevance}), out / "judgments" / f"part-{part:05d}.parquet"
    )


def generate(out: Path, queries: int, depth: int, judged: int, skew: float, seed: int, runs: int = 1) -> None:
    """queries x depth result rows per run, graded labels 0..3. With skew > 0, query 0 holds that
    fraction of the rows and the others keep `depth`, so the total stays the same."""
    import numpy as np

    rng = np.random.default_rng(seed)
    for side in ("results", "judgments"):
        (out / side).mkdir(parents=True, exist_ok=True)
    total = queries * depth
    heavy = int(total * skew)
    part = 0
    if heavy:
        _write_chunk(out, part, np.array([0], dtype=np.int64), np.array([heavy]), judged, rng, runs)
        part += 1
    first, rest = (1, (total - heavy) // depth) if heavy else (0, queries)
    per_chunk = max(1, CHUNK_ROWS // depth)
    for start in range(first, first + rest, per_chunk):
        ids = np.arange(start, min(start + per_chunk, first + rest), dtype=np.int64)
        _write_chunk(out, part, ids, np.full(len(ids), depth), judged, rng, runs)
        part += 1
    (out / "_SUCCESS").write_text("")


FLOOR = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.appName("floor").getOrCreate()
    for path in sys.argv[1:3]:
        frame = spark.read.parquet(path)
        frame.repartition("query_id").write.format("noop").mode("overwrite").save()
    """
)

RANK_FLOOR = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession, Window, functions as F
    spark = SparkSession.builder.appName("rank_floor").getOrCreate()
    judgments, results = (spark.read.parquet(path).repartition("query_id") for path in sys.argv[1:3])
    judgments.write.format("noop").mode("overwrite").save()
    order = Window.partitionBy("query_id").orderBy(F.col("score").desc(), F.col("doc_id").desc())
    results.withColumn("position", F.row_number().over(order)).write.format("noop").mode("overwrite").save()
    """
)

# DuckDB's bare NDCG: a row per query with its DCGs and ideal DCGs at every cutoff (the SQL of
# `per_query`, shared by both DuckDB peers), then the means.
_DUCKDB_PER_QUERY = textwrap.dedent(
    """
    import json, sys, tempfile, duckdb
    judgments, results, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    con = duckdb.connect()
    cut = ", ".join(f"sum(CASE WHEN pos <= {k} THEN g / log2(pos + 1) ELSE 0 END) AS d{k}" for k in ks)
    icut = ", ".join(f"sum(CASE WHEN pos <= {k} THEN g / log2(pos + 1) ELSE 0 END) AS i{k}" for k in ks)
    per_query = f'''
      WITH j AS (SELECT query_id, CAST(doc_id AS VARCHAR) doc, GREATEST(relevance, 0)::DOUBLE g
                 FROM read_parquet('{judgments}/*.parquet')),
           r AS (SELECT query_id, CAST(doc_id AS VARCHAR) doc, score FROM read_parquet('{results}/*.parquet')),
           ranked AS (SELECT r.query_id, coalesce(j.g, 0) g,
                        row_number() OVER (PARTITION BY r.query_id ORDER BY score DESC, r.doc DESC) pos
                      FROM r LEFT JOIN j USING (query_id, doc)),
           dcg AS (SELECT query_id, {cut} FROM ranked GROUP BY query_id),
           ideal_pos AS (SELECT query_id, g, row_number() OVER (PARTITION BY query_id ORDER BY g DESC) pos FROM j),
           idcg AS (SELECT query_id, {icut} FROM ideal_pos GROUP BY query_id)
      SELECT * FROM dcg JOIN idcg USING (query_id)'''
    """
)

DUCKDB = _DUCKDB_PER_QUERY + textwrap.dedent(
    """
    means = ", ".join(f"avg(CASE WHEN i{k} > 0 THEN d{k} / i{k} ELSE 0 END) AS m{k}" for k in ks)
    row = con.execute(f"SELECT {means} FROM ({per_query})").fetchone()
    print("MEANS " + json.dumps({str(k): v for k, v in zip(ks, row)}))
    """
)

# With its output, as the job publishes it: a row per query and cutoff written as Parquet, then
# the means from those rows written as a second file (no checks, no manifest).
DUCKDB_OUTPUT = _DUCKDB_PER_QUERY + textwrap.dedent(
    """
    out = tempfile.mkdtemp(prefix="duckdb-out-")
    con.execute(f"CREATE TABLE per_query_wide AS {per_query}")
    values = " UNION ALL ".join(
        f"SELECT query_id, {k} AS k, CASE WHEN i{k} > 0 THEN d{k} / i{k} ELSE 0 END AS ndcg FROM per_query_wide" for k in ks
    )
    con.execute(f"COPY ({values}) TO '{out}/per_query.parquet' (FORMAT PARQUET)")
    summary = f"SELECT k, avg(ndcg) AS ndcg FROM read_parquet('{out}/per_query.parquet') GROUP BY k"
    con.execute(f"COPY ({summary}) TO '{out}/summary.parquet' (FORMAT PARQUET)")
    means = dict(con.execute(f"SELECT k, ndcg FROM read_parquet('{out}/summary.parquet')").fetchall())
    print("MEANS " + json.dumps({str(k): means[k] for k in ks}))
    """
)

# About the least a Spark design computing the job's numbers can do, as one SQL query (parsed and
# analysed once). Each input shuffled by query_id once, the judgments joined by a shuffled hash
# join, one sort of the results (trec_eval's order) and one of the judgments (the ideal order), a
# row per query with its DCGs and ideal DCGs. No checks (nulls,
# copies, grades). The bare NDCG collects the means from those rows; with output, it writes a row
# per query and cutoff as Parquet, then the summary from them as one file, as the job's reports (no
# staging, no atomic publication, no manifest). On the generated data (no copies, every retrieved
# query judged) the numbers are the job's, so the means must agree. The ideal order leaves ties of
# equal gain as they come: they add the same gain at the same positions, so only the last bits of
# a sum can differ, far below the 1e-9 of the agreement.
_BARE_QUERY = textwrap.dedent(
    """
    import json, shutil, sys, tempfile
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.appName("bare_ndcg").getOrCreate()
    # As the job does: the join on (query_id, doc_id) reuses the inputs' partitioning by query_id.
    spark.conf.set("spark.sql.requireAllClusterKeysForCoPartition", "false")
    judgments, results, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    spark.read.parquet(judgments).createOrReplaceTempView("judgments")
    spark.read.parquet(results).createOrReplaceTempView("results")
    def cut(prefix):
        return ", ".join(f"sum(CASE WHEN pos <= {k} THEN g / log2(pos + 1) ELSE 0D END) AS {prefix}{k}" for k in ks)
    spark.sql(f'''
      WITH j AS (SELECT /*+ REPARTITION(query_id) */ query_id, doc_id,
                        CAST(greatest(relevance, 0) AS DOUBLE) g FROM judgments),
           r AS (SELECT /*+ REPARTITION(query_id) */ query_id, doc_id, score FROM results),
           ranked AS (SELECT /*+ SHUFFLE_HASH(j) */ r.query_id, coalesce(j.g, 0D) g,
                        row_number() OVER (PARTITION BY r.query_id
                                           ORDER BY score DESC, CAST(r.doc_id AS STRING) DESC) pos
                      FROM r LEFT JOIN j ON r.query_id = j.query_id AND r.doc_id = j.doc_id),
           dcg AS (SELECT query_id, {cut("d")} FROM ranked GROUP BY query_id),
           ideal AS (SELECT query_id, g, row_number() OVER (PARTITION BY query_id ORDER BY g DESC) pos FROM j),
           idcg AS (SELECT query_id, {cut("i")} FROM ideal GROUP BY query_id)
      SELECT * FROM dcg JOIN idcg USING (query_id)''').createOrReplaceTempView("pairs")
    """
)
BARE_NDCG = _BARE_QUERY + textwrap.dedent(
    """
    means = ", ".join(f"avg(CASE WHEN i{k} > 0 THEN d{k} / i{k} ELSE 0D END)" for k in ks)
    row = spark.sql(f"SELECT {means} FROM pairs").collect()[0]
    print("MEANS " + json.dumps({str(k): v for k, v in zip(ks, row)}))
    """
)
BARE_NDCG_OUTPUT = _BARE_QUERY + textwrap.dedent(
    """
    out = tempfile.mkdtemp(prefix="bare-ndcg-")
    cutoffs = ", ".join(f"named_struct('k', {k}, 'dcg', d{k}, 'idcg', i{k})" for k in ks)
    spark.sql(f'''
      SELECT query_id, c.k, CASE WHEN c.idcg > 0 THEN c.dcg / c.idcg ELSE 0D END ndcg, c.dcg, c.idcg
      FROM (SELECT query_id, explode(array({cutoffs})) c FROM pairs)''').write.parquet(f"{out}/per_query")
    summary = spark.read.parquet(f"{out}/per_query").groupBy("k").agg({"ndcg": "avg"})
    summary.coalesce(1).write.parquet(f"{out}/summary")
    rows = spark.read.parquet(f"{out}/summary").collect()
    shutil.rmtree(out)
    print("MEANS " + json.dumps({str(row[0]): row[1] for row in rows}))
    """
)

# Spark MLlib's own NDCG, as a Spark user would call it from Python: each query's ranked list
# (score descending, ties by doc_id descending as strings, as trec_eval) and its relevant documents
# (grade > 0). Binary: Spark 4's Python constructor reads only the first two columns of its input
# (PythonMLLibAPI.newRankingMetrics), so graded relevance values cannot be passed from Python, and
# every label counts 1. The Python class wants an RDD built in Python; the JVM's constructor takes
# the DataFrame, so the rows never pass through Python. Cached once, then one ndcgAt per cutoff.
# Its NDCG is not trec_eval's (binary gain): reported, not required to agree.
SPARK_RANKING_METRICS = textwrap.dedent(
    """
    import json, sys
    from pyspark.sql import SparkSession, functions as F
    from pyspark.mllib.common import callMLlibFunc
    from pyspark.mllib.evaluation import RankingMetrics
    spark = SparkSession.builder.appName("spark_ranking_metrics").getOrCreate()
    judgments, results, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    doc = F.col("doc_id").cast("string").alias("doc")
    j = spark.read.parquet(judgments).select("query_id", doc, "relevance")
    r = spark.read.parquet(results).select("query_id", doc, "score")
    ranked = (r.groupBy("query_id").agg(F.sort_array(F.collect_list(F.struct("score", "doc")), asc=False).alias("l"))
              .select("query_id", F.col("l.doc").alias("pred")))
    relevant = (j.groupBy("query_id").agg(F.collect_list(F.when(F.col("relevance") > 0, F.col("doc"))).alias("lab")))
    frame = ranked.join(relevant, "query_id").select("pred", "lab").cache()
    metrics = RankingMetrics.__new__(RankingMetrics)
    super(RankingMetrics, metrics).__init__(callMLlibFunc("newRankingMetrics", frame._jdf))
    print("MEANS " + json.dumps({str(k): metrics.ndcgAt(k) for k in ks}))
    """
)

_READ_DICTS = textwrap.dedent(
    """
    import json, sys, pyarrow.dataset as ds
    judgments, results, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    qrels, run = {}, {}
    for b in ds.dataset(judgments).to_batches(columns=["query_id", "doc_id", "relevance"]):
        for q, d, r in zip(*(b.column(i).to_pylist() for i in range(3))):
            qrels.setdefault(str(q), {})[str(d)] = int(r)
    for b in ds.dataset(results).to_batches(columns=["query_id", "doc_id", "score"]):
        for q, d, s in zip(*(b.column(i).to_pylist() for i in range(3))):
            run.setdefault(str(q), {})[str(d)] = float(s)
    """
)

PYTREC = _READ_DICTS + textwrap.dedent(
    """
    import pytrec_eval
    measures = {"ndcg_cut." + ",".join(map(str, ks))}
    scores = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    print("MEANS " + json.dumps({str(k): sum(v[f"ndcg_cut_{k}"] for v in scores.values()) / len(scores) for k in ks}))
    """
)

RANX = _READ_DICTS + textwrap.dedent(
    """
    from ranx import Qrels, Run, evaluate
    run = {q: docs for q, docs in run.items() if q in qrels}
    values = evaluate(Qrels(qrels), Run(run), [f"ndcg@{k}" for k in ks])
    print("MEANS " + json.dumps({str(k): float(values[f"ndcg@{k}"]) for k in ks}))
    """
)

# The Python API (ndcg_spark.evaluate) on the same Parquet inputs, in a plain Python process: on a
# classic local session ("api") and on Spark Connect ("api_connect": a local Connect server from the
# pyspark package, the client in this process; needs the connect extra). The same checks and
# numbers as the job, nothing published: the pass's rows are kept in the executors (a checkpoint
# on classic, a cache filled by a noop write on Connect).
_API = textwrap.dedent(
    """
    import json, os, sys
    from pyspark.sql import SparkSession
    from ndcg_spark import evaluate
    judgments, results, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    builder = (SparkSession.builder.config("spark.driver.memory", os.environ["BENCH_DRIVER_MEMORY"])
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false"))
    spark = (builder.remote("local[2]") if CONNECT else builder.master("local[2]")).getOrCreate()
    report = evaluate(spark.read.parquet(judgments), spark.read.parquet(results), ks=tuple(ks), uncut=False)
    print("MEANS " + json.dumps({str(row["k"]): row["ndcg"] for row in report.evaluation.summary}))
    report.unpersist()
    spark.stop()
    """
)

# The embedded engine (ndcg_spark.evaluate of Arrow tables: in this process, no JVM): the Parquet
# read with pyarrow, the same checks and numbers as the job, nothing published.
EMBEDDED = textwrap.dedent(
    """
    import json, sys, pyarrow.parquet as pq
    from ndcg_spark import evaluate
    judgments, results, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    report = evaluate(pq.read_table(judgments), pq.read_table(results), ks=tuple(ks), uncut=False)
    print("MEANS " + json.dumps({str(row["k"]): row["ndcg"] for row in report.evaluation.summary}))
    """
)

PEERS = {
    "embedded": (EMBEDDED, "ndcg_spark"),
    "duckdb": (DUCKDB, "duckdb"),
    "duckdb_output": (DUCKDB_OUTPUT, "duckdb"),
    "pytrec_eval": (PYTREC, "pytrec_eval"),
    "ranx": (RANX, "ranx"),
    "api": ("CONNECT = False" + _API, "ndcg_spark"),
    "api_connect": ("CONNECT = True" + _API, "grpc"),
}
# The API tools run only when named in --peers: they time this project, not a peer. The embedded
# engine runs by default: it is what a single-machine evaluation costs.
LOCAL_TOOL = "job_local"  # the job on the embedded engine, compared with each single-machine peer
DEFAULT_PEERS = ("embedded", "duckdb", "duckdb_output", "pytrec_eval", "ranx")
# Run with spark-submit, like the job.
SPARK_PEERS = {"bare_ndcg": BARE_NDCG, "bare_ndcg_output": BARE_NDCG_OUTPUT, "spark_ranking_metrics": SPARK_RANKING_METRICS}
# What --breakdown runs again with the event log: the job's runs (with their step log; every
# job_measures_* of --measures too), then the bare queries (the event log alone), side by side.
BREAKDOWN_JOBS = ("job", "job_from", "job_measures")
BREAKDOWN_PEERS = ("bare_ndcg", "bare_ndcg_output")
# Same semantics as the job (trec_eval's tie order included): a disagreement is a bug somewhere.
# ranx breaks score ties its own way, so it may differ on data with ties; it is then left out.
STRICT = {
    "embedded",
    "job_skewed",
    "job_from",
    "bare_ndcg",
    "bare_ndcg_output",
    "duckdb",
    "duckdb_skewed",
    "pytrec_eval",
    "api",
    "api_connect",
}
# Other semantics by design: timed all the same, with how far their means are from the job's.
BY_DESIGN = {"spark_ranking_metrics"}


@dataclass
class Tool:
    name: str
    command: list[str]
    means: Callable[[str], dict[str, float] | None]
    reference: str | None  # the tool whose means this one must equal (same data)
    env: dict[str, str] = field(default_factory=dict)  # on top of the common environment
    # The folder it runs in: Spark's Python workers (the comparison's draws) start there and import
    # the package from it before PYTHONPATH, so a job runs in its own checkout.
    cwd: str | None = None
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)
    last_means: dict[str, float] | None = None


@dataclass(frozen=True)
class Timing:
    """One process's run, via GNU time."""

    wall: float  # seconds
    cpu: float  # seconds, user and system, the process and the children it waited for
    peak_gb: float  # peak RSS of the largest process
    stdout: str
    stderr: str


def timed(command: list[str], env: dict[str, str], cwd: str | None = None) -> Timing:
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%e %U %S %M", "-o", report.name, *command],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        wall, user, system, rss_kb = report.read().split()[-4:]
    return Timing(float(wall), float(user) + float(system), int(rss_kb) / 1e6, done.stdout, done.stderr)


def means_from(stdout: str) -> dict[str, float]:
    for line in stdout.splitlines():
        if line.startswith("MEANS "):
            return json.loads(line.removeprefix("MEANS "))
    raise RuntimeError("no MEANS line in output")


def job_means(output: Path) -> dict[str, float]:
    import pyarrow.parquet as pq

    table = pq.read_table(output / "summary").to_pylist()
    first = min(row["run_id"] for row in table)  # with several runs (--runs), the first one's
    return {str(row["k"]): row["ndcg"] for row in table if row["measure"] == "ndcg_cut" and row["run_id"] == first}


def _epoch(iso: str) -> float:
    return dt.datetime.fromisoformat(iso).timestamp()


def breakdown(tool: Tool, env: dict[str, str], events: Path) -> dict[str, float]:
    """Where one run spends its time: Spark's event log (jobs, their times, the idle gaps, the
    longest job's tasks) and, for the job, its own step log (one JSON line per step, with its end
    time and seconds); a bare peer has no steps (they read 0)."""
    shutil.rmtree(events, ignore_errors=True)
    events.mkdir(parents=True)
    log_conf = [
        "--conf",
        "spark.eventLog.enabled=true",
        "--conf",
        f"spark.eventLog.dir={events.as_uri()}",
        "--conf",
        "spark.eventLog.compress=false",
    ]
    command = [tool.command[0], *log_conf, *tool.command[1:]]  # spark-submit's options, then the job's
    run = timed(command, {**env, **tool.env}, tool.cwd)
    steps = {}
    for line in (run.stdout + run.stderr).splitlines():  # the step log goes where the job's log goes
        if '"step": ' in line:
            record = json.loads(line[line.index("{") :])
            steps[record["step"]] = (_epoch(record["time"]) - record["seconds"], _epoch(record["time"]))
    app_start = app_end = 0.0
    jobs: dict[int, list[float]] = {}
    job_of_stage: dict[int, int] = {}
    tasks: dict[int, list[float]] = {}  # per job: tasks, their seconds, their CPU seconds
    for path in sorted(p for p in events.rglob("*") if p.is_file() and not p.name.startswith(("appstatus", "."))):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            kind = event["Event"]
            if kind == "SparkListenerApplicationStart":
                app_start = event["Timestamp"] / 1000
            elif kind == "SparkListenerApplicationEnd":
                app_end = event["Timestamp"] / 1000
            elif kind == "SparkListenerJobStart":
                jobs[event["Job ID"]] = [event["Submission Time"] / 1000, 0.0]
                job_of_stage.update(dict.fromkeys(event["Stage IDs"], event["Job ID"]))
            elif kind == "SparkListenerJobEnd":
                jobs[event["Job ID"]][1] = event["Completion Time"] / 1000
            elif kind == "SparkListenerTaskEnd" and event["Stage ID"] in job_of_stage:
                info, metrics = event["Task Info"], event.get("Task Metrics") or {}
                count = tasks.setdefault(job_of_stage[event["Stage ID"]], [0.0, 0.0, 0.0])
                count[0] += 1
                count[1] += (info["Finish Time"] - info["Launch Time"]) / 1000
                count[2] += metrics.get("Executor CPU Time", 0) / 1e9
    spans = sorted(jobs.values())
    busy, reach = 0.0, app_start
    for start, end in spans:  # the union of the jobs' spans: time some job was running
        busy += max(0.0, end - max(start, reach))
        reach = max(reach, end)

    def seconds(step: str) -> float:
        start, end = steps.get(step, (0.0, 0.0))
        return end - start

    main_pass = steps.get("main pass", (0.0, 0.0))
    in_main = [end - start for start, end in spans if main_pass[0] <= start <= main_pass[1]]
    longest = max(jobs, key=lambda job_id: jobs[job_id][1] - jobs[job_id][0], default=None)
    first = spans[0][0] if spans else app_start
    last_end = max((end for _start, end in spans), default=app_start)
    longest_start, longest_end = jobs[longest] if longest is not None else (first, first)
    longest_tasks = tasks.get(longest, [0.0, 0.0, 0.0])
    return {
        "wall": run.wall,
        "cpu": run.cpu,
        "spark_jobs": len(spans),
        "start": (spans[0][0] - app_start) if spans else 0.0,
        "main_pass": seconds("main pass"),
        "longest_job_in_main_pass": max(in_main, default=0.0),
        "per_query": seconds("per_query"),
        "summary": seconds("summary"),
        "publish": seconds("publish"),
        "no_spark_job_running": (app_end - app_start) - busy,
        # From the event log alone, the same for every run: the longest job is the main stage.
        "to_longest_job": longest_start - first,
        "longest_job": longest_end - longest_start,
        "longest_job_tasks": longest_tasks[0],
        "longest_job_task_seconds": longest_tasks[1],
        "longest_job_task_cpu": longest_tasks[2],
        "after_longest_job": last_end - longest_end,
    }


def job_arguments(data: Path, output: Path) -> list[str]:
    """The job's inputs, output and cutoffs; the peers compute NDCG only, so the HTML report (a
    few seconds) is left out."""
    return [
        "--judgments",
        str(data / "judgments"),
        "--results",
        str(data / "results"),
        "--output",
        str(output),
        "--k",
        ",".join(map(str, KS)),
        "--no-html-report",
    ]


def dataset(root: Path, args: argparse.Namespace, skew: float) -> Path:
    name = f"q{args.queries}-d{args.depth}-j{args.judged}" + (f"-skew{skew:g}" if skew else "")
    name += f"-r{args.runs}" if args.runs > 1 else ""
    path = root / name
    if not (path / "_SUCCESS").exists():
        shutil.rmtree(path, ignore_errors=True)
        print(f"generating {path}", flush=True)
        generate(path, args.queries, args.depth, args.judged, skew, seed=1, runs=args.runs)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--judged", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skew", type=float, default=0.0, help="also run the job on a skewed dataset")
    parser.add_argument(
        "--measures",
        type=lambda text: [part for part in text.split(",") if part],
        nargs="?",
        const=["cutoffs"],
        default=[],
        help=f"also run the job with measures beside NDCG, each set in turn ({', '.join(MEASURE_SETS)}; comma-separated)",
    )
    parser.add_argument("--runs", type=int, default=1, help="runs in the results (run_id run0, run1, ...); peers score one")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also time the job (and each --measures set) with --baseline run0: the comparison's cost",
    )
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument(
        "--settle",
        type=float,
        default=5.0,
        help="seconds of rest before each timed tool: a one-second tool timed right after the Spark job's exit"
        " ran 1.5-4x slower on the project's machine (5 s does not always cure it)",
    )
    parser.add_argument("--peers", default=",".join([*DEFAULT_PEERS, *SPARK_PEERS]), help="peers to run when installed")
    parser.add_argument("--data", default=str(ROOT / "bench-data"))
    parser.add_argument("--out", default=str(ROOT / "bench-results"))
    parser.add_argument("--job-from", help="another checkout whose job to time beside this one's (job_from)")
    parser.add_argument(
        "--java-options",
        default="",
        help="more driver JVM options for every Spark tool alike, the floors included (e.g. -XX:TieredStopAtLevel=1)",
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="then one more run of each job with Spark's event log: where its time goes"
    )
    parser.add_argument(
        "--warm",
        action="store_true",
        help="instead, the warm benchmark (scripts/bench_warm.py): the API and the evaluator against RankingEvaluator",
    )
    args = parser.parse_args()
    unknown = [name for name in args.measures if name not in MEASURE_SETS]
    if unknown:
        parser.error(f"--measures: unknown set(s) {', '.join(unknown)}; the sets are {', '.join(MEASURE_SETS)}")

    plain = dataset(Path(args.data).resolve(), args, 0.0)  # absolute: each job runs in its own checkout
    if args.warm:
        warm = [sys.executable, str(ROOT / "scripts" / "bench_warm.py"), "--data", str(plain), "--repeat", str(args.repeat)]
        warm += ["--driver-memory", args.driver_memory, "--out", args.out]
        sys.exit(subprocess.call(warm))
    skewed = dataset(Path(args.data).resolve(), args, args.skew) if args.skew else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        "BENCH_DRIVER_MEMORY": args.driver_memory,
    }
    spark_submit = [
        str(Path(sys.executable).parent / "spark-submit"),
        "--master",
        "local[2]",
        "--driver-memory",
        args.driver_memory,
        "--conf",
        "spark.ui.enabled=false",
        "--driver-java-options",
        f"-Dlog4j2.configurationFile={ROOT / 'ndcg_spark' / 'log4j2.properties'} {args.java_options}".strip(),
    ]
    scripts = Path(tempfile.mkdtemp(prefix="ndcg-bench-"))
    ks_json = json.dumps(list(KS))

    def job(name: str, data: Path, root: Path = ROOT, extra: tuple[str, ...] = ()) -> Tool:
        output = scripts / f"{name}-out"
        command = [*spark_submit, str(root / "jobs" / "evaluate_ndcg.py"), *job_arguments(data, output), *extra]
        reference = "job" if root != ROOT or extra else None if data == plain else "duckdb_skewed"
        # The other checkout's package first on the path (the venv holds this one's).
        env = {"PYTHONPATH": str(root)} if root != ROOT else {}
        return Tool(name, command, lambda _stdout: job_means(output), reference, env=env, cwd=str(root))

    def spark_script(name: str, code: str, peer: bool = False) -> Tool:
        """A Spark script on the plain dataset: a floor (no NDCG, nothing to agree on) or a peer."""
        script = scripts / f"{name}.py"
        script.write_text(code)
        command = [*spark_submit, str(script), str(plain / "judgments"), str(plain / "results")]
        if peer:
            return Tool(name, [*command, ks_json], means_from, "job")
        return Tool(name, command, lambda _stdout: None, None)

    def job_local(name: str, data: Path) -> Tool:
        """The whole job on the embedded engine (--engine local): the installed command in this
        Python, no JVM; the same inputs, cutoffs and published output as the job's."""
        output = scripts / f"{name}-out"
        command = [str(Path(sys.executable).parent / "ndcg-spark"), "--engine", "local", *job_arguments(data, output)]
        return Tool(name, command, lambda _stdout: job_means(output), "job")

    tools = [
        spark_script("floor", FLOOR),
        spark_script("rank_floor", RANK_FLOOR),
        job("job", plain),
        job_local(LOCAL_TOOL, plain),
    ]
    if args.baseline:
        tools.append(job(BASELINE_TOOL, plain, extra=BASELINE_ARGS))
    for chosen in args.measures:
        asked = tuple(part for measure in MEASURE_SETS[chosen] for part in ("--measure", measure))
        tools.append(job(measures_tool(chosen), plain, extra=asked))
        if args.baseline:
            tools.append(job(f"{measures_tool(chosen)}{BASELINE_SUFFIX}", plain, extra=(*asked, *BASELINE_ARGS)))
    if args.job_from:
        tools.append(job("job_from", plain, Path(args.job_from).resolve()))
        if args.baseline:  # the other checkout's comparison, beside this one's
            tools.append(job(f"job_from{BASELINE_SUFFIX}", plain, Path(args.job_from).resolve(), extra=BASELINE_ARGS))
    if skewed is not None:
        tools.append(job("job_skewed", skewed))
    wanted = [name for name in args.peers.split(",") if name] if args.runs == 1 else []
    tools += [spark_script(name, SPARK_PEERS[name], peer=True) for name in wanted if name in SPARK_PEERS]
    for name in (name for name in wanted if name not in SPARK_PEERS):
        code, module = PEERS[name]
        if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode != 0:
            print(f"{name}: not installed, left out", flush=True)
            continue
        (scripts / f"peer_{name}.py").write_text(code)
        for suffix, data in (("", plain), ("_skewed", skewed)):
            if data is None or (suffix and name != "duckdb"):
                continue
            tools.append(
                Tool(
                    f"{name}{suffix}",
                    [sys.executable, str(scripts / f"peer_{name}.py"), str(data / "judgments"), str(data / "results"), ks_json],
                    means_from,
                    "job" if not suffix else None,
                )
            )
    # Byte-compiled as pip installs it: a checkout run under PYTHONDONTWRITEBYTECODE would compile
    # every module on every start (0.1 s of the embedded job's second), which no user pays.
    for root in {ROOT, *([Path(args.job_from).resolve()] if args.job_from else [])}:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "ndcg_spark")], check=True)
    for attempt in range(args.repeat):  # alternate the tools within each round
        for tool in tools:
            time.sleep(args.settle)
            try:
                run = timed(tool.command, {**env, **tool.env}, tool.cwd)
            except RuntimeError as error:
                print(f"round {attempt + 1} {tool.name}: FAILED\n{error}", flush=True)
                raise SystemExit(1) from None
            tool.walls.append(run.wall)
            tool.cpus.append(run.cpu)
            tool.peaks.append(run.peak_gb)
            tool.last_means = tool.means(run.stdout)
            print(f"round {attempt + 1} {tool.name}: {run.wall:.2f} s, CPU {run.cpu:.2f} s, {run.peak_gb:.2f} GB", flush=True)

    by_name = {tool.name: tool for tool in tools}
    disagree: dict[str, float] = {}
    by_design: dict[str, float] = {}
    for tool in tools:
        other = by_name.get(tool.reference) if tool.reference else None
        if tool.last_means is None or other is None or other.last_means is None:
            continue
        worst = max(abs(tool.last_means[str(k)] - other.last_means[str(k)]) for k in KS)
        if tool.name in BY_DESIGN:
            by_design[tool.name] = worst
            print(f"{tool.name} differs from {other.name} by up to {worst:.3g} (other semantics)", flush=True)
        elif worst > TOLERANCE:
            disagree[tool.name] = worst
            print(f"{tool.name} disagrees with {other.name} by {worst:.3g}: left out of the table", flush=True)
    if set(disagree) & STRICT:
        raise SystemExit(f"{sorted(set(disagree) & STRICT)} disagree with the job: no times reported")
    timed_tools = [tool for tool in tools if tool.name not in disagree]
    median = {tool.name: statistics.median(tool.walls) for tool in timed_tools}
    report = {
        "queries": args.queries,
        "depth": args.depth,
        "judged_per_query": args.judged,
        "result_rows": args.queries * args.depth * args.runs,
        "judgment_rows": args.queries * args.judged,
        "skew": args.skew,
        "ks": list(KS),
        "repeat": args.repeat,
        "driver_memory": args.driver_memory,
        "cpus": os.cpu_count(),
        "java_options": args.java_options,
        "wall_s": {tool.name: tool.walls for tool in timed_tools},
        "median_wall_s": median,
        "cpu_s": {tool.name: tool.cpus for tool in timed_tools},
        "median_cpu_s": {tool.name: statistics.median(tool.cpus) for tool in timed_tools},
        "peak_rss_gb": {tool.name: max(tool.peaks) for tool in timed_tools},
        "ratio_to_floor": {name: value / median["floor"] for name, value in median.items()},
        "ratio_to_rank_floor": {name: value / median["rank_floor"] for name, value in median.items()},
        "job_ratio_to_peer": {
            name: median["job"] / value
            for name, value in median.items()
            if name not in ("job", "job_skewed")
            and not name.startswith("job_measures")
            and not name.endswith(("_skewed", BASELINE_SUFFIX))
        },
        "job_local_ratio_to_peer": {
            name: median[LOCAL_TOOL] / value for name, value in median.items() if name in (*PEERS, "job") and LOCAL_TOOL in median
        },
        "job_from": args.job_from,
        "skewed_ratio_to_unskewed": median["job_skewed"] / median["job"] if "job_skewed" in median else None,
        "measures": {chosen: list(MEASURE_SETS[chosen]) for chosen in args.measures},
        "measures_ratio_to_ndcg_alone": {chosen: median[measures_tool(chosen)] / median["job"] for chosen in args.measures},
        "runs": args.runs,
        "baseline_ratio_to_without": {
            name.removesuffix(BASELINE_SUFFIX): value / median[name.removesuffix(BASELINE_SUFFIX)]
            for name, value in median.items()
            if name.endswith(BASELINE_SUFFIX)
        },
        "disagreeing_peers": disagree,
        "differs_by_design": by_design,
        "peer_means": {tool.name: tool.last_means for tool in tools if tool.last_means is not None},
        "mean_ndcg": by_name["job"].last_means,
    }
    # A run with other JVM options gets files of its own beside the plain run's.
    jvm = re.sub(r"[^A-Za-z0-9]+", "_", args.java_options).strip("_")
    stem = out / (
        f"bench-{args.queries}x{args.depth}"
        + (f"-r{args.runs}" if args.runs > 1 else "")
        + (f"-skew{args.skew:g}" if args.skew else "")
        + (f"-{jvm}" if jvm else "")
    )
    Path(f"{stem}.json").write_text(json.dumps(report, indent=2))
    lines = [
        f"{args.queries * args.depth * args.runs:,} result rows ({args.runs} run(s)), {args.queries * args.judged:,} judgments,"
        f" NDCG@{','.join(map(str, KS))}, local[2], driver {args.driver_memory},"
        f" median of {args.repeat}" + (f", driver JVM options {args.java_options}" if args.java_options else ""),
        "",
        "| tool | wall (s) | CPU (s) | x floor | x ranking floor | job / tool | job_local / tool | peak RSS (GB) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for tool in timed_tools:
        ratio = report["job_ratio_to_peer"].get(tool.name)
        local = report["job_local_ratio_to_peer"].get(tool.name)
        lines.append(
            f"| {tool.name} | {median[tool.name]:.2f} | {report['median_cpu_s'][tool.name]:.2f} |"
            f" {report['ratio_to_floor'][tool.name]:.2f} |"
            f" {report['ratio_to_rank_floor'][tool.name]:.2f} |"
            f" {'' if ratio is None else f'{ratio:.2f}'} | {'' if local is None else f'{local:.2f}'} |"
            f" {report['peak_rss_gb'][tool.name]:.2f} |"
        )
    if report["skewed_ratio_to_unskewed"] is not None:
        lines += [
            "",
            f"skewed ({args.skew:.0%} of the rows in one query) / unskewed job: {report['skewed_ratio_to_unskewed']:.2f}",
        ]
    for chosen, ratio in report["measures_ratio_to_ndcg_alone"].items():
        lines += [
            "",
            f"measures {' '.join(MEASURE_SETS[chosen])} / NDCG alone ({measures_tool(chosen)} / job): {ratio:.2f}",
        ]
    for name, ratio in report["baseline_ratio_to_without"].items():
        lines += ["", f"{name} with {' '.join(BASELINE_ARGS)} / without: {ratio:.2f}"]
    for name, worst in disagree.items():
        lines += ["", f"{name}: disagrees with the job by {worst:.3g} (left out)"]
    for name, worst in by_design.items():
        lines += [
            "",
            f"{name}: its mean NDCG@k differs from the job's (trec_eval's) by up to {worst:.3g}:"
            " binary relevance from Python (see docs/design-notes.md)",
        ]
    if args.breakdown:
        jobs = [tool for tool in tools if tool.name in BREAKDOWN_JOBS or tool.name.startswith(("job_measures", BASELINE_TOOL))]
        bare = [tool for tool in timed_tools if tool.name in BREAKDOWN_PEERS]
        parts = {tool.name: breakdown(tool, env, scripts / f"events-{tool.name}") for tool in [*jobs, *bare]}
        report["breakdown"] = parts
        Path(f"{stem}.json").write_text(json.dumps(report, indent=2))
        lines += [
            "",
            "Where one run's time goes (s; an extra run of each with Spark's event log):",
            "",
            "| run | wall | Spark jobs | start | main pass | its longest job | per_query | summary | publish"
            " | no Spark job running |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name, part in parts.items():
            if name in BREAKDOWN_PEERS:  # no step log
                continue
            lines.append(
                f"| {name} | {part['wall']:.1f} | {part['spark_jobs']:.0f} | {part['start']:.1f} |"
                f" {part['main_pass']:.1f} | {part['longest_job_in_main_pass']:.1f} |"
                f" {part['per_query']:.1f} | {part['summary']:.1f} | {part['publish']:.1f} |"
                f" {part['no_spark_job_running']:.1f} |"
            )
        lines += [
            "",
            "The same runs from the event log alone (s; the longest Spark job is the main stage; its tasks:"
            " how many, their time and CPU time, summed):",
            "",
            "| run | wall | CPU | start | first job to the longest | longest job | its tasks | task time | task CPU | after it |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name, part in parts.items():
            lines.append(
                f"| {name} | {part['wall']:.1f} | {part['cpu']:.1f} | {part['start']:.1f} | {part['to_longest_job']:.1f} |"
                f" {part['longest_job']:.2f} | {part['longest_job_tasks']:.0f} | {part['longest_job_task_seconds']:.1f} |"
                f" {part['longest_job_task_cpu']:.1f} | {part['after_longest_job']:.1f} |"
            )
    Path(f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    shutil.rmtree(scripts, ignore_errors=True)


if __name__ == "__main__":
    main()
