"""How a caller names measures: trec_eval's -m syntax (`P.5,10`, `iprec_at_recall.0.1,0.5`,
`utility.2,-1,0,0`, `map`, `all_trec`) or ir_measures' names (`P@5`, `nDCG@10`, `AP`, `MRR`,
`RR@10`, `IPrec@0.5`), each read from the catalogue, or as the reports name them (`ndcg@10`,
`map@10`, `P@5`, trec_eval's printed `P_5`, `ndcg_cut_10`, `iprec_at_recall_0.10`): every name a
report prints is taken back. A name alone takes trec_eval's defaults."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

from ndcg_spark.errors import ConfigError
from ndcg_spark.measures import catalogue
from ndcg_spark.measures.declaration import (
    ALL_TREC,
    COEFFICIENTS,
    CUTOFFS,
    LEVELS,
    NO_PARAMS,
    OFFICIAL,
    Declaration,
    Measure,
    level_text,
)

_log = logging.getLogger("ndcg_spark")
NAMED_SETS = (ALL_TREC, OFFICIAL)
_IR_MEASURES = re.compile(r"(?P<name>[A-Za-z][A-Za-z_]*)(?P<params>\([^)]*\))?(?:@(?P<k>[^@]*))?")
# How many numbers a coefficients measure takes (None: one or more).
_COEFFICIENT_COUNTS = {"utility": 4, "set_F": 1, "rbp": 1}


def supported_names() -> list[str]:
    return [declaration.name for declaration in catalogue.CATALOGUE if declaration.supported]


def parse_measures(entries: str | Iterable[str]) -> tuple[Measure, ...]:
    """Every measure asked for, in the order first asked, each once. `entries` is one entry or
    several (--measure repeated). A name we do not know, a trec_eval measure not supported yet, a
    cutoff on a measure that takes none or a bad parameter is a ConfigError naming the entry."""
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


def measures_of_set(name: str) -> list[Measure]:
    """trec_eval's named set (all_trec, official): every supported member at its defaults, and its
    text members (runid, relstring) for trec_eval's printed report. The members not supported yet
    are named in one warning, so that a missing line is never silent."""
    members = [declaration for declaration in catalogue.CATALOGUE if name in declaration.sets]
    missing = [declaration.name for declaration in members if not declaration.supported and not declaration.text]
    if missing:
        _log.warning("%s: trec_eval's %s not supported yet, left out", name, ", ".join(missing))
    # The text members (runid, relstring) stay, for trec_eval's printed report; nothing scores them.
    kept = [declaration for declaration in members if declaration.supported or declaration.text]
    return [measure for declaration in kept for measure in declaration.default_measures()]


def _entry(entry: str) -> list[Measure]:
    if entry in NAMED_SETS:
        return measures_of_set(entry)
    name, dot, params = entry.partition(".")
    if name in catalogue.BY_NAME:
        return _trec_eval(entry, catalogue.BY_NAME[name], params if dot else None)
    labelled = _label(entry)
    if labelled is not None:
        return labelled
    printed = _printed(entry)
    if printed is not None:
        return printed
    return _ir_measures(entry)


def _label(entry: str) -> list[Measure] | None:
    """A cut measure as the tables head it (catalogue.label: ndcg@10, map@10, P@5, recip_rank@10),
    or None when the entry is not one."""
    head, at, k = entry.rpartition("@")
    if not at:
        return None
    for declaration in catalogue.CATALOGUE:
        if declaration.takes_cutoff and declaration.params != LEVELS and catalogue.cut_head(declaration.name) == head:
            if not declaration.supported:
                raise _unsupported(entry, declaration)
            return [Measure(declaration.name, _cutoff(entry, k))]
    return None


def _unsupported(entry: str, declaration: Declaration) -> ConfigError:
    if declaration.text:
        return ConfigError(
            f"measure {entry!r}: trec_eval's {declaration.name} is text, not a number: the reports leave it out, and"
            " ndcg-spark trec_eval prints it"
        )
    return ConfigError(
        f"measure {entry!r}: trec_eval's {declaration.name} is not supported yet (supported: {', '.join(supported_names())})"
    )


def _trec_eval(entry: str, declaration: Declaration, params: str | None) -> list[Measure]:
    if not declaration.supported:
        raise _unsupported(entry, declaration)
    if params is None:
        return declaration.default_measures()
    if declaration.params == NO_PARAMS:
        raise ConfigError(f"measure {entry!r}: {declaration.name} takes no cutoff{_cut_hint(declaration, params)}")
    if declaration.params == CUTOFFS:
        return [Measure(declaration.name, k) for k in sorted({_cutoff(entry, text) for text in params.split(",")})]
    if declaration.params == LEVELS:
        levels = sorted({_number(entry, text) for text in params.split(",")})
        return [Measure(declaration.name, None, level_text(level)) for level in levels]
    assert declaration.params == COEFFICIENTS
    if declaration.param_names and "=" in params:
        return [Measure(declaration.name, None, _named(entry, declaration, params))]
    values = [_number(entry, text) for text in params.split(",")]
    count = _COEFFICIENT_COUNTS.get(declaration.name)
    if count is not None and len(values) != count:
        raise ConfigError(f"measure {entry!r}: {declaration.name} takes {count} number(s), got {len(values)}")
    return [Measure(declaration.name, None, params)]


def _named(entry: str, declaration: Declaration, params: str) -> str:
    """trec_eval 10.0's name=value parameters (rbp.p=0.8), checked; kept as given, as trec_eval
    prints them (rbp_p=0.8)."""
    for part in params.split(","):
        name, equals, value = part.partition("=")
        if not equals or name not in declaration.param_names:
            known = ", ".join(f"{known}=..." for known in declaration.param_names)
            raise ConfigError(f"measure {entry!r}: {declaration.name} takes {known}, got {part!r}")
        _number(entry, value)
    return params


def _cut_hint(declaration: Declaration, params: str) -> str:
    """Where the cut measure lives: map_cut.10 for map.10, RR@10 for recip_rank.10."""
    if f"{declaration.name}_cut" in catalogue.BY_NAME:
        return f"; ask for {declaration.name}_cut.{params}"
    if declaration.ir_cutoff and declaration.ir_measures_cut:
        return f"; ir_measures' {declaration.ir_measures_cut[0]}@{params} is cut at {params}"
    return ""


def _printed(entry: str) -> list[Measure] | None:
    """The measure of a name as trec_eval prints it (P_10 as P.10, ndcg_cut_10, iprec_at_recall_0.10,
    recip_rank_10 as RR@10), or None when it is not one."""
    for declaration in sorted(catalogue.CATALOGUE, key=lambda item: -len(item.name)):
        prefix = declaration.name + "_"
        params = entry[len(prefix) :] if entry.startswith(prefix) else ""
        if params and declaration.params != NO_PARAMS:
            return _trec_eval(entry, declaration, params)
        if params and declaration.ir_cutoff:
            return [Measure(declaration.name, _cutoff(entry, params))]
    return None


def _ir_measures(entry: str) -> list[Measure]:
    matched = _IR_MEASURES.fullmatch(entry)
    if matched is None:
        raise _unknown(entry)
    # Names as ir_measures.parse_measure takes them: with case (nDCG, NDCG; not ndcg, which is trec_eval's).
    name, k = matched["name"], matched["k"]
    uncut = next((item for item in catalogue.CATALOGUE if name in item.ir_measures), None)
    cut = next((item for item in catalogue.CATALOGUE if name in item.ir_measures_cut), None)
    if uncut is None and cut is None:
        raise _unknown(entry)
    if matched["params"]:
        ir_parameters(entry)  # checked here; Options applies them (implied_options)
    if k is None:
        if uncut is None:
            raise ConfigError(f"measure {entry!r} needs a cutoff, e.g. {matched['name']}@10")
        return [Measure(uncut.name)]
    if cut is None:
        assert uncut is not None
        raise ConfigError(f"measure {entry!r}: {matched['name']} takes no cutoff (trec_eval's {uncut.name})")
    if cut.params == LEVELS:
        return [Measure(cut.name, None, level_text(_number(entry, k)))]
    return [Measure(cut.name, _cutoff(entry, k))]


# ir_measures' parameters in parentheses, as the evaluation's options of the same meaning: each
# parameter, the option it sets, how its text reads, and the declarations that take it.
_NDCG_FAMILY = catalogue.NDCG_MEASURES
_NOT_BY_LEVEL = (*_NDCG_FAMILY, "err", "judged", "num_q", "num_ret")


def _gain_of_dcg(text: str) -> str:
    gains = {"log2": "linear", "exp-log2": "exponential"}
    if text not in gains:
        raise ValueError("dcg is log2 or exp-log2")
    return gains[text]


def _flag(text: str) -> bool:
    if text not in ("True", "False"):
        raise ValueError("True or False")
    return text == "True"


def _gain_table(text: str) -> dict[int, float]:
    inner = text.strip()
    if not (inner.startswith("{") and inner.endswith("}")):
        raise ValueError("a table of grade: gain, e.g. {0:0,1:1,2:3}")
    table = {}
    for pair in filter(None, (part.strip() for part in inner[1:-1].split(","))):
        grade, colon, gain = pair.partition(":")
        if not colon:
            raise ValueError(f"{pair!r} is not grade:gain")
        table[int(grade)] = float(gain)
    return table


def _level(text: str) -> int:
    return int(text)


_IR_PARAMETERS: dict[str, tuple[str, Any, Any]] = {
    "dcg": ("gain", _gain_of_dcg, lambda name: name in _NDCG_FAMILY),
    "gains": ("gains", _gain_table, lambda name: name in _NDCG_FAMILY),
    "judged_only": ("judged_only", _flag, lambda name: name in (*_NDCG_FAMILY, "map", "map_cut")),
    "rel": ("relevance_level", _level, lambda name: name not in _NOT_BY_LEVEL),
}
_PARAMETER = re.compile(r"\s*([A-Za-z_]+)\s*=\s*(\{[^}]*\}|[^,]+)\s*(?:,|$)")


def ir_parameters(entry: str) -> dict[str, Any]:
    """The options an ir_measures name's parameters ask for (nDCG(dcg=exp-log2)@10: gain
    exponential; P(rel=2)@5: relevance_level 2), checked; {} for a name without them."""
    matched = _IR_MEASURES.fullmatch(entry)
    if matched is None or not matched["params"]:
        return {}
    (measure, *_) = _ir_measures(_without_params(entry))
    text, found = matched["params"][1:-1], {}
    for part in _PARAMETER.finditer(text):
        name, value = part[1], part[2].strip()
        if name not in _IR_PARAMETERS or not _IR_PARAMETERS[name][2](measure.name):
            known = ", ".join(key for key, (_, _, takes) in _IR_PARAMETERS.items() if takes(measure.name)) or "none"
            raise ConfigError(f"measure {entry!r}: {matched['name']} takes no parameter {name!r} here (it takes: {known})")
        option, read, _ = _IR_PARAMETERS[name]
        try:
            found[option] = read(value)
        except ValueError as error:
            raise ConfigError(f"measure {entry!r}: {name}={value}: {error}") from None
    if "".join(part[0] for part in _PARAMETER.finditer(text)).replace(" ", "") != text.replace(" ", ""):
        raise ConfigError(f"measure {entry!r}: parameters are name=value, comma-separated")
    return found


def _without_params(entry: str) -> str:
    """The ir_measures name without its parameters: nDCG(dcg=exp-log2)@10 -> nDCG@10."""
    head, _, rest = entry.partition("(")
    return head + rest.partition(")")[2]


def implied_options(entries: Iterable[object]) -> dict[str, tuple[Any, str]]:
    """option -> (value, the entry that asks for it), of every measure name given with ir_measures'
    parameters. One evaluation scores a measure one way: two entries that ask for different values,
    or one of a family with parameters beside one of it without (nDCG(dcg=exp-log2)@10 and
    nDCG@5), are refused."""
    implied: dict[str, tuple[Any, str]] = {}
    by_family: dict[str, dict[str, tuple[dict[str, Any], str]]] = {}
    for entry in entries:
        # trec_eval's names (P, map, ndcg_cut.10) follow the options: only ir_measures' are read.
        if not isinstance(entry, str) or _IR_MEASURES.fullmatch(entry) is None or entry.partition(".")[0] in catalogue.BY_NAME:
            continue
        found = ir_parameters(entry)
        family = _IR_MEASURES.fullmatch(entry)["name"]  # type: ignore[index]
        by_family.setdefault(family, {})[entry] = (found, entry)
        for option, value in found.items():
            if option in implied and implied[option][0] != value:
                raise ConfigError(
                    f"measures {implied[option][1]!r} and {entry!r} ask for two values of {option}; one evaluation has one:"
                    " evaluate them apart"
                )
            implied.setdefault(option, (value, entry))
    for family, asked in by_family.items():
        settings = {repr(sorted(found.items())) for found, _ in asked.values()}
        if len(settings) > 1:
            names = " and ".join(repr(entry) for entry in asked)
            raise ConfigError(f"measures {names} ask for {family} two ways; one evaluation scores it one way: evaluate apart")
    return implied


def _unknown(entry: str) -> ConfigError:
    return ConfigError(
        f"measure {entry!r} is unknown (trec_eval's names: {', '.join(supported_names())}, or all_trec, official;"
        " ir_measures': P@5, R@100, nDCG@10, AP, RR@10, ...)"
    )


def _cutoff(entry: str, text: str) -> int:
    value = text.strip()
    if not value.lstrip("+").isdigit() or int(value) <= 0:
        raise ConfigError(f"measure {entry!r}: cutoff {text!r} is not a positive whole number")
    return int(value)


def _number(entry: str, text: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise ConfigError(f"measure {entry!r}: {text!r} is not a number") from None


def scored(measures: Iterable[Measure]) -> list[Measure]:
    """The measures that have per-query values: all but the text ones (runid, relstring)."""
    return [measure for measure in measures if not catalogue.BY_NAME[measure.name].text]


def takes_cutoff(name: str) -> bool:
    """Whether trec_eval's measure `name` takes cutoffs (ndcg_cut, P, recall, map_cut, ...)."""
    declaration = catalogue.BY_NAME.get(name)
    return declaration is not None and declaration.params == CUTOFFS
