"""Writes a small, realistic sample for the demo: three runs, graded labels, score ties,
judged queries a run lacks and retrieved queries nobody judged. Deterministic (fixed seed)."""

from __future__ import annotations

import argparse
import os
import random

import pyarrow as pa
import pyarrow.parquet as pq

RUNS = {"bm25": 0.8, "dense": 0.5, "hybrid": 0.35}  # noise: lower is a better system
LOCALES = ("en-US", "de-DE", "fr-FR")
DEVICES = ("mobile", "desktop")


def query_metadata(queries: int) -> pa.Table:
    """What describes each query (for per-slice summaries); every 50th query has no device."""
    return pa.Table.from_pydict(
        {
            "query_id": [f"q{q:04d}" for q in range(queries)],
            "locale": [LOCALES[q % len(LOCALES)] for q in range(queries)],
            "device": [None if q % 50 == 7 else DEVICES[(q // 3) % len(DEVICES)] for q in range(queries)],
        },
        schema=pa.schema([("query_id", pa.string()), ("locale", pa.string()), ("device", pa.string())]),
    )


def generate(queries: int, depth: int, seed: int) -> tuple[pa.Table, pa.Table]:
    rng = random.Random(seed)
    judgments: dict[str, list] = {"query_id": [], "doc_id": [], "relevance": []}
    results: dict[str, list] = {"run_id": [], "query_id": [], "doc_id": [], "score": [], "rank": []}
    for q in range(queries):
        query = f"q{q:04d}"
        pool = [f"d{q:04d}-{d:03d}" for d in range(depth * 2)]
        merit = {doc: rng.random() for doc in pool}
        judged_only_in_results = q % 40 == 39  # a query that nobody judged
        if not judged_only_in_results:
            # Pooled judging, as in TREC: good documents are likely judged, others by chance.
            for doc in (doc for doc in pool if merit[doc] > 0.4 or rng.random() < 0.25):
                grade = min(4, int(merit[doc] ** 2 * 5))
                judgments["query_id"].append(query)
                judgments["doc_id"].append(doc)
                judgments["relevance"].append(grade)
        for run, noise in RUNS.items():
            if (q + len(run)) % 25 == 0:  # this run lacks the query
                continue
            scored = sorted(
                ((round(merit[doc] + rng.gauss(0, noise), 1), doc) for doc in pool),
                key=lambda pair: (-pair[0], pair[1]),
            )[:depth]
            for rank, (score, doc) in enumerate(scored, start=1):
                results["run_id"].append(run)
                results["query_id"].append(query)
                results["doc_id"].append(doc)
                results["score"].append(score)  # rounded: ties are common
                results["rank"].append(rank)
    judgment_schema = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("relevance", pa.int32())])
    result_schema = pa.schema(
        [
            ("run_id", pa.string()),
            ("query_id", pa.string()),
            ("doc_id", pa.string()),
            ("score", pa.float64()),
            ("rank", pa.int32()),
        ]
    )
    return (
        pa.Table.from_pydict(judgments, schema=judgment_schema),
        pa.Table.from_pydict(results, schema=result_schema),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="sample")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--depth", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    judgments, results = generate(args.queries, args.depth, args.seed)
    os.makedirs(args.out, exist_ok=True)
    pq.write_table(judgments, os.path.join(args.out, "judgments.parquet"))
    pq.write_table(results, os.path.join(args.out, "results.parquet"))
    pq.write_table(query_metadata(args.queries), os.path.join(args.out, "queries.parquet"))
    print(f"sample: {judgments.num_rows} judgments, {results.num_rows} results, {args.queries} queries in {args.out}/")


if __name__ == "__main__":
    main()
