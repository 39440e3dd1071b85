"""Each option is declared once (ndcg_spark/options.py): the command's flag, the config file's
key, evaluate()'s keyword, the validation, the manifest and docs/options.md all come from it."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, fields
from pathlib import Path

import pytest

from ndcg_spark.api import evaluate
from ndcg_spark.declarations import declaration, declared
from ndcg_spark.errors import ConfigError
from ndcg_spark.job.command_line import argument_parser, dest, parse_args
from ndcg_spark.job.config_file import settings_from_toml
from ndcg_spark.job.settings import OPTIONS
from ndcg_spark.option_values import ColumnNames, count
from ndcg_spark.options import EVALUATION, Options, option, options_table, spelling

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = ["--judgments", "j", "--results", "r", "--output", "o"]


@dataclass(frozen=True)
class WithExample(Options):
    """Options with one more, declared in one line as any option is (no other file touched)."""

    example: int = option(3, "an example option", EVALUATION, parse=lambda value: count("example", value, 0, 9))


def test_one_declared_line_gives_the_flag_the_key_the_keyword_the_check_the_manifest_and_the_docs(tmp_path: Path) -> None:
    assert parse_args(REQUIRED, WithExample).options == WithExample()  # the default
    assert parse_args([*REQUIRED, "--example", "7"], WithExample).options.example == 7  # type: ignore[attr-defined]
    path = tmp_path / "c.toml"
    path.write_text("[evaluation]\nexample = 5\n")
    assert parse_args([*REQUIRED, "--config", str(path)], WithExample).options.example == 5  # type: ignore[attr-defined]
    assert parse_args([*REQUIRED, "--config", str(path), "--example", "6"], WithExample).options.example == 6  # type: ignore[attr-defined]
    assert WithExample.of({"example": 4}).example == 4  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match=r"^example must be a whole number from 0 to 9, got '10'$"):
        parse_args([*REQUIRED, "--example", "10"], WithExample)
    assert WithExample(example=8).recorded()["example"] == 8  # the manifest's config
    assert "| `example` | `--example` | `[evaluation] example` | 3 | an example option |" in options_table(WithExample)
    assert spelling("example", WithExample).flag == "--example"
    with pytest.raises(ConfigError, match="unknown key"):
        settings_from_toml({"evaluation": {"example": 1}})  # only where it is declared


def test_help_shows_each_option_with_its_help() -> None:
    shown = " ".join(argument_parser().format_help().split())
    for item in declared(Options):
        assert spelling(item.name).flag in shown and " ".join(declaration(item).help.split()) in shown, item.name


def test_the_docs_table_is_the_declarations() -> None:
    text = (ROOT / "docs" / "options.md").read_text()
    assert options_table() in text, "docs/options.md: paste ndcg_spark.options.options_table() over its table"


def test_every_option_has_a_flag_a_key_and_a_keyword() -> None:
    parser = {action.dest: action for action in argument_parser()._actions}
    signature = inspect.signature(evaluate).parameters
    names = [item.name for item in declared(Options)]
    assert names == [item.name for item in fields(Options)]  # nothing in Options is undeclared
    for name in names:
        setting = spelling(name)
        assert setting.flag in parser[dest(OPTIONS, name)].option_strings, name
        assert signature[name].default == getattr(Options(), name) and signature[name].kind == inspect.Parameter.KEYWORD_ONLY
        table = {setting.key: "x"} if setting.key else {"query_id": "x"}
        assert name in settings_from_toml({setting.section: table})[OPTIONS], name


def test_on_off_options_can_be_turned_off_over_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[evaluation]\ncomplete = true\njudged_only = true\n")
    config = parse_args([*REQUIRED, "--config", str(path), "--no-complete"])
    assert (config.options.complete, config.options.judged_only) == (False, True)
    assert not parse_args([*REQUIRED, "--no-uncut"]).options.uncut


def test_columns_and_order_from_flags() -> None:
    config = parse_args([*REQUIRED, "--columns", "doc_id=item, score=prediction", "--order-by", "rank"])
    assert config.options.columns == ColumnNames(doc_id="item", score="prediction")
    assert config.options.order_by == "rank"
    with pytest.raises(ConfigError, match=r"unknown column key\(s\): item"):
        parse_args([*REQUIRED, "--columns", "item=doc"])
    with pytest.raises(ConfigError, match="CANONICAL=INPUT"):
        parse_args([*REQUIRED, "--columns", "doc_id"])


def test_an_unknown_keyword_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"^unknown option\(s\): k \(known: ks, gain, "):
        Options.of({"k": 5})
