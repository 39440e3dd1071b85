"""ndcg-spark trec_eval on the embedded engine (--engine local, the default): the files read with
pyarrow, checked, scored and printed in-process. No JVM, and no pyspark or pandas imported."""

from __future__ import annotations

from typing import Any

import pyarrow.compute as pc

from ndcg_spark import columns as c
from ndcg_spark.checks.tables import checked
from ndcg_spark.errors import InputError
from ndcg_spark.io.trec_formats import QRELS, RUN
from ndcg_spark.io.trec_local import read_trec_table
from ndcg_spark.job.no_pandas import skip_pyarrow_pandas_probe
from ndcg_spark.job.trec_eval_args import TrecEvalArgs, relstring_name
from ndcg_spark.measures import NDCG_CUT, NDCG_UNCUT, Measure, parse_measures, scored
from ndcg_spark.option_values import ColumnNames
from ndcg_spark.options import Options
from ndcg_spark.report.trec_eval_lines import printed_lines
from ndcg_spark.scoring.embedded.per_query import score
from ndcg_spark.scoring.embedded.relstring import relstrings
from ndcg_spark.scoring.embedded.summary import summary_rows
from ndcg_spark.scoring.plan import ScoringPlan

# Scored when nothing numeric is asked (-m relstring alone): the pairs its lines are printed for.
_PAIRS_ONLY = (Measure(NDCG_CUT, 10),)
_ROW_COLUMNS = [c.RUN_ID, c.QUERY_ID, c.MEASURE, c.K, c.VALUE]


def _scored(args: TrecEvalArgs, judgments: Any, results: Any, measures: tuple[Measure, ...], renamed: str) -> tuple:
    """per_query's and the summary's rows of `measures` (ndcg under `renamed` when given)."""
    gains = args.ndcg_gains if renamed else ()
    plan = ScoringPlan(
        measures or _PAIRS_ONLY,
        args.level,
        gains=gains,
        judged_only=args.judged_only,
        max_depth=args.max_depth,
        complete=args.complete,
    )
    done = score(judgments, results, plan)
    wanted = {(m.reported, m.k) for m in measures}
    per_query = [row for row in done.per_query.select(_ROW_COLUMNS).to_pylist() if (row[c.MEASURE], row[c.K]) in wanted]
    summary = [row for row in summary_rows(done.per_query, done.measures, "") if (row[c.MEASURE], row[c.K]) in wanted]
    if renamed:
        for row in [*per_query, *summary]:
            row[c.MEASURE] = renamed
    pairs = sorted({(row[c.RUN_ID], row[c.QUERY_ID]) for row in done.per_query.select([c.RUN_ID, c.QUERY_ID]).to_pylist()})
    return per_query, summary, pairs


def local_lines(args: TrecEvalArgs) -> list[str]:
    """trec_eval's printed lines for these inputs: one run (trec_eval reads one per file)."""
    skip_pyarrow_pandas_probe()
    names = ColumnNames()
    judgments = read_trec_table(args.qrels, "qrels", QRELS, names)
    results = read_trec_table(args.run, "run", RUN, names)
    runs = pc.unique(results[c.RUN_ID]).to_pylist()
    if len(runs) != 1:
        raise InputError(f"run {args.run}: column 'run_id': {len(runs)} run names; trec_eval reads one run per file")
    inputs = checked(judgments, results, Options(), (args.qrels, args.run))
    asked = tuple(scored(parse_measures(args.measures))) if args.measures else ()
    plain = tuple(m for m in asked if not (args.ndcg_gains and m.name == NDCG_UNCUT))
    per_query: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    pairs: list[tuple[str, str]] = []
    if plain or not args.ndcg_gains:
        per_query, summary, pairs = _scored(args, inputs.judgments, inputs.results, plain, "")
    if args.ndcg_gains:
        more = _scored(args, inputs.judgments, inputs.results, (Measure(NDCG_UNCUT),), f"{NDCG_UNCUT}_{args.ndcg_gains_text}")
        per_query, summary, pairs = per_query + more[0], summary + more[1], more[2]
    texts = None
    if args.relstring is not None and args.per_query:
        found = relstrings(
            inputs.judgments, inputs.results, args.relstring, judged_only=args.judged_only, max_depth=args.max_depth
        )
        texts = {query: found.get((run, query), "") for run, query in pairs}
    return printed_lines(
        per_query if args.per_query else [],
        summary,
        texts,
        relstring_name(args),
        summary_lines=args.summary,
        run_id=runs[0] if args.runid else None,
    )
