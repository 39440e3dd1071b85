"""The job's own settings and the gate's are declared once, as the options are
(ndcg_spark/declarations.py): the flag, the config key, the check, the manifest's record and the
docs' table all come from the declaration."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, fields
from pathlib import Path

import pytest

from ndcg_spark.api import gate
from ndcg_spark.declarations import declared, setting, settings_table, spelling
from ndcg_spark.errors import ConfigError
from ndcg_spark.gate.rule import GATE_KEYWORDS, GateSettings
from ndcg_spark.job.command_line import argument_parser, dest, parse_args
from ndcg_spark.job.config_file import settings_from_toml
from ndcg_spark.job.settings import GATE_SETTINGS, JOB, OUTPUT, PUBLICATION, JobConfig
from ndcg_spark.option_values import count
from ndcg_spark.remedies import VOICE_JOB

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = ["--judgments", "j", "--results", "r", "--output", "o"]


@dataclass(frozen=True)
class WithRetention(JobConfig):
    """The job with one more setting, declared in one field as any job setting is."""

    keep_days: int = setting(
        30, "days of reports to keep", OUTPUT, parse=lambda value: count("keep_days", value, 1, 365), group=PUBLICATION
    )


def test_one_declared_field_gives_the_flag_the_key_the_check_the_manifest_and_the_docs(tmp_path: Path) -> None:
    assert parse_args(REQUIRED, job=WithRetention).keep_days == 30  # type: ignore[attr-defined]
    assert parse_args([*REQUIRED, "--keep-days", "7"], job=WithRetention).keep_days == 7  # type: ignore[attr-defined]
    path = tmp_path / "c.toml"
    path.write_text("[output]\nkeep_days = 5\n")
    from_file = parse_args([*REQUIRED, "--config", str(path)], job=WithRetention)
    assert from_file.keep_days == 5  # type: ignore[attr-defined]
    assert parse_args([*REQUIRED, "--config", str(path), "--keep-days", "6"], job=WithRetention).keep_days == 6  # type: ignore[attr-defined]
    with pytest.raises(ConfigError) as refused:
        parse_args([*REQUIRED, "--keep-days", "0"], job=WithRetention)
    assert refused.value.said(VOICE_JOB) == (
        "keep_days must be a whole number from 1 to 365, got '0' (flag --keep-days, config file: [output] keep_days)"
    )
    assert from_file.recorded()["keep_days"] == 5  # the manifest's config, and MLflow's params
    assert "| `keep_days` | `--keep-days` | `[output] keep_days` | 30 | days of reports to keep |" in settings_table(
        WithRetention
    )
    assert "--keep-days KEEP_DAYS" in argument_parser(job=WithRetention).format_help()
    with pytest.raises(ConfigError, match="unknown key"):
        settings_from_toml({"output": {"keep_days": 1}})  # only where it is declared


def test_every_job_and_gate_setting_has_its_flag_or_key() -> None:
    parser = {action.dest: action for action in argument_parser()._actions}
    for where, kind in ((JOB, JobConfig), (GATE_SETTINGS, GateSettings)):
        for item in declared(kind):
            spelled = spelling(item.name, kind)
            assert spelled.flag or spelled.section, item.name  # set somewhere
            if spelled.flag:
                assert spelled.flag in parser[dest(where, item.name)].option_strings, item.name
            if spelled.section and spelled.key:
                assert item.name in settings_from_toml({spelled.section: {spelled.key: None}})[where], item.name


def test_gate_takes_the_gates_settings_as_keywords() -> None:
    """gate()'s keywords are GateSettings' fields, with the same defaults."""
    signature = inspect.signature(gate).parameters
    for item in fields(GateSettings):
        assert item.name in GATE_KEYWORDS and item.name in signature, item.name
        if item.name != "fail_on_drop":  # required from Python: a gate without a threshold gates nothing
            assert signature[item.name].default == getattr(GateSettings(), item.name), item.name


def test_the_docs_tables_are_the_declarations() -> None:
    text = (ROOT / "docs" / "cli.md").read_text()
    for kind in (JobConfig, GateSettings):
        assert settings_table(kind) in text, f"docs/cli.md: paste settings_table({kind.__name__}) over its table"


# Values some setting refuses: not a number, out of range, not a date, a malformed pair list.
_BAD_VALUES = ["bogus", "0", "-3", "2026-02-30", "1.5.5", "=x"]
# The flags that take any text: paths, names.
_FREE_TEXT = {"--judgments", "--output", "--mlflow-experiment", "--run-id", "--baseline", "--slices"}


def test_every_flags_bad_value_names_that_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """Each flag that takes a value, given one it refuses, is named in the refusal: the flag the
    user typed (--against-date, not the config key's name alone), in the command's words."""
    flags = [
        action.option_strings[0]
        for action in argument_parser()._actions
        if action.option_strings and action.nargs != 0 and action.option_strings[0] not in ("-h", "--config")
    ]
    named = []
    for flag in flags:
        for value in _BAD_VALUES:
            try:
                parse_args([*REQUIRED, "--eval-date", "2026-12-02", flag, value])
            except ConfigError as refusal:
                message = refusal.said(VOICE_JOB)
            except SystemExit:  # argparse's own refusal of a choice, on stderr
                message = capsys.readouterr().err
            else:
                continue
            assert flag in message, (flag, value, message)
            named.append(flag)
            break
    assert set(named) == set(flags) - _FREE_TEXT
