"""Job configuration: TOML file, then command-line flags on top, validated before Spark starts."""

from __future__ import annotations

import argparse
import datetime as dt
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, get_args

from ndcg_spark.errors import ConfigError
from ndcg_spark.options import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_KS,
    DEFAULT_PERMUTATIONS,
    DEFAULT_RUN_ID,
    DEFAULT_SEED,
    DUPLICATE_JUDGMENT_POLICIES,
    DUPLICATE_RESULT_POLICIES,
    GAIN_LINEAR,
    GAINS,
    ON_DUPLICATE_ERROR,
    ORDER_BY_SCORE,
    ColumnNames,
    DuplicateJudgments,
    DuplicateResults,
    Gain,
    GainTable,
    Options,
    OrderBy,
    choice,
    count,
    flag,
)
from ndcg_spark.progress import LOG_AUTO, LOG_FORMATS, LogFormat
from ndcg_spark.publish.lock import DEFAULT_LOCK_STALE_SECONDS, DEFAULT_LOCK_TIMEOUT_SECONDS
from ndcg_spark.report.tables import TABLE_FORMATS, TABLE_MARKDOWN, TableFormat

MAX_LOCK_SECONDS = 7 * 24 * 3600

Format = Literal["parquet", "trec"]
FORMAT_PARQUET: Format = "parquet"
FORMAT_TREC: Format = "trec"
FORMATS: tuple[Format, ...] = get_args(Format)

# NAME=PATH names a results input when NAME is a plain run name: a path such as
# /data/date=2026-12-01 or s3://b/x=1 is a path (prefix a relative one with ./).
_RUN_NAME = re.compile(r"[A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class JobConfig:
    judgments: str
    results: str
    output: str
    ks: tuple[int, ...] = DEFAULT_KS
    gain: Gain = GAIN_LINEAR
    complete: bool = False
    run_id: str = DEFAULT_RUN_ID
    eval_date: dt.date | None = None
    order_by: OrderBy = ORDER_BY_SCORE
    uncut: bool = True
    duplicate_results: DuplicateResults = ON_DUPLICATE_ERROR
    duplicate_judgments: DuplicateJudgments = ON_DUPLICATE_ERROR
    columns: ColumnNames = field(default_factory=ColumnNames)
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    judgments_format: Format = FORMAT_PARQUET
    results_format: Format = FORMAT_PARQUET
    trec_eval_report: bool = False
    html_report: bool = True
    baseline: str | None = None
    permutations: int = DEFAULT_PERMUTATIONS
    bootstrap: int = DEFAULT_BOOTSTRAP
    seed: int = DEFAULT_SEED
    slices: tuple[str, ...] = ()
    query_metadata: str | None = None
    log_format: LogFormat = LOG_AUTO
    repair: bool = False
    lock_timeout: int = DEFAULT_LOCK_TIMEOUT_SECONDS
    lock_stale_after: int = DEFAULT_LOCK_STALE_SECONDS
    judged_only: bool = False
    max_depth: int | None = None
    gains: GainTable = ()
    named_results: tuple[tuple[str, str], ...] = ()
    report_format: TableFormat = TABLE_MARKDOWN

    def options(self) -> Options:
        """The evaluation's choices, as the library takes them."""
        return Options(**{item.name: getattr(self, item.name) for item in fields(Options)})

    @property
    def result_paths(self) -> list[tuple[str | None, str]]:
        """(name, path) of each results input; the name is None for a single unnamed one."""
        if self.named_results:
            return [(name, path) for name, path in self.named_results]
        return [(None, self.results)]


def parse_results(value: Any) -> tuple[str, tuple[tuple[str, str], ...]]:
    """--results given once as PATH, or as NAME=PATH once or more; [input] results as a path or
    a table of name = path. Returns (the unnamed path or "", the named inputs)."""
    if isinstance(value, str):
        value = [value]
    items: list[tuple[str | None, Any]]
    if isinstance(value, Mapping):
        items = [(str(name), path) for name, path in value.items()]
    elif isinstance(value, (list, tuple)) and value:
        items = [_named(item) for item in value]
    else:
        raise ConfigError(f"results must be a path, NAME=PATH, or a table of name = path, got {value!r}")
    for name, path in items:
        if not isinstance(path, str) or not path:
            raise ConfigError(f"results {'' if name is None else f'{name} '}must be a non-empty path, got {path!r}")
    if len(items) == 1 and items[0][0] is None:
        return items[0][1], ()
    named: dict[str, str] = {}
    for name, path in items:
        if name is None:
            raise ConfigError(f"results {path!r}: with several results inputs each is NAME=PATH")
        if not _RUN_NAME.fullmatch(name):
            raise ConfigError(f"results name {name!r} must be letters, digits, '_', '.' or '-'")
        if name in named:
            raise ConfigError(f"results name {name!r} is given twice; each input needs its own name")
        named[name] = path
    return "", tuple(named.items())


def _named(item: Any) -> tuple[str | None, Any]:
    text = str(item)
    name, sep, path = text.partition("=")
    return (name, path) if sep and _RUN_NAME.fullmatch(name) else (None, text)


def parse_date(value: Any) -> dt.date:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ConfigError(f"eval-date must be YYYY-MM-DD, got {value!r}") from None


def _table(doc: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = doc.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{name}] must be a table")
    return value


def _known(table: Mapping[str, Any], name: str, allowed: Sequence[str]) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ConfigError(f"unknown key(s) in [{name}]: {', '.join(unknown)}")


_SECTIONS = ("input", "output", "evaluation", "validation", "columns", "spark", "comparison", "slices", "logging")


def settings_from_toml(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Flatten the TOML tables into JobConfig keyword arguments (unvalidated)."""
    _known(doc, "top level", _SECTIONS)
    inputs, output = _table(doc, "input"), _table(doc, "output")
    evaluation, validation = _table(doc, "evaluation"), _table(doc, "validation")
    column_table, spark = _table(doc, "columns"), _table(doc, "spark")
    comparison, slices, logs = _table(doc, "comparison"), _table(doc, "slices"), _table(doc, "logging")
    _known(inputs, "input", ("judgments", "results", "judgments_format", "results_format", "query_metadata"))
    _known(output, "output", ("path", "trec_eval", "html", "report_format", "lock_timeout", "lock_stale_after"))
    _known(comparison, "comparison", ("baseline", "permutations", "bootstrap", "seed"))
    _known(slices, "slices", ("columns",))
    _known(logs, "logging", ("format",))
    _known(
        evaluation,
        "evaluation",
        ("k", "gain", "complete", "run_id", "order_by", "uncut", "judged_only", "max_depth", "gains"),
    )
    _known(validation, "validation", ("duplicate_results", "duplicate_judgments"))
    _known(column_table, "columns", [f.name for f in fields(ColumnNames)])
    settings: dict[str, Any] = dict(inputs)
    if "path" in output:
        settings["output"] = output["path"]
    if "trec_eval" in output:
        settings["trec_eval_report"] = output["trec_eval"]
    if "html" in output:
        settings["html_report"] = output["html"]
    settings.update({key: output[key] for key in ("report_format", "lock_timeout", "lock_stale_after") if key in output})
    settings.update(comparison)
    if "columns" in slices:
        settings["slices"] = slices["columns"]
    if "format" in logs:
        settings["log_format"] = logs["format"]
    settings.update({("ks" if key == "k" else key): value for key, value in evaluation.items()})
    settings.update(validation)
    for key, value in column_table.items():
        if not isinstance(value, str) or not value:
            raise ConfigError(f"[columns] {key} must be a non-empty string, got {value!r}")
    settings["columns"] = ColumnNames(**column_table)
    settings["spark_conf"] = {str(key): str(value) for key, value in spark.items()}
    return settings


def load_toml(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return settings_from_toml(tomllib.load(handle))
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config {path} is not valid TOML: {error}") from None


def build_config(settings: Mapping[str, Any]) -> JobConfig:
    """Validate merged settings into a JobConfig; every problem is a ConfigError."""
    repair = flag("repair", settings.get("repair", False))
    for required in ("output",) if repair else ("judgments", "results", "output"):
        value = settings.get(required)
        if not value or (required != "results" and not isinstance(value, str)):
            raise ConfigError(f"{required} path is required (flag --{required} or the config file)")
    results, named_results = parse_results(settings["results"]) if settings.get("results") else ("", ())
    options = Options(
        ks=settings.get("ks", DEFAULT_KS),
        gain=settings.get("gain", GAIN_LINEAR),
        complete=settings.get("complete", False),
        uncut=settings.get("uncut", True),
        order_by=settings.get("order_by", ORDER_BY_SCORE),
        run_id=settings.get("run_id", DEFAULT_RUN_ID),
        duplicate_results=settings.get("duplicate_results", ON_DUPLICATE_ERROR),
        duplicate_judgments=settings.get("duplicate_judgments", ON_DUPLICATE_ERROR),
        columns=settings.get("columns", ColumnNames()),
        baseline=settings.get("baseline"),
        permutations=settings.get("permutations", DEFAULT_PERMUTATIONS),
        bootstrap=settings.get("bootstrap", DEFAULT_BOOTSTRAP),
        seed=settings.get("seed", DEFAULT_SEED),
        slices=settings.get("slices", ()),
        judged_only=settings.get("judged_only", False),
        max_depth=settings.get("max_depth"),
        gains=settings.get("gains", ()),
    ).validated()
    config = JobConfig(
        judgments=settings.get("judgments") or "",
        results=results,
        named_results=named_results,
        output=settings["output"],
        **{item.name: getattr(options, item.name) for item in fields(Options)},
        spark_conf=dict(settings.get("spark_conf", {})),
        judgments_format=choice("judgments-format", settings.get("judgments_format", FORMAT_PARQUET), FORMATS),
        results_format=choice("results-format", settings.get("results_format", FORMAT_PARQUET), FORMATS),
        trec_eval_report=flag("trec_eval", settings.get("trec_eval_report", False)),
        html_report=flag("html", settings.get("html_report", True)),
        report_format=choice("report-format", settings.get("report_format", TABLE_MARKDOWN), TABLE_FORMATS),
        query_metadata=settings.get("query_metadata") or None,
        repair=repair,
        lock_timeout=count("lock_timeout", settings.get("lock_timeout", DEFAULT_LOCK_TIMEOUT_SECONDS), 0, MAX_LOCK_SECONDS),
        lock_stale_after=count(
            "lock_stale_after", settings.get("lock_stale_after", DEFAULT_LOCK_STALE_SECONDS), 1, MAX_LOCK_SECONDS
        ),
        log_format=choice("log-format", settings.get("log_format", LOG_AUTO), LOG_FORMATS),
    )
    if config.query_metadata is not None and not config.slices:
        raise ConfigError("query_metadata is given but no slice columns: set [slices] columns or --slices")
    if config.slices and config.query_metadata is None and len(config.named_results) > 1:
        raise ConfigError("slices of several results inputs need --query-metadata")
    if settings.get("eval_date") is not None:
        config = replace(config, eval_date=parse_date(settings["eval_date"]))
    return config


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ndcg-spark",
        description="Compute NDCG@k per query and per run from Parquet judgments and results.",
    )
    parser.add_argument(
        "--judgments",
        help="judgments: Parquet (query_id, doc_id, relevance), or with --judgments-format trec a qrels text (plain or .gz)",
    )
    parser.add_argument(
        "--results",
        action="append",
        help="results: Parquet (query_id, doc_id, score[, run_id][, rank]), or with --results-format trec a run text"
        " (plain or .gz); NAME=PATH, repeated, for one input per run",
    )
    parser.add_argument("--output", help="output folder; per_query/ and summary/ are written in it")
    parser.add_argument("--k", dest="ks", help="cutoffs, comma-separated (default 5,10,20)")
    parser.add_argument("--gain", choices=GAINS, help="linear (trec_eval) or exponential 2^rel-1")
    parser.add_argument("--gains", help="a gain per grade, e.g. 0=0,1=1,2=3,3=7; other grades keep --gain's")
    parser.add_argument(
        "--judged-only",
        action="store_const",
        const=True,
        help="drop unjudged documents (and those graded < 0) before ranking (trec_eval -J)",
    )
    parser.add_argument("--max-depth", help="cut every ranked list after N documents (trec_eval -M)")
    parser.add_argument(
        "--complete",
        action="store_const",
        const=True,
        help="every judged query counts; a run lacking it scores 0 (trec_eval -c)",
    )
    parser.add_argument("--run-id", help="name of the run when results have no run_id column")
    parser.add_argument(
        "--duplicate-judgments",
        choices=DUPLICATE_JUDGMENT_POLICIES,
        help="error (trec_eval, default) or keep_max: keep the highest grade of a (query, doc) judged more than once",
    )
    parser.add_argument(
        "--duplicate-results",
        choices=DUPLICATE_RESULT_POLICIES,
        help="error (trec_eval, default) or keep_best: keep the best-ranked copy of a document retrieved twice",
    )
    parser.add_argument("--config", help="TOML config file; flags override it")
    parser.add_argument("--eval-date", help="YYYY-MM-DD: partition the outputs; a rerun replaces that date")
    parser.add_argument("--judgments-format", choices=FORMATS, help="parquet (default) or trec qrels text")
    parser.add_argument("--results-format", choices=FORMATS, help="parquet (default) or trec run text")
    parser.add_argument("--baseline", help="run_id to compare every other run against")
    parser.add_argument("--permutations", help=f"randomization test draws (default {DEFAULT_PERMUTATIONS})")
    parser.add_argument("--bootstrap", help=f"bootstrap resamples (default {DEFAULT_BOOTSTRAP})")
    parser.add_argument("--seed", help=f"seed of both resampling tests (default {DEFAULT_SEED})")
    parser.add_argument("--slices", help="query columns to summarize by, comma-separated")
    parser.add_argument("--query-metadata", help="Parquet with query_id and the slice columns")
    parser.add_argument(
        "--trec-eval-report",
        action="store_const",
        const=True,
        help="also write trec_eval -q style text per run (DIR/trec_eval/run_id=RUN/part-00000.txt)",
    )
    parser.add_argument("--no-html-report", dest="html_report", action="store_const", const=False, help="skip DIR/report/*.html")
    parser.add_argument(
        "--report-format",
        choices=TABLE_FORMATS,
        help="the table written beside the HTML page: DIR/report/DATE.md (default) or .tex",
    )
    parser.add_argument("--log-format", choices=LOG_FORMATS, help="auto: text on a terminal, else JSON lines")
    parser.add_argument(
        "--repair",
        action="store_const",
        const=True,
        help="finish a publication a killed run left half done on --output, evaluate nothing",
    )
    parser.add_argument(
        "--lock-timeout", help=f"seconds to wait for another run publishing the output (default {DEFAULT_LOCK_TIMEOUT_SECONDS})"
    )
    parser.add_argument(
        "--lock-stale-after",
        help=f"seconds after which a publication lock is taken over (default {DEFAULT_LOCK_STALE_SECONDS})",
    )
    return parser


def parse_args(argv: Sequence[str]) -> JobConfig:
    """Arguments -> validated JobConfig. argparse usage errors exit 2 by themselves."""
    args = argument_parser().parse_args(list(argv))
    settings = load_toml(args.config) if args.config else {}
    overrides = {
        "judgments": args.judgments,
        "results": args.results,
        "output": args.output,
        "ks": args.ks,
        "gain": args.gain,
        "complete": args.complete,
        "run_id": args.run_id,
        "duplicate_judgments": args.duplicate_judgments,
        "duplicate_results": args.duplicate_results,
        "eval_date": args.eval_date,
        "judgments_format": args.judgments_format,
        "results_format": args.results_format,
        "baseline": args.baseline,
        "permutations": args.permutations,
        "bootstrap": args.bootstrap,
        "seed": args.seed,
        "slices": args.slices,
        "query_metadata": args.query_metadata,
        "trec_eval_report": args.trec_eval_report,
        "html_report": args.html_report,
        "log_format": args.log_format,
        "repair": args.repair,
        "lock_timeout": args.lock_timeout,
        "lock_stale_after": args.lock_stale_after,
        "gains": args.gains,
        "judged_only": args.judged_only,
        "max_depth": args.max_depth,
        "report_format": args.report_format,
    }
    settings.update({key: value for key, value in overrides.items() if value is not None})
    return build_config(settings)
