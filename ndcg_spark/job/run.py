"""The job: evaluate the configured inputs, publish the report atomically, write the manifest."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from pyspark.sql import DataFrame, SparkSession

from ndcg_spark import columns as c
from ndcg_spark import progress
from ndcg_spark.errors import ConfigError, StateNotReadable
from ndcg_spark.evaluation import Evaluation, evaluate_checked
from ndcg_spark.gate.verdict import Verdict, gate_table
from ndcg_spark.io.layout import PER_QUERY_DIR, REPORT_DIR
from ndcg_spark.io.local_paths import local_path
from ndcg_spark.io.storage import FileSystem, file_system
from ndcg_spark.job.baseline_watch import baseline_watch
from ndcg_spark.job.engine import EngineChoice, choose_engine
from ndcg_spark.job.gate import Earlier, earlier_date, gate_verdict
from ndcg_spark.job.inputs import read_inputs, read_slices, read_tables, require_inputs
from ndcg_spark.job.session import asks_for_connect, session_conf
from ndcg_spark.job.settings import JobConfig
from ndcg_spark.options import ENGINE_SPARK
from ndcg_spark.publish import manifest
from ndcg_spark.publish.atomic import Dataset, Published, stage_all, stage_file, stage_page, write_staged
from ndcg_spark.publish.commit import Commit, abandon, commit, recover
from ndcg_spark.publish.datasets import TrecEvalText, report_datasets
from ndcg_spark.publish.events import reached
from ndcg_spark.publish.layout import PublicationLayout
from ndcg_spark.publish.lock import lock_unreadable, publication_lock
from ndcg_spark.publish.mlflow_log import MlflowLogError, log_to_mlflow
from ndcg_spark.publish.read_back import read_manifests, set_aside_unreadable_manifests, unfinished_dates
from ndcg_spark.publish.staging import Staging
from ndcg_spark.report import tables
from ndcg_spark.report.data import Renderer, gather, page_measures
from ndcg_spark.report.formatting import format_report, judged_warnings
from ndcg_spark.report.relstring import RELSTRING, relstrings
from ndcg_spark.report.result import Report, arrow_report_of, report_of
from ndcg_spark.report.trec_eval import RUNID
from ndcg_spark.report.trec_eval_lines import RELSTRING_LENGTH
from ndcg_spark.sessions import is_connect
from ndcg_spark.spark_conf import session_settings

REPORT_TABLE = "report_table"
REPORT_ASSET = "report_script"  # plotly's JavaScript beside the pages, written once per output

PAIRS_DIR = "pairs"


log = logging.getLogger(progress.LOGGER)

NEEDS_CLASSIC = (
    "the job runs on a classic Spark session, not on Spark Connect (spark.api.mode=connect or SPARK_REMOTE):"
    " it publishes its report atomically through Hadoop's FileSystem on the driver (renames, the lock,"
    " the commit record), which a Connect client cannot reach; drop --conf spark.api.mode=connect"
    " (spark-submit's driver is classic by default), or call ndcg_spark.evaluate from a Connect session"
)


def build_session(config: JobConfig, interactive: bool) -> SparkSession:
    """The job's session; the master comes from spark-submit, or local mode from the command.
    A Spark Connect session is refused before anything is read (NEEDS_CLASSIC says why)."""
    if asks_for_connect(config):
        raise ConfigError(NEEDS_CLASSIC)
    builder = SparkSession.builder.appName("ndcg-spark")
    for key, value in session_conf(config, interactive).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if is_connect(spark):
        raise ConfigError(NEEDS_CLASSIC)
    return spark


def _input_paths(config: JobConfig) -> dict[str, str]:
    """The manifest's inputs: judgments, and results (results:NAME for each of several)."""
    paths = {manifest.JUDGMENTS: config.judgments}
    results = config.result_paths
    if len(results) == 1:
        paths["results"] = results[0][1]
    else:
        paths.update({f"results:{name}": path for name, path in results})
    return paths


def evaluate_paths(spark: SparkSession, config: JobConfig, staging: Staging) -> tuple[DataFrame, Evaluation, DataFrame | None]:
    """Read the configured inputs and evaluate them; the (run, query) rows are staged as Parquet,
    which survives a lost executor, unlike a checkpoint in executors' memory, and so is per_query,
    the folder publishing moves into place, which the summary reads. With
    --trec-eval-report and relstring among the measures (all_trec), also the relstrings that
    text prints (a plan over the inputs, read when it is published)."""
    judgments, results = read_inputs(spark, config)
    slice_input = read_slices(spark, config)

    def stage(pairs: DataFrame) -> DataFrame:
        pairs.write.parquet(staging.path(PAIRS_DIR))
        # With the schema given, reading it back needs no Spark job to infer it.
        return spark.read.schema(pairs.schema).parquet(staging.path(PAIRS_DIR))

    def write_per_query(per_query: DataFrame, rows: int) -> DataFrame:
        folder = write_staged(spark, staging, Dataset(PER_QUERY_DIR, per_query, rows))
        return spark.read.schema(per_query.schema).parquet(folder)

    drawn = page_measures() if config.html_report else ()
    with baseline_watch(spark, results, config.options.baseline):
        per_query, evaluation = evaluate_checked(
            spark, judgments, results, config.options, stage, slice_input, write_per_query, drawn
        )
    options, texts = config.options, None
    if config.trec_eval_report and RELSTRING in {measure.name for measure in options.measures}:
        texts = relstrings(
            judgments.frame,
            results.frame,
            per_query.select(c.RUN_ID, c.QUERY_ID).distinct(),
            judged_only=options.judged_only,
            max_depth=options.max_depth,
        )
    return per_query, evaluation, texts


@contextmanager
def _publishing(staging: Staging, layout: PublicationLayout, config: JobConfig) -> Iterator[None]:
    """The output's lock, with any publication a dead run left half done finished first."""
    date = None if config.eval_date is None else config.eval_date.isoformat()
    with publication_lock(staging.fs, layout.lock, date, config.lock_timeout, config.lock_stale_after):
        recover(staging.fs, layout)
        yield


def _check_output(fs: FileSystem, output: str) -> None:
    """An output where no folder can be written is a usage error, found before any input is read."""
    problem = fs.unwritable_folder(output)
    if problem is not None:
        raise ConfigError(f"output {output} {problem}: give --output (config file: [output] path) a folder this user can write")


def _finish_interrupted(fs: FileSystem, layout: PublicationLayout, config: JobConfig) -> Commit | None:
    """A publication a dead run left half done, finished under the lock; None when there is none
    (then nothing is locked or created)."""
    if not fs.exists(layout.commit):
        return None
    with publication_lock(fs, layout.lock, None, config.lock_timeout, config.lock_stale_after):
        return recover(fs, layout)


def repair(config: JobConfig, interactive: bool) -> None:
    """--repair: finish an interrupted publication on the output, evaluate nothing. What cannot be
    read is dealt with too: an unreadable lock is removed, a commit record that neither reads nor
    matches a copy is abandoned, an unreadable manifest is set aside; each names the dates to run
    again."""
    # A local output is repaired in this process: file work alone, no JVM.
    spark = None if local_path(config.output) is not None else build_session(config, interactive)
    layout = PublicationLayout(config.output, config.eval_date)
    fs = file_system(spark, config.output)
    _check_output(fs, config.output)
    done: list[str] = []
    if lock_unreadable(fs, layout.lock):
        done.append(f"removed an unreadable publication lock ({layout.lock})")
    if done or fs.exists(layout.commit):
        with publication_lock(fs, layout.lock, None, config.lock_timeout, config.lock_stale_after, repairing=True):
            try:
                finished = recover(fs, layout)
            except StateNotReadable:
                finished = None
                abandon(fs, layout)
                dates = unfinished_dates(spark, config.output)
                rerun = f"run {', '.join(dates)} again" if dates else "no published date lost a file: nothing to run again"
                done.append(f"abandoned the publication of an unreadable commit record ({layout.commit}): {rerun}")
            if finished is not None:
                done.append(f"{len(finished.moves)} files moved into place; manifest {finished.manifest_path}")
    for label, path in set_aside_unreadable_manifests(spark, fs, config.output):
        done.append(f"set aside the unreadable manifest of {label} (now {path}): run {label} again")
    if done:
        print(f"repaired {config.output}: {'; '.join(done)}")
    else:
        print(f"nothing to repair in {config.output}")


def _publish(
    spark: SparkSession | None,
    config: JobConfig,
    staging: Staging,
    report: Report,
    render: Renderer | None,
    started: dt.datetime,
    verdict: Verdict | None,
    inputs: Mapping[str, manifest.InputRecord],
    texts: DataFrame | Mapping[tuple[str, str], str] | None = None,
) -> tuple[list[Published], dict[str, str]]:
    """Stage and check every file, then, under the output's lock, record the publication, move
    the files into place and write the manifest; returns what was published, and the table and
    page by file name. Without a session, the embedded engine's report, written by this process."""
    evaluation = report.evaluation
    layout = PublicationLayout(config.output, config.eval_date)
    runid = RUNID in {measure.name for measure in config.options.measures}
    trec_eval = TrecEvalText(runid, texts) if config.trec_eval_report else None
    gate_rows = None if verdict is None else len(verdict.rows)
    datasets = report_datasets(report, trec_eval, gate_rows, per_query_written=spark is not None)
    files: dict[str, str] = {}
    page = None
    if render is not None:
        with progress.step("html report") as counts:
            unreadable = read_manifests(spark, config.output)[1]
            for label, error in sorted(unreadable.items()):
                log.warning("the page's trend leaves %s out: %s", label, error)
            shown = (layout, report.per_query, evaluation, config.options.ks, config.options.baseline)
            warnings = judged_warnings(evaluation)
            if spark is None:
                from ndcg_spark.report.data_local import gather_tables

                data = gather_tables(*shown, warnings, verdict, left_out=set(unreadable))
            else:
                data = gather(spark, *shown, warnings, verdict, left_out=set(unreadable))
            page = render(data)
            counts.update(bytes=len(page.html))
    with progress.step("publish") as counts:
        moves = stage_all(spark, staging, layout, datasets)
        if page is not None:
            moves.append(stage_page(staging, layout, page.html))
            files[layout.page.rsplit("/", 1)[1]] = page.html
            for name, text in page.assets.items():  # once per output: a page of any date loads it
                target = f"{layout.base(REPORT_DIR)}/{name}"
                if not staging.fs.exists(target):
                    moves.append(stage_file(staging, REPORT_ASSET, text, target))
                files[name] = text
        table = tables.render(evaluation, layout.label, config.report_format)
        table_path = layout.table(tables.EXTENSIONS[config.report_format])
        moves.append(stage_file(staging, REPORT_TABLE, table, table_path))
        files[table_path.rsplit("/", 1)[1]] = table
        published = [move.published for move in moves]
        reached("staged")
        record = manifest.build(
            spark,
            layout,
            inputs,
            config.recorded(),
            evaluation,
            published,
            started,
            dt.datetime.now(dt.UTC),
            verdict,
        )
        with _publishing(staging, layout, config):
            commit(staging.fs, layout, Commit(staging.root, tuple(moves), layout.manifest, record.text()))
        counts.update(outputs=", ".join(item.path for item in published))
    return published, files


def run(config: JobConfig, interactive: bool, render: Renderer | None) -> Verdict | None:
    """Evaluate, gate, then publish (see _publish) on the engine chosen (job/engine.py); returns
    the gate's verdict, if one was asked for. Staging goes whatever happens, unless a
    publication cut short by an error still needs it."""
    started = dt.datetime.now(dt.UTC)
    require_inputs(config)  # a local input that is not there: refused before a JVM starts
    chosen = choose_engine(config)
    spark = build_session(config, interactive) if chosen.engine == ENGINE_SPARK else None
    layout = PublicationLayout(config.output, config.eval_date)
    _check_output(file_system(spark, config.output), config.output)
    earlier = earlier_date(spark, config)  # a date that is not published is a usage error, found now
    staging = Staging(file_system(spark, config.output), config.output)
    try:
        _finish_interrupted(staging.fs, layout, config)  # a run died publishing here: finish that first
        if spark is None:
            report, relstrings_local = evaluate_local(config)
            _log_engine(chosen)
            published, files, verdict = _gate_and_publish(
                None, config, staging, report, render, started, earlier, relstrings_local
            )
        else:
            per_query, evaluation, texts = evaluate_paths(spark, config, staging)
            _log_engine(chosen)
            # Publishing reads the few rows per query the report read: its shuffles are sized alike.
            with session_settings(spark, evaluation.post_pass):
                report = report_of(per_query, evaluation, config.options)
                published, files, verdict = _gate_and_publish(spark, config, staging, report, render, started, earlier, texts)
    finally:
        staging.discard()
    evaluation = report.evaluation
    if verdict is not None:
        print(verdict)
    print(format_report(evaluation))
    print(f"published {', '.join(item.path for item in published)}; manifest {layout.manifest}")
    if config.mlflow_experiment is not None:
        try:
            with progress.step("mlflow") as counts:
                logged = log_to_mlflow(
                    config.mlflow_experiment, layout.label, evaluation, verdict, config.recorded(), files, config.output
                )
                counts.update(experiment=config.mlflow_experiment, run=logged)
        except MlflowLogError as error:
            if verdict is None or verdict.passed:
                raise
            # A failed gate says more to the scheduler than a tracking server down: exit 4 stands.
            log.error("%s", error)
    return verdict


def _log_engine(chosen: EngineChoice) -> None:
    """Which engine ran and why: once the inputs are through (a refusal stays one line)."""
    log.info("engine %s (%s)", chosen.engine, chosen.reason)


def evaluate_local(config: JobConfig) -> tuple[Report, Mapping[tuple[str, str], str] | None]:
    """evaluate_paths on the embedded engine: the inputs read, checked and scored in this process;
    the report as Arrow tables, and the relstrings trec_eval's text prints when it is asked for."""
    from ndcg_spark.job.no_pandas import skip_pyarrow_pandas_probe
    from ndcg_spark.local_evaluation import evaluate_checked_tables
    from ndcg_spark.scoring.embedded.relstring import relstrings as local_relstrings

    skip_pyarrow_pandas_probe()  # nothing here converts to pandas
    options = config.options
    with progress.step("main pass") as counts:
        inputs, slices = read_tables(config)
        drawn = page_measures() if config.html_report else ()
        per_query, evaluation = evaluate_checked_tables(inputs, options, slices, drawn)
        counts.update(judgment_rows=evaluation.judgment_rows, result_rows=evaluation.result_rows, pair_rows=evaluation.pair_rows)
    texts = None
    if config.trec_eval_report and RELSTRING in {measure.name for measure in options.measures}:
        texts = local_relstrings(
            inputs.judgments, inputs.results, RELSTRING_LENGTH, judged_only=options.judged_only, max_depth=options.max_depth
        )
    report = arrow_report_of(per_query, evaluation, compared=options.baseline is not None, sliced=bool(options.slices))
    return report, texts


def _gate_and_publish(
    spark: SparkSession | None,
    config: JobConfig,
    staging: Staging,
    report: Report,
    render: Renderer | None,
    started: dt.datetime,
    earlier: Earlier,
    texts: DataFrame | Mapping[tuple[str, str], str] | None,
) -> tuple[list[Published], dict[str, str], Verdict | None]:
    """The inputs' records, the gate's verdict when one is asked for, then the publication."""
    inputs = manifest.input_records(spark, _input_paths(config), report.evaluation)
    verdict = None
    if config.gate_rule is not None:
        with progress.step("gate") as counts:
            verdict = gate_verdict(spark, config, report, earlier, inputs.get(manifest.JUDGMENTS))
            if verdict is not None:
                frame = gate_table(list(verdict.rows)) if spark is None else verdict.frame(spark)
                report = dataclasses.replace(report, gate=frame)
            counts.update(gated=len(verdict.rows) if verdict else 0, passed=bool(verdict and verdict.passed))
    published, files = _publish(spark, config, staging, report, render, started, verdict, inputs, texts)
    return published, files, verdict
