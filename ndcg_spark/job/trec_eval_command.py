"""`ndcg-spark trec_eval [-q] [-c] [-J] [-n] [-l N] [-M N] [-m MEASURE]... QRELS RUN`: trec_eval's
command line, printing to stdout what trec_eval prints, line for line, so that a team's scripts
switch by changing the command's name.

Its flags are read as trec_eval reads them (trec_eval_args.py), before any input is read. It runs
on the embedded engine, in-process (--engine local, the default: trec_eval's own test files
answer in well under a second); --engine spark runs the same evaluation on Spark, for inputs a
machine cannot hold. Both print the same bytes."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ndcg_spark.errors import InputError
from ndcg_spark.job.trec_eval_args import ENGINE_FLAG, HELP_FLAG, USAGE, parse
from ndcg_spark.measures import supported_names

COMMAND = "trec_eval"


def help_text() -> str:
    """--help: the command line, its flags, and the measures -m takes."""
    flags = [
        ("-q", "print each query's values, then the summary ('all')"),
        ("-c", "average over every judged query: a query the run lacks scores 0"),
        ("-J", "judged documents only: unjudged ones leave the list before positions are counted"),
        ("-n", "no summary lines (with -q: the queries' lines alone)"),
        ("-l LEVEL", "the grade from which a document is relevant to the binary measures (default 1)"),
        ("-M DEPTH", "cut each ranked list after its first DEPTH documents"),
        ("-m MEASURE", "a measure, with its parameters (P.5,10; ndcg_cut.10; ndcg.1=3,2=9), or a set: official, all_trec"),
        (
            f"{ENGINE_FLAG} local|spark",
            "local (default): in-process, no JVM; spark: on Spark, for inputs too big for one machine",
        ),
        (HELP_FLAG, "this text"),
    ]
    lines = [USAGE, "", "trec_eval 10.0's command line and output, line for line.", "", "flags:"]
    lines += [f"  {flag:<22}{meaning}" for flag, meaning in flags]
    lines += ["", "measures (-m):", *_wrapped(sorted(supported_names(), key=str.lower))]
    return "\n".join(lines)


def _wrapped(names: list[str], width: int = 96) -> list[str]:
    lines, line = [], " "
    for name in names:
        if len(line) + len(name) + 1 > width:
            lines.append(line)
            line = " "
        line += f" {name}"
    return [*lines, line]


def main(argv: Sequence[str]) -> None:
    """Parse (before any input is read), then score and print trec_eval's lines to stdout; the
    warnings (and Spark's own logs) go to stderr."""
    if HELP_FLAG in argv:
        print(help_text())
        return
    args = parse(argv)
    for warning in args.warnings:
        print(f"ndcg-spark trec_eval: warning: {warning}", file=sys.stderr)
    try:
        if args.engine == "spark":
            from ndcg_spark.job.trec_eval_spark import spark_lines

            lines = spark_lines(args)
        else:
            from ndcg_spark.job.trec_eval_local import local_lines

            lines = local_lines(args)
    except InputError as error:
        # trec_eval's behaviour is the command's: the job's settings that would accept the input
        # (--duplicate-results keep_best, ...) are not this command's flags.
        error.remedy = None
        raise
    sys.stdout.write("".join(f"{line}\n" for line in lines))
