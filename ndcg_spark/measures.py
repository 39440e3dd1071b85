"""The measures a report can hold, named as trec_eval names them, and how a caller asks for them:
trec_eval's `-m` syntax (`P.5,10`, `ndcg_cut.10`, `map`) or ir_measures' names (`P@5`, `nDCG@10`,
`AP`, `RR`). A measure with cutoffs and none given takes trec_eval's default cutoffs for it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from ndcg_spark.errors import ConfigError

MeasureName = Literal["ndcg", "ndcg_cut", "P", "recall", "map", "map_cut", "recip_rank", "Rprec", "success", "bpref"]
MEASURE_NAMES: tuple[MeasureName, ...] = get_args(MeasureName)
NDCG_MEASURES: tuple[MeasureName, ...] = ("ndcg_cut", "ndcg")
# The order trec_eval prints measures in (its measure table), and the order of the reports' tables:
# NDCG first, the headline, then trec_eval's.
TREC_EVAL_ORDER: tuple[MeasureName, ...] = (
    "map",
    "Rprec",
    "bpref",
    "recip_rank",
    "P",
    "recall",
    "ndcg",
    "ndcg_cut",
    "map_cut",
    "success",
)
REPORT_ORDER: tuple[MeasureName, ...] = (
    "ndcg_cut",
    "ndcg",
    "P",
    "recall",
    "map_cut",
    "map",
    "recip_rank",
    "Rprec",
    "success",
    "bpref",
)

# trec_eval 10.0's default cutoffs (its out.test.aq lists them: P_5 ... P_1000, success_1,5,10).
_LONG_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
DEFAULT_CUTOFFS: dict[MeasureName, tuple[int, ...]] = {
    "ndcg_cut": _LONG_CUTOFFS,
    "P": _LONG_CUTOFFS,
    "recall": _LONG_CUTOFFS,
    "map_cut": _LONG_CUTOFFS,
    "success": (1, 5, 10),
}
# ir_measures' names (case as ir_measures writes them, matched without case): the measure cut at
# @k, and the one without a cutoff.
_SYNONYMS: dict[str, tuple[MeasureName, MeasureName | None]] = {
    "ndcg": ("ndcg_cut", "ndcg"),
    "p": ("P", None),
    "r": ("recall", None),
    "ap": ("map_cut", "map"),
    "rr": ("recip_rank", "recip_rank"),
    "rprec": ("Rprec", "Rprec"),
    "success": ("success", None),
    "bpref": ("bpref", "bpref"),
}
_IR_MEASURES = re.compile(r"(?P<name>[A-Za-z]+)(?:@(?P<k>[^@]*))?")


@dataclass(frozen=True, order=True)
class Measure:
    """One value per query: `name` at cutoff `k` (None for a measure without one)."""

    name: MeasureName
    k: int | None = None

    @property
    def asked(self) -> str:
        """How trec_eval's -m (and --measure) asks for it: P.5, map."""
        return self.name if self.k is None else f"{self.name}.{self.k}"

    @property
    def trec_eval(self) -> str:
        """The name trec_eval prints: P_5, ndcg_cut_10, map."""
        return self.name if self.k is None else f"{self.name}_{self.k}"


def report_order(name: str, k: int | None) -> tuple[int, bool, int]:
    """Sort key of a (measure, k) in the reports: by REPORT_ORDER, then k ascending, uncut last."""
    return (REPORT_ORDER.index(name) if name in REPORT_ORDER else len(REPORT_ORDER), k is None, k or 0)


def label(name: str, k: int | None) -> str:
    """A (measure, k) as the tables head it: ndcg@10, ndcg, P@5, map@10, map, recip_rank."""
    if k is None:
        return name
    return f"{'ndcg' if name == 'ndcg_cut' else 'map' if name == 'map_cut' else name}@{k}"


def cut(name: MeasureName) -> bool:
    """Whether the measure takes cutoffs (ndcg_cut, P, recall, map_cut, success)."""
    return name in DEFAULT_CUTOFFS


def parse_measures(entries: str | Iterable[str]) -> tuple[Measure, ...]:
    """Every measure asked for, in the order first asked, each once. `entries` is one entry or
    several (--measure repeated); an entry is trec_eval's `NAME[.K,K...]` or ir_measures'
    `Name[@K]`. An unknown name, or a cutoff that is not a positive whole number, is a
    ConfigError naming the entry."""
    items = [entries] if isinstance(entries, str) else list(entries)
    if not items:
        raise ConfigError("measures must name at least one measure, e.g. ndcg_cut.10 or P@5")
    found: dict[Measure, None] = {}
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(f"measure {item!r} is not a measure name")
        for measure in _entry(item.strip()):
            found.setdefault(measure)
    return tuple(found)


def _entry(entry: str) -> list[Measure]:
    name, dot, cutoffs = entry.partition(".")
    if name in MEASURE_NAMES:
        return _trec_eval(entry, name, cutoffs if dot else None)
    matched = _IR_MEASURES.fullmatch(entry)
    synonym = _SYNONYMS.get(matched["name"].lower()) if matched else None
    if matched is None or synonym is None:
        known = ", ".join(MEASURE_NAMES)
        raise ConfigError(f"measure {entry!r} is unknown (trec_eval's names: {known}; or P@5, R@100, nDCG@10, AP, RR, ...)")
    with_cutoff, without = synonym
    if matched["k"] is None:
        if without is None:
            raise ConfigError(f"measure {entry!r} needs a cutoff, e.g. {matched['name']}@10")
        return [Measure(without)]
    return [Measure(with_cutoff, _cutoff(entry, matched["k"]))]


def _trec_eval(entry: str, name: MeasureName, cutoffs: str | None) -> list[Measure]:
    if not cut(name):
        if cutoffs is not None:
            raise ConfigError(f"measure {entry!r}: {name} takes no cutoff")
        return [Measure(name)]
    ks = DEFAULT_CUTOFFS[name] if cutoffs is None else [_cutoff(entry, text) for text in cutoffs.split(",")]
    return [Measure(name, k) for k in sorted(set(ks))]


def _cutoff(entry: str, text: str) -> int:
    value = text.strip()
    if not value.lstrip("+").isdigit() or int(value) <= 0:
        raise ConfigError(f"measure {entry!r}: cutoff {text!r} is not a positive whole number")
    return int(value)
