"""Job configuration: TOML file, then command-line flags on top, validated before Spark starts."""

from __future__ import annotations

import argparse
import datetime as dt
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ndcg_spark import columns as c
from ndcg_spark.errors import ConfigError

GAIN_LINEAR = "linear"
GAIN_EXPONENTIAL = "exponential"
GAINS = (GAIN_LINEAR, GAIN_EXPONENTIAL)

ORDER_BY_SCORE = "score"
ORDER_BY_RANK = "rank"
ORDERS = (ORDER_BY_SCORE, ORDER_BY_RANK)

ON_DUPLICATE_ERROR = "error"
ON_DUPLICATE_RESULT_KEEP_BEST = "keep_best"
ON_DUPLICATE_JUDGMENT_KEEP_MAX = "keep_max"
DUPLICATE_RESULT_POLICIES = (ON_DUPLICATE_ERROR, ON_DUPLICATE_RESULT_KEEP_BEST)
DUPLICATE_JUDGMENT_POLICIES = (ON_DUPLICATE_ERROR, ON_DUPLICATE_JUDGMENT_KEEP_MAX)

FORMAT_PARQUET = "parquet"
FORMAT_TREC = "trec"
FORMATS = (FORMAT_PARQUET, FORMAT_TREC)

LOG_AUTO = "auto"
LOG_TEXT = "text"
LOG_JSON = "json"
LOG_FORMATS = (LOG_AUTO, LOG_TEXT, LOG_JSON)

DEFAULT_KS = (5, 10, 20)
DEFAULT_RUN_ID = "run"
# Enough for p-values and interval ends to about +-0.01 (binomial error at 1000 draws); each
# costs one row per query and compared run and cutoff.
DEFAULT_PERMUTATIONS = 1000
DEFAULT_BOOTSTRAP = 1000
DEFAULT_SEED = 42
MAX_RESAMPLES = 1_000_000


@dataclass(frozen=True)
class ColumnNames:
    """Names of the input columns; each is renamed to the canonical name of the same field."""

    query_id: str = c.QUERY_ID
    doc_id: str = c.DOC_ID
    relevance: str = c.RELEVANCE
    score: str = c.SCORE
    run_id: str = c.RUN_ID
    rank: str = c.RANK


@dataclass(frozen=True)
class JobConfig:
    judgments: str
    results: str
    output: str
    ks: tuple[int, ...] = DEFAULT_KS
    gain: str = GAIN_LINEAR
    complete: bool = False
    run_id: str = DEFAULT_RUN_ID
    eval_date: dt.date | None = None
    order_by: str = ORDER_BY_SCORE
    uncut: bool = True
    duplicate_results: str = ON_DUPLICATE_ERROR
    duplicate_judgments: str = ON_DUPLICATE_ERROR
    columns: ColumnNames = field(default_factory=ColumnNames)
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    judgments_format: str = FORMAT_PARQUET
    results_format: str = FORMAT_PARQUET
    trec_eval_report: bool = False
    html_report: bool = True
    baseline: str | None = None
    permutations: int = DEFAULT_PERMUTATIONS
    bootstrap: int = DEFAULT_BOOTSTRAP
    seed: int = DEFAULT_SEED
    slices: tuple[str, ...] = ()
    query_metadata: str | None = None
    log_format: str = LOG_AUTO

    @property
    def max_k(self) -> int:
        return max(self.ks)


def parse_ks(value: Any) -> tuple[int, ...]:
    """Cutoffs from '5,10,20' or a TOML list; sorted, unique, each a positive integer."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise ConfigError(f"k must be a list of positive integers, got {value!r}")
    ks = []
    for item in items:
        text = str(item).strip()
        if isinstance(item, bool) or not text.lstrip("+").isdigit() or int(text) <= 0:
            raise ConfigError(f"k must be positive integers, got {item!r} in {value!r}")
        ks.append(int(text))
    return tuple(sorted(set(ks)))


def parse_date(value: Any) -> dt.date:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ConfigError(f"eval-date must be YYYY-MM-DD, got {value!r}") from None


def _choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return str(value)


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {value!r}")
    return value


def _count(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not str(value).strip().lstrip("+").isdigit():
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    number = int(str(value).strip())
    if not low <= number <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return number


def parse_names(name: str, value: Any) -> tuple[str, ...]:
    """Column names from 'a,b' or a TOML list; order kept, duplicates refused."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise ConfigError(f"{name} must be a list of column names, got {value!r}")
    names = tuple(str(item).strip() for item in items)
    if any(not item for item in names) or len(set(names)) != len(names):
        raise ConfigError(f"{name} must be distinct non-empty column names, got {value!r}")
    return names


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
    _known(output, "output", ("path", "trec_eval", "html"))
    _known(comparison, "comparison", ("baseline", "permutations", "bootstrap", "seed"))
    _known(slices, "slices", ("columns",))
    _known(logs, "logging", ("format",))
    _known(evaluation, "evaluation", ("k", "gain", "complete", "run_id", "order_by", "uncut"))
    _known(validation, "validation", ("duplicate_results", "duplicate_judgments"))
    _known(column_table, "columns", [f.name for f in fields(ColumnNames)])
    settings: dict[str, Any] = dict(inputs)
    if "path" in output:
        settings["output"] = output["path"]
    if "trec_eval" in output:
        settings["trec_eval_report"] = output["trec_eval"]
    if "html" in output:
        settings["html_report"] = output["html"]
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
    for required in ("judgments", "results", "output"):
        value = settings.get(required)
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{required} path is required (flag --{required} or the config file)")
    config = JobConfig(
        judgments=settings["judgments"],
        results=settings["results"],
        output=settings["output"],
        ks=parse_ks(settings.get("ks", DEFAULT_KS)),
        gain=_choice("gain", settings.get("gain", GAIN_LINEAR), GAINS),
        complete=_flag("complete", settings.get("complete", False)),
        run_id=str(settings.get("run_id", DEFAULT_RUN_ID)),
        order_by=_choice("order_by", settings.get("order_by", ORDER_BY_SCORE), ORDERS),
        uncut=_flag("uncut", settings.get("uncut", True)),
        duplicate_results=_choice(
            "duplicate_results",
            settings.get("duplicate_results", ON_DUPLICATE_ERROR),
            DUPLICATE_RESULT_POLICIES,
        ),
        duplicate_judgments=_choice(
            "duplicate_judgments",
            settings.get("duplicate_judgments", ON_DUPLICATE_ERROR),
            DUPLICATE_JUDGMENT_POLICIES,
        ),
        columns=settings.get("columns", ColumnNames()),
        spark_conf=dict(settings.get("spark_conf", {})),
        judgments_format=_choice("judgments-format", settings.get("judgments_format", FORMAT_PARQUET), FORMATS),
        results_format=_choice("results-format", settings.get("results_format", FORMAT_PARQUET), FORMATS),
        trec_eval_report=_flag("trec_eval", settings.get("trec_eval_report", False)),
        html_report=_flag("html", settings.get("html_report", True)),
        baseline=None if settings.get("baseline") is None else str(settings["baseline"]),
        permutations=_count("permutations", settings.get("permutations", DEFAULT_PERMUTATIONS), 1, MAX_RESAMPLES),
        bootstrap=_count("bootstrap", settings.get("bootstrap", DEFAULT_BOOTSTRAP), 1, MAX_RESAMPLES),
        seed=_count("seed", settings.get("seed", DEFAULT_SEED), 0, 2**31 - 1),
        slices=parse_names("slices", settings.get("slices", ())),
        query_metadata=settings.get("query_metadata") or None,
        log_format=_choice("log-format", settings.get("log_format", LOG_AUTO), LOG_FORMATS),
    )
    if not config.run_id:
        raise ConfigError("run-id must not be empty")
    if config.baseline == "":
        raise ConfigError("baseline must name a run, got an empty string")
    if config.query_metadata is not None and not config.slices:
        raise ConfigError("query_metadata is given but no slice columns: set [slices] columns or --slices")
    if settings.get("eval_date") is not None:
        config = replace(config, eval_date=parse_date(settings["eval_date"]))
    return config


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evaluate_ndcg",
        description="Compute NDCG@k per query and per run from Parquet judgments and results.",
    )
    parser.add_argument("--judgments", help="Parquet judgments: query_id, doc_id, relevance")
    parser.add_argument("--results", help="Parquet results: query_id, doc_id, score[, run_id][, rank]")
    parser.add_argument("--output", help="output folder; per_query/ and summary/ are written in it")
    parser.add_argument("--k", dest="ks", help="cutoffs, comma-separated (default 5,10,20)")
    parser.add_argument("--gain", choices=GAINS, help="linear (trec_eval) or exponential 2^rel-1")
    parser.add_argument(
        "--complete",
        action="store_const",
        const=True,
        help="every judged query counts; a run lacking it scores 0 (trec_eval -c)",
    )
    parser.add_argument("--run-id", help="name of the run when results have no run_id column")
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
        help="also write trec_eval -q style text per run (DIR/trec_eval/RUN/)",
    )
    parser.add_argument(
        "--no-html-report", dest="html_report", action="store_const", const=False, help="skip DIR/report/*.html"
    )
    parser.add_argument("--log-format", choices=LOG_FORMATS, help="auto: text on a terminal, else JSON lines")
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
    }
    settings.update({key: value for key, value in overrides.items() if value is not None})
    return build_config(settings)
