"""The job's own settings, each declared once as the options are (declarations.py): its type and
default, its check, its flag, its config file key, its --help group and its record in the
manifest. JobConfig holds them beside the evaluation options and the gate's settings; the config
file (config_file.py) and the command line (command_line.py) are derived from all three."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from ndcg_spark.comparison.rows import cutoffs_of
from ndcg_spark.declarations import NO_FLAG, NO_KEY, WHOLE_TABLE, Alias, build, recorded, setting
from ndcg_spark.errors import ConfigError
from ndcg_spark.gate.rule import GATE, GateRule, GateSettings
from ndcg_spark.gate.rule import gate_spelling as spelled
from ndcg_spark.option_values import count
from ndcg_spark.options import Options
from ndcg_spark.progress import LOG_AUTO, LOG_FORMATS, LogFormat
from ndcg_spark.publish.lock import DEFAULT_LOCK_STALE_SECONDS, DEFAULT_LOCK_TIMEOUT_SECONDS
from ndcg_spark.report.tables import TABLE_FORMATS, TABLE_MARKDOWN, TableFormat

MAX_LOCK_SECONDS = 7 * 24 * 3600

Format = Literal["parquet", "trec"]
FORMAT_PARQUET: Format = "parquet"
FORMAT_TREC: Format = "trec"
FORMATS: tuple[Format, ...] = get_args(Format)

PREVIOUS: Literal["previous"] = "previous"
Against = dt.date | Literal["previous"] | None

# The config file's tables of the job's own settings.
INPUT, OUTPUT, LOGGING, MLFLOW, SPARK = "input", "output", "logging", "mlflow", "spark"
# The --help groups.
INPUTS, PUBLICATION, THE_RUN = "inputs", "outputs and publication", "the run"

# NAME=PATH names a results input when NAME is a plain run name: a path such as
# /data/date=2026-12-01 or s3://b/x=1 is a path (prefix a relative one with ./).
_RUN_NAME = re.compile(r"[A-Za-z0-9_.-]+")

ResultPaths = tuple[tuple[str | None, str], ...]


def parse_results(value: Any) -> ResultPaths:
    """--results given once as PATH, or as NAME=PATH once or more; [input] results as a path or
    a table of name = path. (name, path) of each input; the name is None for a single unnamed one."""
    if value is None or value == () or value == []:
        return ()
    if isinstance(value, tuple) and all(isinstance(item, tuple) for item in value):
        return value  # already parsed
    if isinstance(value, str):
        value = [value]
    items: list[tuple[str | None, Any]]
    if isinstance(value, Mapping):
        items = [(str(name), path) for name, path in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [_named(item) for item in value]
    else:
        raise ConfigError(f"results must be a path, NAME=PATH, or a table of name = path, got {value!r}")
    for name, path in items:
        if not isinstance(path, str) or not path:
            raise ConfigError(f"results {'' if name is None else f'{name} '}must be a non-empty path, got {path!r}")
    if len(items) == 1 and items[0][0] is None:
        return ((None, items[0][1]),)
    named: dict[str, str] = {}
    for name, path in items:
        if name is None:
            raise ConfigError(f"results {path!r}: with several results inputs each is NAME=PATH")
        if not _RUN_NAME.fullmatch(name):
            raise ConfigError(f"results name {name!r} must be letters, digits, '_', '.' or '-'")
        if name in named:
            raise ConfigError(f"results name {name!r} is given twice; each input needs its own name")
        named[name] = path
    return tuple(named.items())


def _named(item: Any) -> tuple[str | None, Any]:
    text = str(item)
    name, sep, path = text.partition("=")
    return (name, path) if sep and _RUN_NAME.fullmatch(name) else (None, text)


def _record_results(value: ResultPaths) -> Any:
    """The manifest's form: the path of a single unnamed input, else {name: path}."""
    return value[0][1] if len(value) == 1 and value[0][0] is None else dict(value)


def parse_date(value: Any, name: str = "eval_date") -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ConfigError(f"{name} must be YYYY-MM-DD, got {value!r}") from None


def parse_against(value: Any) -> Against:
    """ "previous" or a date YYYY-MM-DD."""
    if value is None or value == PREVIOUS or isinstance(value, dt.date):
        return value
    return parse_date(value, 'against ("previous" or YYYY-MM-DD)')


def _path(name: str) -> Any:
    def parse(value: Any) -> str:
        if not isinstance(value, str):
            raise ConfigError(f"{name} must be a path, got {value!r}")
        return value

    return parse


def _optional_path(name: str) -> Any:
    def parse(value: Any) -> str | None:
        return None if value is None or value == "" else _path(name)(value)

    return parse


def _experiment(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"mlflow_experiment must be a name, got {value!r}")
    return value


def _spark_conf(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"spark_conf must be a table of Spark settings, got {value!r}")
    return {str(key): str(item) for key, item in value.items()}


def _seconds(name: str, low: int) -> Any:
    return lambda value: count(name, value, low, MAX_LOCK_SECONDS)


@dataclass(frozen=True)
class JobConfig:
    """Everything one run of the job is told: where the data lives and where the report goes
    (its own settings, declared here), how to score (`options`) and what to gate (`gate`)."""

    judgments: str = setting(
        "",
        "judgments: Parquet (query_id, doc_id, relevance), or with --judgments-format trec a qrels text (plain or .gz)",
        INPUT,
        parse=_path("judgments"),
        group=INPUTS,
        shown="required",
    )
    results: ResultPaths = setting(
        (),
        "results: Parquet (query_id, doc_id, score[, run_id][, rank]), or with --results-format trec a run text"
        " (plain or .gz); NAME=PATH, repeated, for one input per run (config file: a table of name = path)",
        INPUT,
        parse=parse_results,
        record=_record_results,
        repeat=True,
        group=INPUTS,
        shown="required",
    )
    judgments_format: Format = setting(FORMAT_PARQUET, "parquet or trec qrels text", INPUT, choices=FORMATS, group=INPUTS)
    results_format: Format = setting(FORMAT_PARQUET, "parquet or trec run text", INPUT, choices=FORMATS, group=INPUTS)
    query_metadata: str | None = setting(
        None, "Parquet with query_id and the slice columns", INPUT, parse=_optional_path("query_metadata"), group=INPUTS
    )
    output: str = setting(
        "",
        "output folder; per_query/ and summary/ are written in it",
        OUTPUT,
        key="path",
        parse=_path("output"),
        group=PUBLICATION,
        shown="required",
    )
    eval_date: dt.date | None = setting(
        None, "YYYY-MM-DD: partition the outputs; a rerun replaces that date", NO_KEY, parse=parse_date, group=PUBLICATION
    )
    trec_eval_report: bool = setting(
        False,
        "also write trec_eval -q style text per run (DIR/trec_eval/run_id=RUN/part-00000-*.txt)",
        OUTPUT,
        key="trec_eval",
        switch=True,
        group=PUBLICATION,
    )
    html_report: bool = setting(True, "write DIR/report/DATE.html", OUTPUT, key="html", switch=True, group=PUBLICATION)
    html_self_contained: bool = setting(
        False,
        "put plotly's JavaScript inside the page (about 5 MB), for a page sent on its own; by default it is one file"
        " beside the pages, which every page shares",
        OUTPUT,
        switch=True,
        group=PUBLICATION,
    )
    report_format: TableFormat = setting(
        TABLE_MARKDOWN,
        "the table written beside the HTML page: DIR/report/DATE.md or .tex",
        OUTPUT,
        choices=TABLE_FORMATS,
        group=PUBLICATION,
    )
    lock_timeout: int = setting(
        DEFAULT_LOCK_TIMEOUT_SECONDS,
        "seconds to wait for another run publishing the output",
        OUTPUT,
        parse=_seconds("lock_timeout", 0),
        group=PUBLICATION,
    )
    lock_stale_after: int = setting(
        DEFAULT_LOCK_STALE_SECONDS,
        "seconds after which a publication lock is taken over",
        OUTPUT,
        parse=_seconds("lock_stale_after", 1),
        group=PUBLICATION,
    )
    repair: bool = setting(
        False,
        "finish a publication a killed run left half done on --output, evaluate nothing",
        NO_KEY,
        switch=True,
        group=PUBLICATION,
    )
    against: Against = setting(
        None,
        "gate each run against itself on an earlier published date: previous (the latest before this one) or YYYY-MM-DD",
        GATE,
        flag=NO_FLAG,
        parse=parse_against,
        record=str,
        group=GATE,
        shown="none (the baseline run only)",
        aliases=(
            Alias(
                "--against-previous", "gate each run against itself on the latest eval date published before this one", PREVIOUS
            ),
            Alias("--against-date", "YYYY-MM-DD: gate each run against itself on that published date"),
        ),
    )
    log_format: LogFormat = setting(
        LOG_AUTO, "auto: text on a terminal, else JSON lines", LOGGING, key="format", choices=LOG_FORMATS, group=THE_RUN
    )
    mlflow_experiment: str | None = setting(
        None,
        "log each run's summary, the gate's verdict, the config and the report to this MLflow experiment"
        " (MLFLOW_TRACKING_URI; pip install mlflow-skinny)",
        MLFLOW,
        key="experiment",
        parse=_experiment,
        group=THE_RUN,
    )
    spark_conf: Mapping[str, str] = setting(
        {},
        "any Spark setting, as spark-submit's --conf takes it",
        SPARK,
        key=WHOLE_TABLE,
        flag=NO_FLAG,
        parse=_spark_conf,
        shown="none",
    )
    options: Options = field(default_factory=Options)
    gate: GateSettings = field(default_factory=GateSettings)

    @property
    def result_paths(self) -> list[tuple[str | None, str]]:
        """(name, path) of each results input; the name is None for a single unnamed one."""
        return list(self.results)

    @property
    def named_results(self) -> ResultPaths:
        return tuple((name, path) for name, path in self.results if name is not None)

    @property
    def gate_rule(self) -> GateRule | None:
        """The gate's rule over the cutoffs this run reports; None when no gate is asked for."""
        options = self.options
        return self.gate.rule(cutoffs_of(options.scored_measures))

    def recorded(self) -> dict[str, Any]:
        """The configuration as the manifest (and MLflow's params) record it: the job's settings,
        the gate's under gate (None when off), and every option, side by side."""
        job, rule = recorded(self), self.gate_rule
        against = job.pop("against")
        gate = None
        if rule is not None:
            measures = [cut.asked for cut in rule.cutoffs]  # as resolved against the report's cutoffs
            gate = {**recorded(self.gate), "measures": measures, "against": against}
        return {**job, "gate": gate, **self.options.recorded()}


REQUIRED = ("judgments", "results", "output")

# Where each kind of setting sits in JobConfig, and the kinds themselves: the config file and the
# command line read all three.
JOB, OPTIONS, GATE_SETTINGS = "job", "options", "gate"
Settings = dict[str, dict[str, Any]]
"""Unvalidated settings by kind (JOB, OPTIONS, GATE_SETTINGS), each by keyword."""


def empty_settings() -> Settings:
    return {JOB: {}, OPTIONS: {}, GATE_SETTINGS: {}}


def build_config(settings: Settings, kind: type[Options] = Options, job: type[JobConfig] = JobConfig) -> JobConfig:
    """Validate merged settings into a JobConfig; every problem is a ConfigError."""
    values = settings.get(JOB, {})
    config = build(job, values)
    for required in ("output",) if config.repair else REQUIRED:
        if not getattr(config, required):
            raise ConfigError(f"{required} path is required (flag --{required} or the config file)")
    config = replace(
        config, options=kind.of(settings.get(OPTIONS, {})), gate=build(GateSettings, settings.get(GATE_SETTINGS, {}))
    )
    options = config.options
    if config.query_metadata is not None and not options.slices:
        given, wanted = "--query-metadata (config file: [input] query_metadata)", "--slices (config file: [slices] columns)"
        raise ConfigError(f"{given} is given but no slice columns: pass {wanted}")
    if options.slices and config.query_metadata is None and len(config.named_results) > 1:
        raise ConfigError("slices of several results inputs need --query-metadata")
    _check_gate(config, settings.get(GATE_SETTINGS, {}))
    return config


def _check_gate(config: JobConfig, given_gate: Mapping[str, Any]) -> None:
    """The gate's settings against the rest of the configuration."""
    against, gate = config.against, config.gate
    if gate.fail_on_drop is None:
        given = ["--against-previous" if against == PREVIOUS else "--against-date"] if against is not None else []
        given += [spelled(name).flag for name in ("measures", "alpha") if given_gate.get(name) not in (None, (), [])]
        if given:
            raise ConfigError(
                f"{given[0]} gates nothing without a threshold: add --fail-on-drop (config file: [gate] fail_on_drop)"
            )
        return
    if against is None and config.options.baseline is None:
        raise ConfigError("--fail-on-drop needs a reference: --against-previous, --against-date YYYY-MM-DD or --baseline RUN")
    if against is not None and config.eval_date is None:
        raise ConfigError("--against-previous and --against-date compare eval dates: give this run one with --eval-date")
    if isinstance(against, dt.date) and config.eval_date is not None and against >= config.eval_date:
        raise ConfigError(f"--against-date {against} must be before this run's --eval-date {config.eval_date}")
    config.gate_rule  # noqa: B018 - each measure to gate must be one the run reports: refused now, before Spark starts
