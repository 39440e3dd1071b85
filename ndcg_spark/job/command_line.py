"""The job's command line: one flag per declared setting (the job's own, the gate's and the
evaluation options), grouped in --help; flags go on top of the config file."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ndcg_spark.declarations import NO_FLAG, declaration, declared, flag_of, shown
from ndcg_spark.errors import EXIT_FAILURE, EXIT_INPUT_REJECTED, EXIT_OK, EXIT_QUALITY_DROPPED, EXIT_USAGE
from ndcg_spark.gate.rule import GATE
from ndcg_spark.job.config_file import kinds, load_toml
from ndcg_spark.job.settings import INPUTS, OPTIONS, PUBLICATION, THE_RUN, JobConfig, build_config, empty_settings
from ndcg_spark.options import Options
from ndcg_spark.version import package_version

_GROUPS = {
    INPUTS: "inputs",
    PUBLICATION: "outputs and publication",
    THE_RUN: "the run",
    GATE: "the regression gate (docs/operations.md#the-regression-gate)",
    OPTIONS: "evaluation options (docs/options.md)",
}

_EPILOG = f"""examples:
  ndcg-spark --judgments qrels.parquet --results run.parquet --output out/
  ndcg-spark --judgments qrels.txt --judgments-format trec --results bm25=bm25.txt --results dense=dense.txt \\
      --results-format trec --output out/ --eval-date 2026-12-01 --baseline bm25 --measure P.10 --measure map
  ndcg-spark --config conf/nightly.toml --eval-date 2026-12-01 --fail-on-drop 0.01 --against-previous
  ndcg-spark trec_eval qrels.txt run.txt   (trec_eval's own command line and output)

exit codes:
  {EXIT_OK} done  {EXIT_FAILURE} transient failure: run it again  {EXIT_USAGE} bad flags or config
  {EXIT_INPUT_REJECTED} an input or the output's state was refused
  {EXIT_QUALITY_DROPPED} the gate failed (the report is published)
"""


def dest(where: str, name: str) -> str:
    """argparse's name of a setting: its kind and keyword (the options and the gate both have
    `measures`)."""
    return f"{where}:{name}"


def argument_parser(kind: type[Options] = Options, job: type[JobConfig] = JobConfig) -> argparse.ArgumentParser:
    """Every declared setting's flag; every value defaults to None, so that a flag not given
    leaves the config file's value."""
    parser = argparse.ArgumentParser(
        prog="ndcg-spark",
        description="NDCG@k and trec_eval's measures (--measure) per query and per run, from Parquet or trec_eval"
        " text judgments and results; the reports are published to --output as Parquet.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    parser.add_argument("--config", help="TOML config file (conf/ has examples); flags override it")
    groups: dict[str, Any] = {}
    for where, declared_kind in kinds(kind, job).items():
        for item in declared(declared_kind):
            spec = declaration(item)
            title = _GROUPS[spec.group or (OPTIONS if where == OPTIONS else THE_RUN)]
            group = groups.setdefault(title, parser.add_argument_group(title))
            _add(group, item, dest(where, item.name))
    return parser


def _help(item: Any) -> str:
    spec = declaration(item)
    default = shown(item)
    quiet = spec.switch or spec.aliases or default.startswith("none") or default == "required"
    suffix = "" if quiet else f" (default: {default})"
    return (spec.help + suffix).replace("%", "%%")  # argparse formats help with %


def _metavar(flag: str) -> str:
    """--against-date's value as --help names it: AGAINST_DATE."""
    return flag[2:].upper().replace("-", "_")


def _add(group: Any, item: Any, name: str) -> None:
    spec = declaration(item)
    flag = flag_of(item)
    if spec.aliases:
        exclusive = group.add_mutually_exclusive_group()
        if flag != NO_FLAG:
            exclusive.add_argument(flag, dest=name, help=_help(item))
        for alias in spec.aliases:
            if alias.const is None:
                exclusive.add_argument(alias.flag, dest=name, metavar=_metavar(alias.flag), help=alias.help)
            else:
                exclusive.add_argument(alias.flag, dest=name, action="store_const", const=alias.const, help=alias.help)
        return
    if flag == NO_FLAG:
        return
    if spec.switch:
        group.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, help=_help(item))
        return
    metavar = None if spec.choices else _metavar(flag)
    action = "append" if spec.repeat else "store"
    group.add_argument(flag, dest=name, choices=spec.choices or None, metavar=metavar, action=action, help=_help(item))


def parse_args(argv: Sequence[str], kind: type[Options] = Options, job: type[JobConfig] = JobConfig) -> JobConfig:
    """Arguments -> validated JobConfig. argparse usage errors exit 2 by themselves; no argument at
    all is one too, with the usage and where to read more."""
    parser = argument_parser(kind, job)
    if not argv:
        parser.print_usage(sys.stderr)
        parser.exit(2, f"{parser.prog}: give --judgments, --results and --output (or --config); --help lists every flag\n")
    args = parser.parse_args(list(argv))
    settings = load_toml(args.config, kind, job) if args.config else empty_settings()
    for where, declared_kind in kinds(kind, job).items():
        for item in declared(declared_kind):
            value = getattr(args, dest(where, item.name), None)
            if value is not None:
                settings[where][item.name] = value
    return build_config(settings, kind, job)
