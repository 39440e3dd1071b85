"""The job's TOML config file: each table's keys come from the settings' declarations (the job's
own, the gate's and the evaluation options); flags given on the command line go on top."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from ndcg_spark.declarations import WHOLE_TABLE, config_keys
from ndcg_spark.errors import ConfigError
from ndcg_spark.gate.rule import GateSettings
from ndcg_spark.job.settings import GATE_SETTINGS, JOB, OPTIONS, JobConfig, Settings, empty_settings
from ndcg_spark.options import Options


def kinds(kind: type[Options] = Options, job: type[JobConfig] = JobConfig) -> dict[str, Any]:
    """The declared kinds of setting the job reads, by where they sit in Settings."""
    return {JOB: job, OPTIONS: kind, GATE_SETTINGS: GateSettings}


def _table(doc: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = doc.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{name}] must be a table")
    return value


def _known(table: Mapping[str, Any], name: str, allowed: Sequence[str]) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ConfigError(f"unknown key(s) in [{name}]: {', '.join(unknown)}")


def settings_from_toml(doc: Mapping[str, Any], kind: type[Options] = Options, job: type[JobConfig] = JobConfig) -> Settings:
    """The TOML tables as build_config's settings (unvalidated), by kind and keyword."""
    tables: dict[str, dict[str, tuple[str, str]]] = {}  # table -> key -> (kind, keyword)
    for where, declared_kind in kinds(kind, job).items():
        for section, names in config_keys(declared_kind).items():
            tables.setdefault(section, {}).update({key: (where, name) for key, name in names.items()})
    _known(doc, "top level", list(tables))
    settings = empty_settings()
    for name in doc:
        table, keys = _table(doc, name), tables[name]
        if WHOLE_TABLE in keys:  # a whole-table setting takes the keys no other setting of its table claims
            kind_of, keyword = keys[WHOLE_TABLE]
            settings[kind_of][keyword] = {key: value for key, value in table.items() if key not in keys}
        else:
            _known(table, name, list(keys))
        for key, value in table.items():
            if key not in keys:
                continue
            kind_of, keyword = keys[key]
            settings[kind_of][keyword] = value
    return settings


def load_toml(path: str, kind: type[Options] = Options, job: type[JobConfig] = JobConfig) -> Settings:
    try:
        with open(path, "rb") as handle:
            return settings_from_toml(tomllib.load(handle), kind, job)
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config {path} is not valid TOML: {error}") from None
