"""The Python API: NDCG@k of DataFrames the caller already holds, in the caller's SparkSession.

The same checks and numbers as the job; nothing is written anywhere. The (run, query) rows of
the one pass are kept in the executors (ndcg_spark.sessions.ExecutorStore; the job stages them as
Parquet instead). Classic sessions and Spark Connect alike."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql import DataFrame, SparkSession

from ndcg_spark import columns as c
from ndcg_spark.checks.inputs import GIVEN, JUDGMENTS, RESULTS, Source, canonical_inputs, require_columns
from ndcg_spark.checks.kinds import not_a_table, table_kind
from ndcg_spark.comparison.compare import compare as compare_rows
from ndcg_spark.comparison.pairing import wide_values, with_value
from ndcg_spark.comparison.resampling import start_python_workers
from ndcg_spark.comparison.rows import Cutoff, Resampling, comparison_rows_frame
from ndcg_spark.declarations import build
from ndcg_spark.errors import ConfigError, InputError
from ndcg_spark.evaluation import evaluate_checked
from ndcg_spark.gate.against import Reference, judge, judge_tables
from ndcg_spark.gate.rule import DEFAULT_ALPHA, GateSettings, bad_threshold
from ndcg_spark.gate.verdict import Verdict
from ndcg_spark.io.trec import read_trec
from ndcg_spark.io.trec_formats import QRELS, RUN
from ndcg_spark.measures import report_order
from ndcg_spark.option_values import ColumnNames
from ndcg_spark.options import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    ENGINE_LOCAL,
    ENGINE_SPARK,
    RESAMPLING_AUTO,
    Options,
    ResamplingEngine,
    declared,
)
from ndcg_spark.publish.read_back import gate_reference, judgments_of
from ndcg_spark.remedies import VOICE_PYTHON
from ndcg_spark.report.result import Report, local_report_of, report_of
from ndcg_spark.scoring.slices import QUERY_METADATA, slice_source
from ndcg_spark.sessions import ExecutorStore

if TYPE_CHECKING:
    from ndcg_spark.local_evaluation import SliceTable
from ndcg_spark.spark_conf import PLAN_CONF, session_settings


def evaluate(
    judgments: DataFrame | Any,
    results: DataFrame | Mapping[str, DataFrame] | Any,
    *,
    query_metadata: DataFrame | Any | None = None,
    **options: Any,
) -> Report:
    """NDCG@k per (run, query) and per run, with trec_eval's semantics and the job's checks.

    `judgments` has query_id, doc_id, relevance; `results` has query_id, doc_id, score and
    optionally run_id and rank (`columns` maps these names to yours, e.g. {"doc_id": "item"}).
    `results` may also map names to frames, one system each: a frame without run_id is the run
    of its name. Bad options raise ConfigError, bad rows InputError, each with the job's one-line
    message. With `baseline`, every other run is compared against it; with `slices`, the means
    are broken down by those query columns, read from `query_metadata` or else from `results`.

    Every option of docs/options.md is a keyword, spelled as that table's Python keyword (the
    signature lists them with their defaults).

    Of pandas or Polars DataFrames or Arrow tables (judgments and results alike), the embedded
    engine evaluates in this process, with no JVM, the same numbers to the bit; the report's
    per_query and summary are then pandas DataFrames. `engine="spark"` evaluates such tables on
    the active SparkSession instead (a report of Spark DataFrames)."""
    chosen = Options.of(options)
    if query_metadata is not None and not chosen.slices:
        raise ConfigError("query_metadata is given but no slice columns: pass slices=[...]")
    spark_frames = isinstance(judgments, DataFrame)
    if chosen.engine == ENGINE_LOCAL and spark_frames:
        raise ConfigError(
            "engine='local' evaluates pandas, Polars or Arrow tables in this process, and these are Spark DataFrames:"
            " leave engine out (or pass engine='spark'), or pass a sample as pandas"
        )
    if chosen.engine == ENGINE_SPARK and not spark_frames:
        judgments, results, query_metadata = _on_spark(judgments, results, query_metadata)
    if not isinstance(judgments, DataFrame):
        from ndcg_spark.local_evaluation import evaluate_tables  # numpy and pyarrow: the embedded engine's

        slices = _slice_table(chosen, results, query_metadata)
        per_query, evaluation = evaluate_tables(_table(judgments, JUDGMENTS), _tables(results), chosen, slices=slices)
        return local_report_of(per_query, evaluation, compared=chosen.baseline is not None, sliced=bool(chosen.slices))
    if isinstance(results, DataFrame):
        sources = [Source(results, GIVEN)]
    elif isinstance(results, Mapping) and all(isinstance(frame, DataFrame) for frame in results.values()):
        sources = [Source(frame, GIVEN, str(name)) for name, frame in results.items()]
    else:
        raise ConfigError("results must be a DataFrame or a mapping of run names to DataFrames")
    return evaluate_sources(Source(judgments, GIVEN), sources, chosen, query_metadata)


def evaluate_sources(
    judgments: Source, sources: list[Source], chosen: Options, query_metadata: DataFrame | None = None
) -> Report:
    """evaluate() of Spark DataFrames, each named in messages as its Source says (the API's
    "DataFrame"; the path a command read it from)."""
    spark = judgments.frame.sparkSession
    judged, retrieved = canonical_inputs(judgments, sources, chosen, located=False)
    slice_input = None
    if chosen.slices:
        if query_metadata is None and len(sources) > 1:
            raise ConfigError("slices of several results frames need query_metadata")
        label, frame = (QUERY_METADATA, query_metadata) if query_metadata is not None else (RESULTS, sources[0].frame)
        slice_input = slice_source(label, GIVEN, frame, chosen.columns.query_id, chosen.slices)
    store = ExecutorStore()
    try:
        with session_settings(spark, PLAN_CONF):
            per_query, evaluation = evaluate_checked(spark, judged, retrieved, chosen, store, slice_input)
    except BaseException:
        store.release()  # a refused input leaves nothing cached behind
        raise
    return report_of(per_query, evaluation, chosen, store)


def _slice_table(chosen: Options, results: object, query_metadata: object) -> SliceTable | None:
    """Where the embedded engine reads the slice columns: the query metadata, else the results."""
    from ndcg_spark.checks.tables import as_arrow
    from ndcg_spark.local_evaluation import SliceTable

    if not chosen.slices:
        return None
    if query_metadata is not None:
        table = as_arrow(_table(query_metadata, QUERY_METADATA), QUERY_METADATA)
        return SliceTable(QUERY_METADATA, GIVEN, table, chosen.columns.query_id)
    if isinstance(results, Mapping):
        raise ConfigError("slices of several results frames need query_metadata")
    return SliceTable(RESULTS, GIVEN, as_arrow(_table(results, RESULTS), RESULTS), chosen.result_names.query_id)


def _on_spark(
    judgments: object, results: object, query_metadata: object
) -> tuple[DataFrame, DataFrame | dict[str, DataFrame], DataFrame | None]:
    """engine='spark' of tables in memory: each as a DataFrame of the active SparkSession."""
    spark = SparkSession.getActiveSession()
    if spark is None:
        raise ConfigError(
            "engine='spark' needs an active SparkSession: start one, or leave engine out to evaluate in this process"
        )
    from ndcg_spark.checks.tables import as_arrow

    def frame(table: object, label: str) -> DataFrame:
        return spark.createDataFrame(as_arrow(_table(table, label), label).to_pandas())

    metadata = None if query_metadata is None else frame(query_metadata, QUERY_METADATA)
    if isinstance(results, Mapping):
        return frame(judgments, JUDGMENTS), {str(name): frame(table, RESULTS) for name, table in results.items()}, metadata
    return frame(judgments, JUDGMENTS), frame(results, RESULTS), metadata


def _table(frame: object, label: str) -> object:
    """A table of the embedded engine, or the library's own refusal of what is not one."""
    if table_kind(frame) is None:
        raise not_a_table(frame, label)
    return frame


def _tables(results: object) -> object:
    if isinstance(results, Mapping):
        return {name: _table(frame, RESULTS) for name, frame in results.items()}
    return _table(results, RESULTS)


def _signature() -> inspect.Signature:
    """evaluate's signature with every option as a keyword of its own, for help() and a
    notebook's completion (the function takes them as **options)."""
    fixed = [p for p in inspect.signature(evaluate).parameters.values() if p.kind != p.VAR_KEYWORD]
    keywords = [
        inspect.Parameter(item.name, inspect.Parameter.KEYWORD_ONLY, default=getattr(Options(), item.name), annotation=item.type)
        for item in declared(Options)
    ]
    return inspect.Signature([*fixed, *keywords], return_annotation=Report)


evaluate.__signature__ = _signature()  # type: ignore[attr-defined]


def compare(
    per_query: DataFrame | Any,
    baseline: str,
    *,
    permutations: int = DEFAULT_PERMUTATIONS,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    resampling: ResamplingEngine = RESAMPLING_AUTO,
) -> DataFrame | Any:
    """Every run of a per-query report against `baseline`, at every measure and cutoff: both means, wins,
    ties and losses, a paired t-test, a randomization test, a bootstrap interval and Holm's
    correction across runs. `per_query` has the job's per_query columns (a Report's, or a
    published per_query read back); the result has the job's comparison schema. `resampling`
    says how the draws are computed (auto, arrays or rows; the same numbers either way). Of a pandas
    or Polars frame or an Arrow table (a Report of such tables holds its per_query as pandas), it
    runs in this process on the embedded engine and returns a pandas frame, the same numbers."""
    chosen = Options.of({"permutations": permutations, "bootstrap": bootstrap, "seed": seed, "resampling": resampling})
    plan = Resampling.of(chosen)
    if not isinstance(per_query, DataFrame):
        return _compare_table(_table(per_query, "per_query"), str(baseline), plan)
    valued = c.VALUE if c.VALUE in per_query.columns else c.NDCG
    require_columns(per_query, "per_query", GIVEN, [c.RUN_ID, c.QUERY_ID, c.MEASURE, c.K, valued])
    per_query = with_value(per_query)
    # The runs, the cutoffs and each one's rows in one small aggregation; the runs put in order
    # on the driver as the job's summary is (no sampling job), NULL first, as Spark's ascending
    # order puts it. A run's (run, query) rows are its most rows at one cutoff.
    counted = per_query.groupBy(c.RUN_ID, c.MEASURE, c.K).count().collect()
    runs = sorted({row[0] for row in counted}, key=lambda run: (run is not None, run or ""))
    measured = {Cutoff(row[1], row[2]) for row in counted}
    cutoffs = sorted(measured, key=lambda cut: report_order(cut.measure, cut.k))
    pair_rows = sum(max(row[3] for row in counted if row[0] == run) for run in runs)
    spark = per_query.sparkSession
    start_python_workers(spark, plan, pair_rows)
    with session_settings(spark, PLAN_CONF):
        rows = compare_rows(spark, wide_values(per_query, cutoffs), str(baseline), runs, cutoffs, plan, pair_rows)
    return comparison_rows_frame(spark, rows)


def _compare_table(per_query: object, baseline: str, plan: Resampling) -> Any:
    """compare() of per_query rows a notebook holds, on the embedded engine: a pandas frame of the
    Spark engine's columns, the same numbers to the bit."""
    from ndcg_spark.checks.tables import as_arrow
    from ndcg_spark.comparison.tables import compare_table, values_table
    from ndcg_spark.report.result import local_comparison

    table = as_arrow(per_query, "per_query")
    valued = c.VALUE if c.VALUE in table.column_names else c.NDCG
    missing = [name for name in (c.RUN_ID, c.QUERY_ID, c.MEASURE, c.K, valued) if name not in table.column_names]
    if missing:
        found = ", ".join(table.column_names)
        raise InputError(f"per_query {GIVEN}: missing column(s) {', '.join(repr(name) for name in missing)} (found: {found})")
    return local_comparison(compare_table(values_table(table), baseline, plan))


def gate(
    report: Report,
    reference: Report | str,
    *,
    fail_on_drop: float | str,
    alpha: float = DEFAULT_ALPHA,
    measures: Sequence[str] = (),
    permutations: int = DEFAULT_PERMUTATIONS,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    resampling: ResamplingEngine = RESAMPLING_AUTO,
) -> Verdict:
    """The regression gate's verdict on `report`, as the job's --fail-on-drop gives it: against
    `reference`, the name of a baseline run in the report, or an earlier Report (e.g.
    read_report(output, "2026-12-04")) whose runs are paired with their namesakes over the queries
    both scored. A (run, measure, k) fails when its mean falls by more than `fail_on_drop` (0.01,
    or "2%" of the reference's mean) and the randomization test's Holm-corrected p is below
    `alpha`. `measures` as `--measure` names them; by default every cutoff of NDCG."""
    chosen = Options.of({"permutations": permutations, "bootstrap": bootstrap, "seed": seed, "resampling": resampling})
    settings: GateSettings = build(GateSettings, {"fail_on_drop": fail_on_drop, "alpha": alpha, "measures": measures})
    reported = sorted(
        {Cutoff(row[c.MEASURE], row[c.K]) for row in report.evaluation.summary},
        key=lambda cut: report_order(cut.measure, cut.k),
    )
    rule = settings.rule(reported, VOICE_PYTHON)
    if rule is None:
        raise bad_threshold(fail_on_drop)
    against = Reference.baseline(reference) if isinstance(reference, str) else gate_reference(reference, judgments_of(report))
    draws = Resampling.of(chosen)
    if not isinstance(report.per_query, DataFrame):
        if against.per_query is not None and isinstance(against.per_query, DataFrame):
            raise ConfigError(
                "gate() of an in-memory report takes a reference of the same kind: a report of pandas, Polars or Arrow"
                " tables, or the name of a baseline run"
            )
        return judge_tables(report.per_query, report.evaluation, rule, draws, [against])
    if against.per_query is not None and not isinstance(against.per_query, DataFrame):
        raise ConfigError(
            "gate() of a Spark report takes a reference of the same kind: a report of Spark DataFrames (read_report's),"
            " or the name of a baseline run"
        )
    spark = report.per_query.sparkSession
    with session_settings(spark, PLAN_CONF):
        return judge(report.per_query, report.evaluation, rule, draws, [against])


def read_qrels(spark: SparkSession, path: str) -> DataFrame:
    """A trec_eval qrels file (or folder of them) as judgments: query_id, doc_id, relevance."""
    return read_trec(spark, path, JUDGMENTS, QRELS, ColumnNames()).select(c.QUERY_ID, c.DOC_ID, c.RELEVANCE)


def read_run(spark: SparkSession, path: str) -> DataFrame:
    """A trec_eval run file (or folder of them) as results: run_id, query_id, doc_id, score, rank."""
    return read_trec(spark, path, RESULTS, RUN, ColumnNames()).select(c.RUN_ID, c.QUERY_ID, c.DOC_ID, c.SCORE, c.RANK)
