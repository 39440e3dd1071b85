"""How each kind of option value is read and checked: from a flag's text, a config file's value or
a Python argument alike, so that a bad value gets the same one-line message wherever it comes from."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ndcg_spark import columns as c
from ndcg_spark.errors import ConfigError

GainTable = tuple[tuple[int, float], ...]
"""Custom gains: (grade, gain) pairs sorted by grade; a grade not listed keeps the chosen gain."""


@dataclass(frozen=True)
class ColumnNames:
    """Names of the input columns; each is renamed to the canonical name of the same field."""

    query_id: str = c.QUERY_ID
    doc_id: str = c.DOC_ID
    relevance: str = c.RELEVANCE
    score: str = c.SCORE
    run_id: str = c.RUN_ID
    rank: str = c.RANK


# The canonical columns each input has, which its own names (--judgments-columns,
# --results-columns) may rename.
JUDGMENT_COLUMNS = (c.QUERY_ID, c.DOC_ID, c.RELEVANCE)
RESULT_COLUMNS = (c.QUERY_ID, c.DOC_ID, c.SCORE, c.RUN_ID, c.RANK)

Renames = tuple[tuple[str, str], ...]
"""One input's own column names: (canonical, input name) pairs, over the names of both inputs."""


def _mapping(value: Any, name: str, allowed: Sequence[str]) -> dict[str, str]:
    """{canonical: input name} from a mapping or its text form 'doc_id=item,score=prediction';
    unknown keys are refused."""
    if isinstance(value, str):
        entries = [entry.partition("=") for entry in value.split(",")]
        if any(not sep for _, sep, _ in entries):
            raise ConfigError(f"{name} must be CANONICAL=INPUT pairs, e.g. doc_id=item,score=prediction, got {value!r}")
        value = {key.strip(): given.strip() for key, _, given in entries}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{name} must map canonical names to input names, got {value!r}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise ConfigError(f"{name}: unknown column key(s): {', '.join(map(str, unknown))} (known: {', '.join(allowed)})")
    for key, given in value.items():
        if not isinstance(given, str) or not given:
            raise ConfigError(f"{name}: column {key} must be a non-empty string, got {given!r}")
    return dict(value)


def column_names(value: ColumnNames | Mapping[str, str] | str | None) -> ColumnNames:
    """ColumnNames of both inputs from a mapping of canonical name to input name, or its text
    form 'doc_id=item,score=prediction'; unknown keys are refused."""
    if value is None or value == "":
        return ColumnNames()
    if isinstance(value, ColumnNames):
        return value
    return ColumnNames(**_mapping(value, "columns", [f.name for f in fields(ColumnNames)]))


def input_renames(name: str, allowed: Sequence[str]) -> Callable[[Any], Renames]:
    """The check of one input's own column names (`name`: its keyword), which may rename only
    the columns that input has."""

    def parse(value: Any) -> Renames:
        if value is None or value == "" or value == () or value == {}:
            return ()
        if isinstance(value, tuple) and all(isinstance(pair, tuple) for pair in value):
            value = dict(value)
        return tuple(sorted(_mapping(value, name, allowed).items()))

    return parse


def parse_ks(value: Any) -> tuple[int, ...]:
    """Cutoffs from '5,10,20' or a list; sorted, unique, each a positive integer."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise ConfigError(f"ks must be a list of positive integers, got {value!r}")
    ks = []
    for item in items:
        text = str(item).strip()
        if isinstance(item, bool) or not text.lstrip("+").isdigit() or int(text) <= 0:
            raise ConfigError(f"ks must be positive integers, got {item!r} in {value!r}")
        ks.append(int(text))
    return tuple(sorted(set(ks)))


def choice(name: str, value: Any, allowed: Sequence[str]) -> Any:
    """value when it is one of allowed, else a ConfigError naming the option."""
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def boolean(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {value!r}")
    return value


def count(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not str(value).strip().lstrip("+").isdigit():
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    number = int(str(value).strip())
    if not low <= number <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return number


def parse_gains(value: Any) -> GainTable:
    """Custom gains from '0=0,1=1,2=3', a mapping of grade to gain, or (grade, gain) pairs.

    A grade is a whole number >= 0: negative grades always gain 0 (trec_eval's rule for judged
    but unusable documents), so a gain given for one could only be ignored. A gain is a finite
    number >= 0. Each grade is given once."""
    if value is None or value == "" or value == ():
        return ()
    if isinstance(value, str):
        entries = [item.strip() for item in value.split(",")]
        pairs = []
        for entry in entries:
            grade, sep, gain = entry.partition("=")
            if not sep:
                raise ConfigError(f"gains entry {entry!r} must be GRADE=GAIN, e.g. 2=3 (in {value!r})")
            pairs.append((grade.strip(), gain.strip(), entry))
    elif isinstance(value, Mapping):
        pairs = [(grade, gain, f"{grade}={gain}") for grade, gain in value.items()]
    elif isinstance(value, (list, tuple)):
        if not all(isinstance(item, (list, tuple)) and len(item) == 2 for item in value):
            raise ConfigError(f"gains must map grades to gains, e.g. 0=0,1=1,2=3, got {value!r}")
        pairs = [(grade, gain, f"{grade}={gain}") for grade, gain in value]
    else:
        raise ConfigError(f"gains must map grades to gains, e.g. 0=0,1=1,2=3, got {value!r}")
    table: dict[int, float] = {}
    for grade, gain, entry in pairs:
        table_grade = _grade(grade, entry)
        if table_grade in table:
            raise ConfigError(f"gains entry {entry!r}: grade {table_grade} is given more than once")
        table[table_grade] = _gain_value(gain, entry)
    return tuple(sorted(table.items()))


def _grade(value: Any, entry: str) -> int:
    text = str(value).strip()
    if isinstance(value, bool) or not text.lstrip("+-").isdigit():
        raise ConfigError(f"gains entry {entry!r}: grade {value!r} is not a whole number")
    grade = int(text)
    if grade < 0:
        raise ConfigError(f"gains entry {entry!r}: negative grades always gain 0 (trec_eval), so they take no gain")
    return grade


def _gain_value(value: Any, entry: str) -> float:
    try:
        gain = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        gain = math.nan
    if not math.isfinite(gain) or gain < 0:
        raise ConfigError(f"gains entry {entry!r}: the gain must be a finite number >= 0, got {value!r}")
    return gain


def format_gains(table: GainTable) -> str:
    """'0=0,1=1,2=3': the form --gains takes, for messages, the printed report and the manifest."""
    return ",".join(f"{grade}={_number(gain)}" for grade, gain in table)


def _number(value: float) -> str:
    """3.0 as '3', 4.5 as '4.5': the shortest text that reads back as the same double."""
    return str(int(value)) if value.is_integer() else repr(value)


def parse_names(name: str, value: Any) -> tuple[str, ...]:
    """Column names from 'a,b' or a list; order kept, duplicates refused."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise ConfigError(f"{name} must be a list of column names, got {value!r}")
    names = tuple(str(item).strip() for item in items)
    if any(not item for item in names) or len(set(names)) != len(names):
        raise ConfigError(f"{name} must be distinct non-empty column names, got {value!r}")
    return names
