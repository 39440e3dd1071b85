"""The choices an evaluation takes, as typed values, and their validation.

Both the Python API and the job's config use these, so a bad value gets the same one-line
message wherever it comes from, before Spark reads anything."""

from __future__ import annotations

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
            duplicate_judgments=choice(
                "duplicate_judgments", self.duplicate_judgments, DUPLICATE_JUDGMENT_POLICIES
            ),
            columns=column_names(self.columns),
            baseline=None if self.baseline is None else str(self.baseline),
            permutations=count("permutations", self.permutations, 1, MAX_RESAMPLES),
            bootstrap=count("bootstrap", self.bootstrap, 1, MAX_RESAMPLES),
            seed=count("seed", self.seed, 0, MAX_SEED),
            slices=parse_names("slices", self.slices),
        )
        if not options.run_id:
            raise ConfigError("run-id must not be empty")
        if options.baseline == "":
            raise ConfigError("baseline must name a run, got an empty string")
        return options
