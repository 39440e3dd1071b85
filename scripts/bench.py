"""Side-by-side benchmark: the job (spark-submit), Spark's floor, and, when installed, DuckDB and
pytrec_eval, on the same generated Parquet inputs. Every tool's mean NDCG@k must agree to 1e-9
before a time is reported. Whole-process wall time and peak RSS (largest process, GNU time).

    .venv/bin/pip install numpy duckdb        # optional peers: pytrec-eval
    .venv/bin/python scripts/bench.py --queries 100000 --depth 100 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KS = (5, 10, 20, 100)
TOLERANCE = 1e-9


def generate(out: Path, queries: int, depth: int, judged: int, seed: int) -> None:
    """queries x depth results, `judged` judgments per query with about half of them retrieved,
    grades 0..3, scores rounded so that ties are common."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    for side in ("results", "judgments"):
        (out / side).mkdir(parents=True, exist_ok=True)
    chunk = max(1, 2_000_000 // depth)
    for part, start in enumerate(range(0, queries, chunk)):
        n = min(chunk, queries - start)
        query = np.repeat(np.arange(start, start + n, dtype=np.int64), depth)
        doc = np.tile(np.arange(depth, dtype=np.int64), n) * 2  # retrieved: even doc numbers
        score = np.round(rng.random(n * depth), 3)
        pq.write_table(
            pa.table({"query_id": query, "doc_id": doc, "score": score}),
            out / "results" / f"part-{part:05d}.parquet",
        )
        j_query = np.repeat(np.arange(start, start + n, dtype=np.int64), judged)
        # half of the judged docs are retrieved (even numbers), half are not (odd numbers)
        base = np.tile(np.arange(judged, dtype=np.int64), n)
        j_doc = np.where(base % 2 == 0, base, base + 2 * depth + 1)
        relevance = rng.integers(0, 4, n * judged).astype(np.int32)
        pq.write_table(
            pa.table({"query_id": j_query, "doc_id": j_doc, "relevance": relevance}),
            out / "judgments" / f"part-{part:05d}.parquet",
        )


FLOOR = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.appName("floor").getOrCreate()
    for path in sys.argv[1:3]:
        frame = spark.read.parquet(path)
        frame.repartition("query_id").write.format("noop").mode("overwrite").save()
    print("MEANS {}")
    """
)

DUCKDB = textwrap.dedent(
    """
    import json, sys, duckdb
    judgments, results, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    con = duckdb.connect()
    cut = ", ".join(f"sum(CASE WHEN pos <= {k} THEN g / log2(pos + 1) ELSE 0 END) AS d{k}" for k in ks)
    icut = ", ".join(f"sum(CASE WHEN pos <= {k} THEN g / log2(pos + 1) ELSE 0 END) AS i{k}" for k in ks)
    means = ", ".join(f"avg(CASE WHEN i{k} > 0 THEN d{k} / i{k} ELSE 0 END) AS m{k}" for k in ks)
    row = con.execute(f'''
      WITH j AS (SELECT query_id, CAST(doc_id AS VARCHAR) doc, GREATEST(relevance, 0)::DOUBLE g
                 FROM read_parquet('{judgments}/*.parquet')),
           r AS (SELECT query_id, CAST(doc_id AS VARCHAR) doc, score FROM read_parquet('{results}/*.parquet')),
           ranked AS (SELECT r.query_id, coalesce(j.g, 0) g,
                        row_number() OVER (PARTITION BY r.query_id ORDER BY score DESC, r.doc DESC) pos
                      FROM r LEFT JOIN j USING (query_id, doc)),
           dcg AS (SELECT query_id, {cut} FROM ranked GROUP BY query_id),
           ideal_pos AS (SELECT query_id, g, row_number() OVER (PARTITION BY query_id ORDER BY g DESC) pos FROM j),
           idcg AS (SELECT query_id, {icut} FROM ideal_pos GROUP BY query_id)
      SELECT {means} FROM dcg JOIN idcg USING (query_id)''').fetchone()
    print("MEANS " + json.dumps({str(k): v for k, v in zip(ks, row)}))
    """
)

PYTREC = textwrap.dedent(
    """
    import json, sys, pyarrow.dataset as ds, pytrec_eval
    judgments, results, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    qrels, run = {}, {}
    for b in ds.dataset(judgments).to_batches():
        for q, d, r in zip(*(b.column(i).to_pylist() for i in range(3))):
            qrels.setdefault(str(q), {})[str(d)] = int(r)
    for b in ds.dataset(results).to_batches():
        for q, d, s in zip(*(b.column(i).to_pylist() for i in range(3))):
            run.setdefault(str(q), {})[str(d)] = float(s)
    measures = {"ndcg_cut." + ",".join(map(str, ks))}
    scores = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    print("MEANS " + json.dumps({str(k): sum(v[f"ndcg_cut_{k}"] for v in scores.values()) / len(scores) for k in ks}))
    """
)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS GB of the largest process, stdout) via GNU time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        fmt = "%e %M"
        done = subprocess.run(
            ["/usr/bin/time", "-f", fmt, "-o", report.name, *command],
            env=env, capture_output=True, text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        wall, rss_kb = report.read().split()[-2:]
    return float(wall), int(rss_kb) / 1e6, done.stdout


def means_from(stdout: str) -> dict[str, float]:
    for line in stdout.splitlines():
        if line.startswith("MEANS "):
            return json.loads(line.removeprefix("MEANS "))
    raise RuntimeError("no MEANS line in output")


def job_means(output: Path) -> dict[str, float]:
    import pyarrow.parquet as pq

    table = pq.read_table(output / "summary").to_pylist()
    return {str(row["k"]): row["ndcg"] for row in table if row["k"] is not None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--judged", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--data", default=str(ROOT / "bench-data"))
    parser.add_argument("--out", default=str(ROOT / "bench-results"))
    args = parser.parse_args()

    data = Path(args.data) / f"q{args.queries}-d{args.depth}-j{args.judged}"
    if not (data / "results").exists():
        generate(data, args.queries, args.depth, args.judged, seed=1)
    judgments, results = str(data / "judgments"), str(data / "results")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    spark_submit = [str(Path(sys.executable).parent / "spark-submit"), "--master", "local[2]",
                    "--driver-memory", args.driver_memory, "--conf", "spark.ui.enabled=false",
                    "--driver-java-options", f"-Dlog4j2.configurationFile={ROOT / 'conf' / 'log4j2.properties'}"]
    scripts = Path(tempfile.mkdtemp(prefix="ndcg-bench-"))
    (scripts / "floor.py").write_text(FLOOR)
    ks_json = json.dumps(list(KS))
    job_out = scripts / "job-out"
    tools: dict[str, list[str]] = {
        "floor": [*spark_submit, str(scripts / "floor.py"), judgments, results],
        "job": [*spark_submit, str(ROOT / "jobs" / "evaluate_ndcg.py"), "--judgments", judgments,
                "--results", results, "--output", str(job_out), "--k", ",".join(map(str, KS))],
    }
    for name, code, module in (("duckdb", DUCKDB, "duckdb"), ("pytrec_eval", PYTREC, "pytrec_eval")):
        if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0:
            (scripts / f"peer_{name}.py").write_text(code)
            tools[name] = [sys.executable, str(scripts / f"peer_{name}.py"), judgments, results, ks_json]
    walls: dict[str, list[float]] = {name: [] for name in tools}
    peaks: dict[str, list[float]] = {name: [] for name in tools}
    means: dict[str, dict[str, float]] = {}
    for attempt in range(args.repeat):  # alternate the tools within each round
        for name, command in tools.items():
            wall, peak, stdout = timed(command, env)
            walls[name].append(wall)
            peaks[name].append(peak)
            if name == "job":
                means[name] = job_means(job_out)
            elif name != "floor":
                means[name] = means_from(stdout)
            print(f"round {attempt + 1} {name}: {wall:.1f} s, {peak:.2f} GB", flush=True)
    reference = means["job"]
    for name, values in means.items():
        worst = max(abs(values[str(k)] - reference[str(k)]) for k in KS)
        if worst > TOLERANCE:
            raise SystemExit(f"{name} disagrees with the job by {worst:.3g}: {values} vs {reference}")
    median = {name: statistics.median(times) for name, times in walls.items()}
    report = {
        "queries": args.queries, "depth": args.depth, "judged_per_query": args.judged,
        "result_rows": args.queries * args.depth, "judgment_rows": args.queries * args.judged,
        "ks": list(KS), "repeat": args.repeat, "driver_memory": args.driver_memory,
        "median_wall_s": median, "peak_rss_gb": {n: max(p) for n, p in peaks.items()},
        "ratio_to_floor": {n: median[n] / median["floor"] for n in median},
        "job_ratio_to_peer": {n: median["job"] / median[n] for n in median if n != "job"},
        "mean_ndcg": reference,
    }
    stem = out / f"bench-{args.queries}x{args.depth}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2))
    lines = [f"{args.queries * args.depth:,} result rows, {args.queries * args.judged:,} judgments,"
             f" NDCG@{','.join(map(str, KS))}, median of {args.repeat}",
             "", "| tool | wall (s) | x floor | peak RSS (GB) |", "|---|---|---|---|"]
    for name in tools:
        lines.append(f"| {name} | {median[name]:.1f} | {report['ratio_to_floor'][name]:.2f} |"
                     f" {report['peak_rss_gb'][name]:.2f} |")
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    shutil.rmtree(scripts, ignore_errors=True)


if __name__ == "__main__":
    main()
