"""The choices an evaluation takes, as typed values, and their validation.

Both the Python API and the job's config use these, so a bad value gets the same one-line
message wherever it comes from, before Spark reads anything."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args

from ndcg_spark import columns as c
from ndcg_spark.errors import ConfigError

Gain = Literal["linear", "exponential"]
GAIN_LINEAR: Gain = "linear"
GAIN_EXPONENTIAL: Gain = "exponential"
GAINS: tuple[Gain, ...] = get_args(Gain)

OrderBy = Literal["score", "rank"]
ORDER_BY_SCORE: OrderBy = "score"
ORDER_BY_RANK: OrderBy = "rank"
ORDERS: tuple[OrderBy, ...] = get_args(OrderBy)

DuplicateResults = Literal["error", "keep_best"]
DuplicateJudgments = Literal["error", "keep_max"]
ON_DUPLICATE_ERROR: Literal["error"] = "error"
ON_DUPLICATE_RESULT_KEEP_BEST: DuplicateResults = "keep_best"
ON_DUPLICATE_JUDGMENT_KEEP_MAX: DuplicateJudgments = "keep_max"
DUPLICATE_RESULT_POLICIES: tuple[DuplicateResults, ...] = get_args(DuplicateResults)
DUPLICATE_JUDGMENT_POLICIES: tuple[DuplicateJudgments, ...] = get_args(DuplicateJudgments)

DEFAULT_KS = (5, 10, 20)
DEFAULT_RUN_ID = "run"
# Enough for p-values and interval ends to about +-0.01 (binomial error at 1000 draws); each
# costs one row per query and compared run and cutoff.
DEFAULT_PERMUTATIONS = 1000
DEFAULT_BOOTSTRAP = 1000
DEFAULT_SEED = 42
MAX_RESAMPLES = 1_000_000
MAX_SEED = 2**31 - 1
MAX_DEPTH = 2**31 - 1

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


def column_names(value: ColumnNames | Mapping[str, str] | None) -> ColumnNames:
    """ColumnNames from a mapping of canonical name to input name; unknown keys are refused."""
    if value is None:
        return ColumnNames()
    if isinstance(value, ColumnNames):
        return value
    if not isinstance(value, Mapping):
        raise ConfigError(f"columns must map canonical names to input names, got {value!r}")
    allowed = [f.name for f in fields(ColumnNames)]
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise ConfigError(f"unknown column key(s): {', '.join(unknown)} (known: {', '.join(allowed)})")
    for key, name in value.items():
        if not isinstance(name, str) or not name:
            raise ConfigError(f"column {key} must be a non-empty string, got {name!r}")
    return ColumnNames(**value)


def parse_ks(value: Any) -> tuple[int, ...]:
    """Cutoffs from '5,10,20' or a list; sorted, unique, each a positive integer."""
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


def choice(name: str, value: Any, allowed: Sequence[str]) -> Any:
    """value when it is one of allowed, else a ConfigError naming the option."""
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def flag(name: str, value: Any) -> bool:
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


def depth(value: Any) -> int | None:
    """--max-depth: None (no cut) or a positive whole number."""
    if value is None:
        return None
    return count("max_depth", value, 1, MAX_DEPTH)


def parse_names(name: str, value: Any) -> tuple[str, ...]:
    """Column names from 'a,b' or a list; order kept, duplicates refused."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise ConfigError(f"{name} must be a list of column names, got {value!r}")
    names = tuple(str(item).strip() for item in items)
    if any(not item for item in names) or len(set(names)) != len(names):
        raise ConfigError(f"{name} must be distinct non-empty column names, got {value!r}")
    return names


@dataclass(frozen=True)
class Options:
    """How to score and compare: every choice of an evaluation except where the data lives."""

    ks: tuple[int, ...] = DEFAULT_KS
    gain: Gain = GAIN_LINEAR
    complete: bool = False
    uncut: bool = True
    order_by: OrderBy = ORDER_BY_SCORE
    run_id: str = DEFAULT_RUN_ID
    duplicate_results: DuplicateResults = ON_DUPLICATE_ERROR
    duplicate_judgments: DuplicateJudgments = ON_DUPLICATE_ERROR
    columns: ColumnNames = field(default_factory=ColumnNames)
    baseline: str | None = None
    permutations: int = DEFAULT_PERMUTATIONS
    bootstrap: int = DEFAULT_BOOTSTRAP
    seed: int = DEFAULT_SEED
    slices: tuple[str, ...] = ()
    judged_only: bool = False
    max_depth: int | None = None
    gains: GainTable = ()

    def validated(self) -> Options:
        """A copy with every value checked and normalized; every problem is a ConfigError."""
        options = Options(
            ks=parse_ks(self.ks),
            gain=choice("gain", self.gain, GAINS),
            complete=flag("complete", self.complete),
            uncut=flag("uncut", self.uncut),
            order_by=choice("order_by", self.order_by, ORDERS),
            run_id=str(self.run_id),
            duplicate_results=choice("duplicate_results", self.duplicate_results, DUPLICATE_RESULT_POLICIES),
            duplicate_judgments=choice("duplicate_judgments", self.duplicate_judgments, DUPLICATE_JUDGMENT_POLICIES),
            columns=column_names(self.columns),
            baseline=None if self.baseline is None else str(self.baseline),
            permutations=count("permutations", self.permutations, 1, MAX_RESAMPLES),
            bootstrap=count("bootstrap", self.bootstrap, 1, MAX_RESAMPLES),
            seed=count("seed", self.seed, 0, MAX_SEED),
            slices=parse_names("slices", self.slices),
            judged_only=flag("judged_only", self.judged_only),
            max_depth=depth(self.max_depth),
            gains=parse_gains(self.gains),
        )
        if not options.run_id:
            raise ConfigError("run-id must not be empty")
        if options.baseline == "":
            raise ConfigError("baseline must name a run, got an empty string")
        return options

    @property
    def variant(self) -> str:
        """How the values were computed, beyond the cutoff: the `variant` column of the reports,
        so that two reports computed differently cannot be mistaken for each other."""
        return describe_variant(self.gain, self.gains, self.judged_only, self.max_depth)


def describe_variant(gain: Gain, gains: GainTable, judged_only: bool, max_depth: int | None) -> str:
    """'gain=linear', then ';gains=2=3,3=7', ';judged_only', ';max_depth=N' when they are set."""
    parts = [f"gain={gain}"]
    if gains:
        parts.append(f"gains={format_gains(gains)}")
    if judged_only:
        parts.append("judged_only")
    if max_depth is not None:
        parts.append(f"max_depth={max_depth}")
    return ";".join(parts)
