"""Job configuration: TOML file, then command-line flags on top, validated before Spark starts."""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from ndcg_spark.comparison.gate import DEFAULT_ALPHA, GateRule, Threshold, gated_cutoffs, parse_alpha, parse_threshold
from ndcg_spark.comparison.rows import Cutoff, cutoffs_of
from ndcg_spark.errors import ConfigError
from ndcg_spark.option_values import boolean, choice, count
from ndcg_spark.options import WHOLE_TABLE, Options, declaration, declared, flag_of, key_of
from ndcg_spark.progress import LOG_AUTO, LOG_FORMATS, LogFormat
from ndcg_spark.publish.lock import DEFAULT_LOCK_STALE_SECONDS, DEFAULT_LOCK_TIMEOUT_SECONDS
from ndcg_spark.report.tables import TABLE_FORMATS, TABLE_MARKDOWN, TableFormat
from ndcg_spark.version import package_version

MAX_LOCK_SECONDS = 7 * 24 * 3600

Format = Literal["parquet", "trec"]
FORMAT_PARQUET: Format = "parquet"
FORMAT_TREC: Format = "trec"
FORMATS: tuple[Format, ...] = get_args(Format)

# NAME=PATH names a results input when NAME is a plain run name: a path such as
# /data/date=2026-12-01 or s3://b/x=1 is a path (prefix a relative one with ./).
_RUN_NAME = re.compile(r"[A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class GateSettings:
    """The regression gate ([gate]; docs/operations.md): off without a threshold. `against`
    names the earlier date to gate against: PREVIOUS (the latest published before this run's),
    a date, or None (the baseline run only)."""

    threshold: Threshold | None = None
    cutoffs: tuple[Cutoff, ...] = ()
    alpha: float = DEFAULT_ALPHA
    against: dt.date | Literal["previous"] | None = None

    @property
    def rule(self) -> GateRule | None:
        return None if self.threshold is None else GateRule(self.threshold, self.cutoffs, self.alpha)

    def recorded(self) -> dict[str, Any] | None:
        """As the manifest (and MLflow's params) record it: [gate]'s keys; None when off."""
        if self.threshold is None:
            return None
        return {
            "fail_on_drop": str(self.threshold),
            "measures": [cut.asked for cut in self.cutoffs],
            "alpha": self.alpha,
            "against": None if self.against is None else str(self.against),
        }


PREVIOUS: Literal["previous"] = "previous"


@dataclass(frozen=True)
class JobConfig:
    judgments: str
    results: str
    output: str
    options: Options = field(default_factory=Options)
    eval_date: dt.date | None = None
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    judgments_format: Format = FORMAT_PARQUET
    results_format: Format = FORMAT_PARQUET
    trec_eval_report: bool = False
    html_report: bool = True
    query_metadata: str | None = None
    log_format: LogFormat = LOG_AUTO
    repair: bool = False
    lock_timeout: int = DEFAULT_LOCK_TIMEOUT_SECONDS
    lock_stale_after: int = DEFAULT_LOCK_STALE_SECONDS
    named_results: tuple[tuple[str, str], ...] = ()
    report_format: TableFormat = TABLE_MARKDOWN
    gate: GateSettings = field(default_factory=GateSettings)
    mlflow_experiment: str | None = None

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


def parse_date(value: Any, name: str = "eval-date") -> dt.date:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ConfigError(f"{name} must be YYYY-MM-DD, got {value!r}") from None


def _table(doc: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = doc.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{name}] must be a table")
    return value


def _known(table: Mapping[str, Any], name: str, allowed: Sequence[str]) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ConfigError(f"unknown key(s) in [{name}]: {', '.join(unknown)}")


# The config file's tables of the job's own settings, and their keys; the options' tables and
# keys come from their declarations (ndcg_spark.options).
_JOB_KEYS = {
    "input": ("judgments", "results", "judgments_format", "results_format", "query_metadata"),
    "output": ("path", "trec_eval", "html", "report_format", "lock_timeout", "lock_stale_after"),
    "logging": ("format",),
    "gate": ("fail_on_drop", "measures", "alpha", "against"),
    "mlflow": ("experiment",),
    "spark": (),  # any Spark setting: read as it is
}
# A job setting whose config key is not its name.
_JOB_RENAMED = {
    ("output", "path"): "output",
    ("output", "trec_eval"): "trec_eval_report",
    ("output", "html"): "html_report",
    ("logging", "format"): "log_format",
    ("gate", "measures"): "gate_measures",
    ("mlflow", "experiment"): "mlflow_experiment",
}


def _option_keys(kind: type[Options]) -> dict[str, dict[str, str]]:
    """{table: {key: option name}} of the declared options (key WHOLE_TABLE: the whole table)."""
    tables: dict[str, dict[str, str]] = {}
    for item in declared(kind):
        tables.setdefault(declaration(item).section, {})[key_of(item)] = item.name
    return tables


def settings_from_toml(doc: Mapping[str, Any], kind: type[Options] = Options) -> dict[str, Any]:
    """Flatten the TOML tables into build_config's settings (unvalidated)."""
    options = _option_keys(kind)
    _known(doc, "top level", [*_JOB_KEYS, *options])
    settings: dict[str, Any] = {}
    for name in doc:
        table = _table(doc, name)
        if name == "spark":
            settings["spark_conf"] = {str(key): str(value) for key, value in table.items()}
        elif name in _JOB_KEYS:
            _known(table, name, _JOB_KEYS[name])
            settings.update({_JOB_RENAMED.get((name, key), key): value for key, value in table.items()})
        elif WHOLE_TABLE in options[name]:
            settings[options[name][WHOLE_TABLE]] = dict(table)
        else:
            _known(table, name, list(options[name]))
            settings.update({options[name][key]: value for key, value in table.items()})
    return settings


def load_toml(path: str, kind: type[Options] = Options) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return settings_from_toml(tomllib.load(handle), kind)
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config {path} is not valid TOML: {error}") from None


def build_config(settings: Mapping[str, Any], kind: type[Options] = Options) -> JobConfig:
    """Validate merged settings into a JobConfig; every problem is a ConfigError."""
    repair = boolean("repair", settings.get("repair", False))
    for required in ("output",) if repair else ("judgments", "results", "output"):
        value = settings.get(required)
        if not value or (required != "results" and not isinstance(value, str)):
            raise ConfigError(f"{required} path is required (flag --{required} or the config file)")
    results, named_results = parse_results(settings["results"]) if settings.get("results") else ("", ())
    options = kind.of({item.name: settings[item.name] for item in declared(kind) if item.name in settings})
    config = JobConfig(
        judgments=settings.get("judgments") or "",
        results=results,
        named_results=named_results,
        output=settings["output"],
        options=options,
        spark_conf=dict(settings.get("spark_conf", {})),
        judgments_format=choice("judgments-format", settings.get("judgments_format", FORMAT_PARQUET), FORMATS),
        results_format=choice("results-format", settings.get("results_format", FORMAT_PARQUET), FORMATS),
        trec_eval_report=boolean("trec_eval", settings.get("trec_eval_report", False)),
        html_report=boolean("html", settings.get("html_report", True)),
        report_format=choice("report-format", settings.get("report_format", TABLE_MARKDOWN), TABLE_FORMATS),
        query_metadata=settings.get("query_metadata") or None,
        repair=repair,
        lock_timeout=count("lock_timeout", settings.get("lock_timeout", DEFAULT_LOCK_TIMEOUT_SECONDS), 0, MAX_LOCK_SECONDS),
        lock_stale_after=count(
            "lock_stale_after", settings.get("lock_stale_after", DEFAULT_LOCK_STALE_SECONDS), 1, MAX_LOCK_SECONDS
        ),
        log_format=choice("log-format", settings.get("log_format", LOG_AUTO), LOG_FORMATS),
    )
    if config.query_metadata is not None and not options.slices:
        raise ConfigError("query_metadata is given but no slice columns: set [slices] columns or --slices")
    if options.slices and config.query_metadata is None and len(config.named_results) > 1:
        raise ConfigError("slices of several results inputs need --query-metadata")
    if settings.get("eval_date") is not None:
        config = replace(config, eval_date=parse_date(settings["eval_date"]))
    experiment = settings.get("mlflow_experiment")
    if experiment is not None and (not isinstance(experiment, str) or not experiment.strip()):
        raise ConfigError(
            f"mlflow experiment must be a name, got {experiment!r} (flag --mlflow-experiment, or [mlflow] experiment)"
        )
    return replace(config, gate=_gate(settings, config), mlflow_experiment=experiment or None)


def _gate(settings: Mapping[str, Any], config: JobConfig) -> GateSettings:
    """[gate] and its flags, checked against the rest of the configuration."""
    against = _against(settings)
    given = [
        name for name, value in (("--gate-measure", settings.get("gate_measures")), ("--alpha", settings.get("alpha"))) if value
    ]
    if against is not None:
        given.insert(0, "--against-previous" if against == PREVIOUS else "--against-date")
    if settings.get("fail_on_drop") is None:
        if given:
            raise ConfigError(
                f"{given[0]} gates nothing without a threshold: add --fail-on-drop (config file: [gate] fail_on_drop)"
            )
        return GateSettings()
    options = config.options
    threshold = parse_threshold(settings["fail_on_drop"], "--fail-on-drop")
    if against is None and options.baseline is None:
        raise ConfigError("--fail-on-drop needs a reference: --against-previous, --against-date YYYY-MM-DD or --baseline RUN")
    if against is not None and config.eval_date is None:
        raise ConfigError("--against-previous and --against-date compare eval dates: give this run one with --eval-date")
    if isinstance(against, dt.date) and config.eval_date is not None and against >= config.eval_date:
        raise ConfigError(f"--against-date {against} must be before this run's --eval-date {config.eval_date}")
    entries = settings.get("gate_measures") or ()
    entries = [entries] if isinstance(entries, str) else list(entries)
    reported = cutoffs_of(options.ks, options.uncut, options.measures)
    cutoffs = gated_cutoffs([part for entry in entries for part in _entries(entry)], reported, "--gate-measure")
    alpha = parse_alpha(settings["alpha"], "--alpha") if settings.get("alpha") is not None else DEFAULT_ALPHA
    return GateSettings(threshold, cutoffs, alpha, against)


def _entries(entry: Any) -> list[str]:
    """One --gate-measure: trec_eval's NAME.K,K syntax stays whole; several names, comma-separated."""
    text = str(entry).strip()
    return [text] if "." in text else [part.strip() for part in text.split(",") if part.strip()]


def _against(settings: Mapping[str, Any]) -> dt.date | Literal["previous"] | None:
    """--against-previous, --against-date DATE, or [gate] against = "previous" | "YYYY-MM-DD"."""
    previous = boolean("against_previous", settings.get("against_previous", False))
    named = settings.get("against_date")
    configured = settings.get("against")
    if previous and named is not None:
        raise ConfigError("give --against-previous or --against-date, not both")
    if previous:
        return PREVIOUS
    if named is not None:
        return parse_date(named, "--against-date")
    if configured is None:
        return None
    return PREVIOUS if configured == PREVIOUS else parse_date(configured, '[gate] against ("previous" or YYYY-MM-DD)')


def argument_parser(kind: type[Options] = Options) -> argparse.ArgumentParser:
    """The job's flags, then one per option (from its declaration); every value defaults to None,
    so that a flag not given leaves the config file's value."""
    parser = argparse.ArgumentParser(
        prog="ndcg-spark",
        description="NDCG@k and trec_eval's measures (--measure) per query and per run, from Parquet or trec_eval"
        " text judgments and results; the reports are published to --output as Parquet.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    job = parser.add_argument_group("inputs, outputs and the run")
    job.add_argument(
        "--judgments",
        help="judgments: Parquet (query_id, doc_id, relevance), or with --judgments-format trec a qrels text (plain or .gz)",
    )
    job.add_argument(
        "--results",
        action="append",
        help="results: Parquet (query_id, doc_id, score[, run_id][, rank]), or with --results-format trec a run text"
        " (plain or .gz); NAME=PATH, repeated, for one input per run",
    )
    job.add_argument("--output", help="output folder; per_query/ and summary/ are written in it")
    job.add_argument("--config", help="TOML config file; flags override it")
    job.add_argument("--eval-date", help="YYYY-MM-DD: partition the outputs; a rerun replaces that date")
    job.add_argument("--judgments-format", choices=FORMATS, help="parquet (default) or trec qrels text")
    job.add_argument("--results-format", choices=FORMATS, help="parquet (default) or trec run text")
    job.add_argument("--query-metadata", help="Parquet with query_id and the slice columns")
    job.add_argument(
        "--trec-eval-report",
        action="store_const",
        const=True,
        help="also write trec_eval -q style text per run (DIR/trec_eval/run_id=RUN/part-00000-*.txt)",
    )
    job.add_argument("--no-html-report", dest="html_report", action="store_const", const=False, help="skip DIR/report/*.html")
    job.add_argument(
        "--report-format",
        choices=TABLE_FORMATS,
        help="the table written beside the HTML page: DIR/report/DATE.md (default) or .tex",
    )
    job.add_argument("--log-format", choices=LOG_FORMATS, help="auto: text on a terminal, else JSON lines")
    job.add_argument(
        "--repair",
        action="store_const",
        const=True,
        help="finish a publication a killed run left half done on --output, evaluate nothing",
    )
    job.add_argument(
        "--lock-timeout", help=f"seconds to wait for another run publishing the output (default {DEFAULT_LOCK_TIMEOUT_SECONDS})"
    )
    gate = parser.add_argument_group("the regression gate (docs/operations.md#the-regression-gate)")
    gate.add_argument(
        "--fail-on-drop",
        help="exit 4 when a run's mean falls by more than this (0.01, or 2%% of the reference's) and the fall is"
        " significant; the report is published either way",
    )
    gate.add_argument(
        "--against-previous",
        action="store_const",
        const=True,
        help="gate each run against itself on the latest eval date published before this one",
    )
    gate.add_argument("--against-date", help="YYYY-MM-DD: gate each run against itself on that published date")
    gate.add_argument(
        "--gate-measure",
        dest="gate_measures",
        action="append",
        help="a measure to gate, as --measure names it (default: every cutoff of NDCG); repeatable",
    )
    gate.add_argument("--alpha", help=f"the significance level of the gate's Holm-corrected p (default {DEFAULT_ALPHA})")
    job.add_argument(
        "--mlflow-experiment",
        help="log each run's summary, the gate's verdict, the config and the report to this MLflow experiment"
        " (MLFLOW_TRACKING_URI; pip install 'ndcg-spark[mlflow]')",
    )
    job.add_argument(
        "--lock-stale-after",
        help=f"seconds after which a publication lock is taken over (default {DEFAULT_LOCK_STALE_SECONDS})",
    )
    scoring = parser.add_argument_group("evaluation options (docs/options.md)")
    for item in declared(kind):
        spec = declaration(item)
        text = spec.help.replace("%", "%%")  # argparse formats help with %
        if spec.switch:
            scoring.add_argument(flag_of(item), dest=item.name, action=argparse.BooleanOptionalAction, help=text)
        else:
            metavar = None if spec.choices else flag_of(item)[2:].upper().replace("-", "_")
            action = "append" if spec.repeat else "store"
            scoring.add_argument(
                flag_of(item), dest=item.name, choices=spec.choices or None, metavar=metavar, action=action, help=text
            )
    return parser


# The job's own flags (argparse's names), each the build_config setting of the same name.
_JOB_FLAGS = (
    "judgments",
    "results",
    "output",
    "eval_date",
    "judgments_format",
    "results_format",
    "query_metadata",
    "trec_eval_report",
    "html_report",
    "report_format",
    "log_format",
    "repair",
    "lock_timeout",
    "lock_stale_after",
    "fail_on_drop",
    "against_previous",
    "against_date",
    "gate_measures",
    "alpha",
    "mlflow_experiment",
)


def parse_args(argv: Sequence[str], kind: type[Options] = Options) -> JobConfig:
    """Arguments -> validated JobConfig. argparse usage errors exit 2 by themselves; no argument at
    all is one too, with the usage and where to read more."""
    parser = argument_parser(kind)
    if not argv:
        parser.print_usage(sys.stderr)
        parser.exit(2, f"{parser.prog}: give --judgments, --results and --output (or --config); --help lists every flag\n")
    args = parser.parse_args(list(argv))
    settings = load_toml(args.config, kind) if args.config else {}
    given = {name: getattr(args, name) for name in (*_JOB_FLAGS, *(item.name for item in declared(kind)))}
    settings.update({key: value for key, value in given.items() if value is not None})
    return build_config(settings, kind)
