"""`ndcg-spark trec_eval [-q] [-c] [-J] [-n] [-l N] [-M N] [-m MEASURE]... QRELS RUN`: trec_eval's
command line, printing to stdout what trec_eval prints, line for line, so that a team's scripts
switch by changing the command's name.

trec_eval's own reading of its flags wins here: `-mndcg.1=3,2=9` is a gain per grade for ndcg
alone, and a cutoff such as 23.4 is read as 23 (with a warning), where --measure refuses it.
Flags this command does not support are refused, each by name. Everything is checked before
Spark starts."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.api import evaluate
from ndcg_spark.errors import ConfigError, InputError
from ndcg_spark.io.trec import QRELS, RUN, read_trec
from ndcg_spark.job.session import BASE_CONF, quiet_conf
from ndcg_spark.measures import Measure, parse_measures, scored
from ndcg_spark.measures.declaration import OFFICIAL
from ndcg_spark.option_values import ColumnNames
from ndcg_spark.report.relstring import DEFAULT_LENGTH, relstrings
from ndcg_spark.report.trec_eval import report_lines, sorted_lines

COMMAND = "trec_eval"
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
USAGE = "usage: ndcg-spark trec_eval [-q] [-c] [-J] [-n] [-l LEVEL] [-M DEPTH] [-m MEASURE]... QRELS RUN"


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
    items = list(argv)
    while items:
        item = items.pop(0)
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
    )


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
            relstring = _whole("-m relstring", params) if dot else DEFAULT_LENGTH
        elif entry in ("all_trec", OFFICIAL):
            asked.append(entry)
            relstring = DEFAULT_LENGTH if entry == "all_trec" and relstring is None else relstring
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


def _printed(
    per_query: DataFrame, summary: DataFrame, asked: tuple[Measure, ...], gains_text: str
) -> tuple[DataFrame, DataFrame]:
    """The rows of the measures asked for (evaluate also reports NDCG at its own cutoffs), ndcg
    under trec_eval's name with its gains (ndcg_1=3,2=9)."""
    keys = {(m.reported, m.k) for m in asked}
    wanted = F.lit(False)
    for reported, k in keys:
        wanted = wanted | ((F.col(c.MEASURE) == reported) & (F.col(c.K).isNull() if k is None else F.col(c.K) == k))
    renamed = F.when(F.col(c.MEASURE) == c.MEASURE_UNCUT, F.lit(f"ndcg_{gains_text}")).otherwise(F.col(c.MEASURE))
    if gains_text:
        return per_query.filter(wanted).withColumn(c.MEASURE, renamed), summary.filter(wanted).withColumn(c.MEASURE, renamed)
    return per_query.filter(wanted), summary.filter(wanted)


def _score(args: TrecEvalArgs, judgments: DataFrame, results: DataFrame) -> tuple[DataFrame, DataFrame, DataFrame]:
    """per_query and summary of what -m asked, and the (run, query) pairs evaluated. trec_eval
    gives ndcg's gains to ndcg alone: with gains, ndcg is scored apart and the rest without them."""
    asked = scored(parse_measures(args.measures)) if args.measures else []
    options: dict[str, Any] = {"complete": args.complete, "judged_only": args.judged_only, "max_depth": args.max_depth}
    plain = tuple(m for m in asked if not (args.ndcg_gains and m.name == c.MEASURE_UNCUT))
    frames = []
    if plain or not args.ndcg_gains:  # nothing numeric asked (-m relstring): the pairs alone
        measures = [m.asked for m in plain]
        report = evaluate(judgments, results, ks=(10,), measures=measures, relevance_level=args.level, **options)
        frames.append(_printed(report.per_query, report.summary, plain, ""))
        pairs = report.per_query.select(c.RUN_ID, c.QUERY_ID).distinct()
    if args.ndcg_gains:
        gained = evaluate(judgments, results, ks=(10,), gains=dict(args.ndcg_gains), relevance_level=args.level, **options)
        frames.append(_printed(gained.per_query, gained.summary, (Measure(c.MEASURE_UNCUT),), args.ndcg_gains_text))
        pairs = gained.per_query.select(c.RUN_ID, c.QUERY_ID).distinct()
    per_query, summary = frames[0]
    for more_per_query, more_summary in frames[1:]:
        per_query, summary = per_query.unionByName(more_per_query), summary.unionByName(more_summary)
    return per_query, summary, pairs


def run(spark: SparkSession, args: TrecEvalArgs) -> list[str]:
    """trec_eval's printed lines for these inputs: one run (trec_eval reads one per file)."""
    names = ColumnNames()
    judgments = read_trec(spark, args.qrels, "qrels", QRELS, names)
    results = read_trec(spark, args.run, "run", RUN, names)
    runs = [row[0] for row in results.select(c.RUN_ID).distinct().limit(2).collect()]
    if len(runs) != 1:
        raise InputError(f"run {args.run}: column 'run_id': {len(runs)} run names; trec_eval reads one run per file")
    per_query, summary, pairs = _score(args, judgments, results)
    texts = None
    if args.relstring is not None and args.per_query:
        texts = relstrings(
            judgments,
            results,
            pairs,
            args.relstring,
            judged_only=args.judged_only,
            max_depth=args.max_depth,
        )
    if not args.per_query:
        per_query = per_query.limit(0)
    name = "relstring" if args.relstring in (None, DEFAULT_LENGTH) else f"relstring_{args.relstring}"
    runids = results.select(c.RUN_ID).distinct() if args.runid else None
    lines = report_lines(per_query, summary, texts, name, summary_lines=args.summary, runids=runids)
    return [row[0] for row in sorted_lines(lines, runs[0]).toLocalIterator()]


def main(argv: Sequence[str]) -> None:
    """Parse (before Spark), then score and print trec_eval's lines to stdout; Spark's own logs
    and the warnings go to stderr."""
    args = parse(argv)
    for warning in args.warnings:
        print(f"ndcg-spark trec_eval: warning: {warning}", file=sys.stderr)
    builder = SparkSession.builder.appName("ndcg-spark trec_eval")
    for key, value in {**BASE_CONF, **quiet_conf(), "spark.ui.showConsoleProgress": "false"}.items():
        builder = builder.config(key, value)
    for line in run(builder.getOrCreate(), args):
        print(line)
