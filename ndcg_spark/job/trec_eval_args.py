"""trec_eval's command line, read as trec_eval reads it: `-mndcg.1=3,2=9` is a gain per grade for
ndcg alone, and a cutoff such as 23.4 is read as 23 (with a warning), where --measure refuses it.
Flags this command does not support are refused, each by name, before any input is read."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from ndcg_spark.errors import ConfigError
from ndcg_spark.measures import parse_measures
from ndcg_spark.measures.declaration import OFFICIAL
from ndcg_spark.report.trec_eval_lines import RELSTRING, RELSTRING_LENGTH

# trec_eval 10.0's flags this command does not take, and what each is.
UNSUPPORTED = {
    "-D": "debug output",
    "-N": "the number of documents in the collection (utility's d coefficient)",
    "-R": "other judgment formats",
    "-T": "other result formats",
    "-Z": "z-score normalization",
    "-o": "the old output format",
    "-h": "trec_eval's help (ndcg-spark trec_eval --help has this command's)",
    "-v": "trec_eval's version",
}
_FLAG = re.compile(r"-([A-Za-z])(.*)")
_GAIN_PAIR = re.compile(r"(-?\d+)=(-?[0-9.]+)")
USAGE = "usage: ndcg-spark trec_eval [-q] [-c] [-J] [-n] [-l LEVEL] [-M DEPTH] [-m MEASURE]... [--engine local|spark] QRELS RUN"
Engine = Literal["local", "spark"]
ENGINES: tuple[Engine, ...] = get_args(Engine)
ENGINE_FLAG = "--engine"
HELP_FLAG = "--help"


@dataclass(frozen=True)
class TrecEvalArgs:
    """trec_eval's command line, read as trec_eval reads it."""

    qrels: str
    run: str
    per_query: bool = False
    complete: bool = False
    judged_only: bool = False
    summary: bool = True
    level: int = 1
    max_depth: int | None = None
    measures: tuple[str, ...] = (OFFICIAL,)
    ndcg_gains: tuple[tuple[int, float], ...] = ()
    ndcg_gains_text: str = ""
    relstring: int | None = None
    runid: bool = False
    warnings: tuple[str, ...] = field(default_factory=tuple)
    engine: Engine = "local"


def _whole(flag: str, text: str) -> int:
    if not text.lstrip("-").isdigit():
        raise ConfigError(f"trec_eval {flag}: {text!r} is not a whole number")
    return int(text)


def parse(argv: Sequence[str]) -> TrecEvalArgs:
    """trec_eval's flags (a value glued to its flag, -l2, or the next argument, -l 2), then the
    qrels and the run. A usage error names the flag."""
    switches: set[str] = set()
    numbers: dict[str, int] = {}
    measures: list[str] = []
    warnings: list[str] = []
    positional: list[str] = []
    engine: Engine = "local"
    items = list(argv)
    while items:
        item = items.pop(0)
        if item == ENGINE_FLAG or item.startswith(ENGINE_FLAG + "="):
            engine = _engine(item, items)
            continue
        matched = _FLAG.fullmatch(item) if item.startswith("-") and len(item) > 1 else None
        if matched is None:
            positional.append(item)
            continue
        letter, glued = matched[1], matched[2]
        flag = f"-{letter}"
        if flag in UNSUPPORTED:
            raise ConfigError(f"trec_eval {flag} ({UNSUPPORTED[flag]}) is not supported by ndcg-spark trec_eval")
        if letter in "qcJn" and not glued:
            switches.add(letter)
        elif letter in "lmM":
            if not glued and not items:
                raise ConfigError(f"trec_eval {flag} needs a value ({USAGE})")
            value = glued or items.pop(0)
            if letter == "m":
                measures.append(value)
            else:
                numbers[letter] = _whole(flag, value)
        else:
            raise ConfigError(f"trec_eval {item}: unknown flag ({USAGE})")
    if len(positional) != 2:
        raise ConfigError(f"trec_eval takes a qrels file and a run file ({USAGE})")
    asked, gains, gains_text, relstring = _measures(measures or [OFFICIAL], warnings)
    parse_measures(asked or [OFFICIAL])  # an unknown measure is a usage error now, before Spark starts
    return TrecEvalArgs(
        positional[0],
        positional[1],
        per_query="q" in switches,
        complete="c" in switches,
        judged_only="J" in switches,
        summary="n" not in switches,
        level=numbers.get("l", 1),
        max_depth=numbers.get("M"),
        measures=tuple(asked),
        ndcg_gains=gains,
        ndcg_gains_text=gains_text,
        relstring=relstring,
        runid=any(entry in (OFFICIAL, "all_trec", "runid") for entry in measures or [OFFICIAL]),
        warnings=tuple(warnings),
        engine=engine,
    )


def _engine(item: str, items: list[str]) -> Engine:
    """--engine's value, glued (--engine=spark) or the next argument."""
    glued, _, value = item.partition("=")
    if not value:
        if not items:
            raise ConfigError(f"{ENGINE_FLAG} needs a value: {' or '.join(ENGINES)}")
        value = items.pop(0)
    for engine in ENGINES:
        if value == engine:
            return engine
    raise ConfigError(f"{ENGINE_FLAG} {value!r}: must be {' or '.join(ENGINES)}")


def relstring_name(args: TrecEvalArgs) -> str:
    """trec_eval's name of the relstring line: relstring, or relstring_N for another length."""
    return RELSTRING if args.relstring in (None, RELSTRING_LENGTH) else f"{RELSTRING}_{args.relstring}"


def _measures(entries: list[str], warnings: list[str]) -> tuple[list[str], tuple[tuple[int, float], ...], str, int | None]:
    """-m's entries as --measure takes them: ndcg's gains apart, relstring apart (text), cutoffs
    that are not whole read as trec_eval reads them (atol: 23.4 is 23)."""
    asked: list[str] = []
    gains: tuple[tuple[int, float], ...] = ()
    gains_text = ""
    relstring: int | None = None
    for entry in entries:
        name, dot, params = entry.partition(".")
        if name == "ndcg" and dot and "=" in params:
            pairs = [_GAIN_PAIR.fullmatch(part) for part in params.split(",")]
            if not all(pairs):
                raise ConfigError(f"trec_eval -m {entry}: ndcg's parameters are GRADE=GAIN pairs")
            gains = tuple((int(p[1]), float(p[2])) for p in pairs if p)
            gains_text = params
            asked.append("ndcg")
        elif entry == "runid":
            continue
        elif name == "relstring":
            relstring = _whole("-m relstring", params) if dot else RELSTRING_LENGTH
        elif entry in ("all_trec", OFFICIAL):
            asked.append(entry)
            relstring = RELSTRING_LENGTH if entry == "all_trec" and relstring is None else relstring
        elif dot and name in ("ndcg_cut", "P", "recall", "map_cut", "relative_P", "success", "unj"):
            cutoffs = []
            for text in params.split(","):
                whole = re.match(r"\s*(\d+)", text)
                if whole and whole[0].strip() != text.strip():
                    warnings.append(f"trec_eval -m {entry}: cutoff {text} read as {whole[1]}, as trec_eval reads it")
                cutoffs.append(whole[1] if whole else text)
            asked.append(f"{name}.{','.join(cutoffs)}")
        else:
            asked.append(entry)
    return asked, gains, gains_text, relstring
