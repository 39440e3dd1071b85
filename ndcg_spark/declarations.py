"""Settings declared once: a frozen dataclass's field carries its type and default, and beside them
how its value is checked and how each caller spells it (the Python keyword is the field's name;
the command's flag and the config file's table and key are in its declaration).

The evaluation options (options.py), the gate's settings (gate/rule.py) and the job's own settings
(job/settings.py) are all declared so. The command line, the config file, the validation, the
manifest's record and the docs' tables are derived from these declarations, so a new setting is
one field plus its logic."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ndcg_spark.errors import ConfigError
from ndcg_spark.option_values import boolean, choice
from ndcg_spark.remedies import Setting

WHOLE_TABLE = ""
"""A declaration's key when the setting is its whole table (the input column names: [columns])."""
NO_KEY = None
"""A declaration's section when the setting has no config key (a flag only, such as --repair)."""
NO_FLAG = ""
"""A declaration's flag when the setting has none (the config file only, such as [spark])."""

_DECLARED = "ndcg_spark.declared"


@dataclass(frozen=True)
class Alias:
    """Another flag for the same setting: `--against-previous` sets against to "previous"."""

    flag: str
    help: str
    const: Any = None  # the value the flag sets; None: the flag takes a value, as the setting's own


@dataclass(frozen=True)
class Declared:
    """How one setting is checked and spelled, beside its field (name, type, default)."""

    help: str
    section: str | None  # the config file's table (NO_KEY: none)
    key: str | None = None  # the key in it (None: the field's name; WHOLE_TABLE: the table itself)
    flag: str | None = None  # the command's flag (None: --the-field-name; NO_FLAG: none)
    choices: tuple[str, ...] = ()
    parse: Callable[[Any], Any] | None = None  # the value from any caller's form; ConfigError if bad
    switch: bool = False  # true or false: --name and --no-name on the command line
    record: Callable[[Any], Any] | None = None  # its JSON form in the manifest (None: as it is)
    shown: str | None = None  # its default in the docs (None: from the default)
    repeat: bool = False  # the flag can be given again, each time adding to the value
    group: str | None = None  # the --help group it is listed under (None: the kind's own)
    aliases: tuple[Alias, ...] = ()  # other flags that set it


def setting(default: Any, help: str, section: str | None, **declared: Any) -> Any:  # noqa: A002 - argparse's word
    """A field with its declaration (see Declared); a dict default is copied per instance."""
    metadata = {_DECLARED: Declared(help, section, **declared)}
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def declaration(item: dataclasses.Field) -> Declared:
    spec: Declared = item.metadata[_DECLARED]
    return spec


def declared(kind: Any) -> Iterator[dataclasses.Field]:
    """The declared fields of a dataclass (or an instance of one), in their order."""
    return (item for item in fields(kind) if _DECLARED in item.metadata)


def default_of(item: dataclasses.Field) -> Any:
    factory: Any = item.default_factory
    return factory() if item.default is dataclasses.MISSING else item.default


def check(item: dataclasses.Field, value: Any) -> Any:
    """The value checked and normalized as declared; a ConfigError names the setting."""
    spec = declaration(item)
    try:
        if spec.switch:
            return boolean(item.name, value)
        if spec.choices:
            return choice(item.name, value, spec.choices)
        return value if spec.parse is None else spec.parse(value)
    except ConfigError as error:
        error.setting = error.setting or _spelled(item)
        raise


def _spelled(item: dataclasses.Field) -> Setting:
    """The setting as messages name it: a setting without a flag of its own is set on the command
    line through the alias that takes a value (--against-date for against)."""
    spec = declaration(item)
    flag = flag_of(item)
    if spec.flag == NO_FLAG:
        flag = next((alias.flag for alias in spec.aliases if alias.const is None), "")
    return Setting(item.name, flag, spec.section or "", key_of(item) or "")


def checked(instance: Any) -> Any:
    """A copy of a declared dataclass with every declared value checked."""
    return dataclasses.replace(instance, **{item.name: check(item, getattr(instance, item.name)) for item in declared(instance)})


def build(kind: Any, values: Mapping[str, Any]) -> Any:
    """An instance of `kind` from the values given (by keyword; the rest keep their defaults),
    each checked; an unknown keyword is a ConfigError that lists the known ones."""
    names = [item.name for item in declared(kind)]
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(unknown)} (known: {', '.join(names)})")
    return checked(kind(**values))


def recorded(instance: Any) -> dict[str, Any]:
    """Every declared setting as the manifest records it, under its keyword."""
    found = {}
    for item in declared(instance):
        spec, value = declaration(item), getattr(instance, item.name)
        found[item.name] = value if spec.record is None or value is None else spec.record(value)
    return found


def flag_of(item: dataclasses.Field) -> str:
    spec = declaration(item)
    return "--" + item.name.replace("_", "-") if spec.flag is None else spec.flag


def key_of(item: dataclasses.Field) -> str | None:
    """The key in the config file (WHOLE_TABLE: the table itself; None: no config key)."""
    spec = declaration(item)
    if spec.section is NO_KEY:
        return None
    return item.name if spec.key is None else spec.key


def spelling(name: str, kind: Any) -> Setting:
    """How the command, the config file and Python spell the setting `name` of `kind`."""
    return _spelled(next(item for item in declared(kind) if item.name == name))


def config_keys(kind: Any) -> dict[str, dict[str, str]]:
    """{table: {key: setting name}} of the declared settings (key WHOLE_TABLE: the whole table)."""
    tables: dict[str, dict[str, str]] = {}
    for item in declared(kind):
        key = key_of(item)
        if key is not None:
            tables.setdefault(str(declaration(item).section), {})[key] = item.name
    return tables


def shown(item: dataclasses.Field) -> str:
    """Its default as the docs and --help show it."""
    spec = declaration(item)
    if spec.shown is not None:
        return spec.shown
    default = default_of(item)
    if isinstance(default, bool):
        return "on" if default else "off"
    if default is None:
        return "none"
    if isinstance(default, tuple):
        return ",".join(map(str, default))
    return str(default)


def settings_table(kind: Any) -> str:
    """A Markdown table of docs/: each setting as each caller spells it."""
    lines = ["| Python keyword | flag | config key | default | meaning |", "|---|---|---|---|---|"]
    for item in declared(kind):
        spec = declaration(item)
        flags = [flag_of(item)] if flag_of(item) != NO_FLAG else []
        if spec.switch and flags:
            flags.append(f"--no-{flags[0][2:]}")
        flags += [alias.flag for alias in spec.aliases]
        key = key_of(item)
        where = "" if key is None else f"[{spec.section}]" + (f" {key}" if key != WHOLE_TABLE else "")
        choices = f" ({' or '.join(spec.choices)})" if spec.choices else ""
        meaning = spec.help.replace("|", "\\|")
        flag = f"`{', '.join(flags)}`" if flags else "none"
        config = f"`{where}`" if where else "none"
        lines.append(f"| `{item.name}` | {flag} | {config} | {shown(item)}{choices} | {meaning} |")
    return "\n".join(lines) + "\n"
