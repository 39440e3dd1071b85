"""The choices an evaluation takes, each declared once: its type and default (the field), how its
value is checked, and how each caller spells it (the Python keyword is the field's name; the
command's flag and the config file's key are in its declaration).

The job's command line, its config file, `evaluate()`'s keywords, the validation, the manifest
and the table in docs/options.md are all derived from these declarations, so a new option is one
field here plus its logic."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from ndcg_spark.declarations import WHOLE_TABLE, check, declared, recorded, setting, settings_table
from ndcg_spark.declarations import checked as checked_values
from ndcg_spark.declarations import spelling as spelling_of
from ndcg_spark.errors import ConfigError
from ndcg_spark.measures import NDCG_CUT, NDCG_MEASURES, NDCG_UNCUT, Measure, parse_measures, scored
from ndcg_spark.measures.names import implied_options
from ndcg_spark.option_values import (
    JUDGMENT_COLUMNS,
    RESULT_COLUMNS,
    ColumnNames,
    GainTable,
    Renames,
    column_names,
    count,
    format_gains,
    input_renames,
    parse_gains,
    parse_ks,
    parse_names,
)
from ndcg_spark.remedies import Setting

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

ResamplingEngine = Literal["auto", "arrays", "rows"]
# Where trec_eval's versions compute a measure differently, whose rule to follow: 10.0's (the
# default), or 9's, which pytrec_eval and ir_measures bundle (iprec_at_recall and 11pt_avg turn a
# recall level into a count of relevant documents as (long)(level x R + 0.9) where 10.0 rounds).
TrecEvalVersion = Literal[9, 10]
TREC_EVAL_VERSIONS: tuple[TrecEvalVersion, ...] = (9, 10)
TREC_EVAL_10: TrecEvalVersion = 10
RESAMPLING_AUTO: ResamplingEngine = "auto"
RESAMPLING_ARRAYS: ResamplingEngine = "arrays"
RESAMPLING_ROWS: ResamplingEngine = "rows"
RESAMPLING_ENGINES: tuple[ResamplingEngine, ...] = get_args(ResamplingEngine)

# Which engine evaluates: spark (a SparkSession, any size), local (the embedded engine, in this
# process, no JVM: data that fits one machine), or auto: local when every path is local and the
# inputs are small enough (job/engine.py says how it decides), else spark.
Engine = Literal["auto", "local", "spark"]
ENGINE_AUTO: Engine = "auto"
ENGINE_LOCAL: Engine = "local"
ENGINE_SPARK: Engine = "spark"
ENGINES: tuple[Engine, ...] = get_args(Engine)

DEFAULT_KS = (5, 10, 20)
DEFAULT_RUN_ID = "run"
# Enough for p-values and interval ends to about +-0.01 (binomial error at 1000 draws); each
# costs two hashes per query and compared run.
DEFAULT_PERMUTATIONS = 1000
DEFAULT_BOOTSTRAP = 1000
DEFAULT_SEED = 42
MAX_RESAMPLES = 1_000_000
MAX_SEED = 2**31 - 1
MAX_DEPTH = 2**31 - 1

# The config file's tables that hold options.
EVALUATION, VALIDATION, COMPARISON, SLICES, COLUMNS = "evaluation", "validation", "comparison", "slices", "columns"


def option(default: Any, help: str, section: str, **declared: Any) -> Any:  # noqa: A002 - argparse's word
    """A field of Options with its declaration (declarations.Declared)."""
    return setting(default, help, section, **declared)


def _run_name(value: Any) -> str:
    if not str(value):
        raise ConfigError("run-id must not be empty")
    return str(value)


def _baseline(value: Any) -> str | None:
    if value is not None and not str(value):
        raise ConfigError("baseline must name a run, got an empty string")
    return None if value is None else str(value)


def _trec_eval_version(value: Any) -> TrecEvalVersion:
    text = str(value).strip()
    for version in TREC_EVAL_VERSIONS:
        if text == str(version) and not isinstance(value, bool):
            return version
    raise ConfigError(f"trec_eval_version must be 9 or 10, got {value!r}")


def _max_depth(value: Any) -> int | None:
    return None if value is None else count("max_depth", value, 1, MAX_DEPTH)


def _measures(value: Any) -> tuple[Measure, ...]:
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return ()
    items = [value] if isinstance(value, (str, Measure)) else list(value)
    # Measures already parsed stay as they are (RR@10 has no -m form to parse again).
    parsed = [measure for item in items for measure in ([item] if isinstance(item, Measure) else parse_measures([item]))]
    return tuple(dict.fromkeys(parsed))


MAX_RELEVANCE_LEVEL = 2**31 - 1


def _gains_table(table: GainTable) -> dict[str, float]:
    return {str(grade): gain for grade, gain in table}


@dataclass(frozen=True)
class Options:
    """How to score and compare: every choice of an evaluation except where the data lives."""

    ks: tuple[int, ...] = option(
        DEFAULT_KS, "cutoffs, positive integers, comma-separated", EVALUATION, key="k", flag="--k", parse=parse_ks
    )
    gain: Gain = option(GAIN_LINEAR, "linear (trec_eval) or exponential: 2^rel - 1", EVALUATION, choices=GAINS)
    gains: GainTable = option(
        (),
        "a gain per grade, GRADE=GAIN,... (e.g. 0=0,1=1,2=3,3=7; in Python also {2: 3, 3: 7}); other grades keep"
        " the gain's; write --gains=... if the first entry starts with -",
        EVALUATION,
        parse=parse_gains,
        record=_gains_table,
        shown="none",
    )
    judged_only: bool = option(
        False, "drop unjudged documents (and those graded < 0) before ranking (trec_eval -J)", EVALUATION, switch=True
    )
    max_depth: int | None = option(
        None, "cut each ordered list after N documents (trec_eval -M); the ideal is untouched", EVALUATION, parse=_max_depth
    )
    complete: bool = option(False, "every judged query counts; a run lacking it scores 0 (trec_eval -c)", EVALUATION, switch=True)
    uncut: bool = option(True, "also report the uncut NDCG (k empty), over each whole list", EVALUATION, switch=True)
    measures: tuple[Measure, ...] = option(
        (),
        "measures beside NDCG, in trec_eval's -m syntax (P.5,10; recall.100; map; recip_rank; bpref; infAP;"
        " iprec_at_recall.0.1,0.5; utility.2,-1,0,0; ...; all_trec and official for trec_eval's sets) or ir_measures'"
        " names (P@5, R@100, AP, MRR, RR@10, nDCG@10); the flag can be repeated; ndcg_cut.K adds K to the NDCG"
        " cutoffs (docs/semantics.md lists every measure)",
        EVALUATION,
        flag="--measure",
        parse=_measures,
        repeat=True,
        record=lambda measures: [measure.asked for measure in measures],
        shown="none",
    )
    relevance_level: int = option(
        1,
        "the grade from which a document counts as relevant for the binary measures (trec_eval -l); NDCG keeps its gains",
        EVALUATION,
        parse=lambda value: count("relevance_level", value, 1, MAX_RELEVANCE_LEVEL),
    )
    trec_eval_version: TrecEvalVersion = option(
        TREC_EVAL_10,
        "whose rules where trec_eval's versions differ: 10 (10.0's) or 9 (pytrec_eval's and ir_measures': iprec_at_recall"
        " and 11pt_avg count a recall level's documents as (long)(level x R + 0.9), where 10.0 rounds)",
        EVALUATION,
        parse=_trec_eval_version,
    )
    order_by: OrderBy = option(
        ORDER_BY_SCORE,
        "score (trec_eval: score descending, doc_id descending) or the results' rank column",
        EVALUATION,
        choices=ORDERS,
    )
    run_id: str = option(DEFAULT_RUN_ID, "the run's name when the results have no run_id column", EVALUATION, parse=_run_name)
    engine: Engine = option(
        ENGINE_AUTO,
        "local (in this process, no JVM), spark, or auto: local when every input and the output are local paths"
        " and the inputs are small enough for one machine, else spark (docs/engines.md); in Python: local for"
        " pandas, Polars and Arrow tables, spark for Spark DataFrames",
        EVALUATION,
        choices=ENGINES,
    )
    duplicate_judgments: DuplicateJudgments = option(
        ON_DUPLICATE_ERROR,
        "error (trec_eval) or keep_max: keep the highest grade of a document judged twice for one query",
        VALIDATION,
        choices=DUPLICATE_JUDGMENT_POLICIES,
    )
    duplicate_results: DuplicateResults = option(
        ON_DUPLICATE_ERROR,
        "error (trec_eval) or keep_best: keep the best-ranked copy of a document retrieved twice for one query and run",
        VALIDATION,
        choices=DUPLICATE_RESULT_POLICIES,
    )
    columns: ColumnNames = option(
        ColumnNames(),
        "the column names of both inputs, CANONICAL=YOURS,... (e.g. query_id=qid; in Python also a dict);"
        " judgments_columns and results_columns name one input's",
        COLUMNS,
        key=WHOLE_TABLE,
        parse=column_names,
        record=dataclasses.asdict,
        shown="the canonical names",
    )
    judgments_columns: Renames = option(
        (),
        "the judgments' own column names, over columns: CANONICAL=YOURS,... of query_id, doc_id, relevance"
        " (e.g. doc_id=docno,relevance=grade)",
        COLUMNS,
        key="judgments",
        parse=input_renames("judgments_columns", JUDGMENT_COLUMNS),
        record=dict,
        shown="none",
    )
    results_columns: Renames = option(
        (),
        "the results' own column names, over columns: CANONICAL=YOURS,... of query_id, doc_id, score, run_id, rank"
        " (e.g. doc_id=item,score=prediction)",
        COLUMNS,
        key="results",
        parse=input_renames("results_columns", RESULT_COLUMNS),
        record=dict,
        shown="none",
    )
    baseline: str | None = option(None, "the run every other run is compared against", COMPARISON, parse=_baseline)
    permutations: int = option(
        DEFAULT_PERMUTATIONS,
        "randomization-test draws (all 2^n sign flips, an exact test, when that is fewer)",
        COMPARISON,
        parse=lambda value: count("permutations", value, 1, MAX_RESAMPLES),
    )
    bootstrap: int = option(
        DEFAULT_BOOTSTRAP,
        "bootstrap resamples for the 95% interval",
        COMPARISON,
        parse=lambda value: count("bootstrap", value, 1, MAX_RESAMPLES),
    )
    seed: int = option(
        DEFAULT_SEED,
        "seed of both resampling tests: same seed, same numbers, whatever the cluster",
        COMPARISON,
        parse=lambda value: count("seed", value, 0, MAX_SEED),
    )
    resampling: ResamplingEngine = option(
        RESAMPLING_AUTO,
        "how the resampling tests' draws are computed, with the same numbers either way: arrays (numpy in Python"
        " workers; the executors need numpy and pyarrow), rows (Spark SQL alone, a row per query and draw; several"
        " times slower on many queries, faster on a few thousand), or auto: rows below 10^7 of them, else arrays",
        COMPARISON,
        choices=RESAMPLING_ENGINES,
    )
    slices: tuple[str, ...] = option(
        (),
        "query columns to summarize by, comma-separated: from the results or the query metadata",
        SLICES,
        key="columns",
        parse=lambda value: parse_names("slices", value),
        shown="none",
    )

    def validated(self) -> Options:
        """A copy with every value checked and normalized; every problem is a ConfigError. NDCG
        asked for by name joins ks and uncut, so that `measures` holds the others only. ir_measures'
        parameters (nDCG(dcg=exp-log2)@10) set the option of the same meaning (_implied)."""
        checked: Options = checked_values(self._implied())
        ndcg = [measure for measure in checked.measures if measure.name in NDCG_MEASURES]
        if not ndcg:
            return checked
        return dataclasses.replace(
            checked,
            ks=tuple(sorted({*checked.ks, *(measure.k for measure in ndcg if measure.k is not None)})),
            uncut=checked.uncut or any(measure.k is None for measure in ndcg),
            measures=tuple(measure for measure in checked.measures if measure.name not in NDCG_MEASURES),
        )

    def _implied(self) -> Options:
        """The options that measure names with ir_measures' parameters ask for, set where the
        caller left the default; one the caller set otherwise is refused, naming both."""
        entries = [self.measures] if isinstance(self.measures, str) else self.measures
        implied = implied_options(entries if isinstance(entries, (list, tuple)) else [])
        changes: dict[str, Any] = {}
        for item in declared(type(self)):
            if item.name not in implied:
                continue
            value, entry = implied[item.name]
            current = getattr(self, item.name)
            if current == item.default:
                changes[item.name] = value
            elif check(item, current) != check(item, value):
                raise ConfigError(f"measure {entry!r} asks for {item.name} {value!r}, but {item.name} is {current!r}: drop one")
        return dataclasses.replace(self, **changes) if changes else self

    @property
    def scored_measures(self) -> tuple[Measure, ...]:
        """Every (measure, k) scored, in the order the rows report them: NDCG at each of ks and,
        with uncut, over the whole list (what ks and uncut ask for), then the others."""
        ndcg = [Measure(NDCG_CUT, k) for k in self.ks] + ([Measure(NDCG_UNCUT)] if self.uncut else [])
        return (*ndcg, *scored(self.measures))

    @classmethod
    def of(cls, keywords: Mapping[str, Any]) -> Options:
        """Validated options from keyword arguments (evaluate's); an unknown keyword is a
        ConfigError that lists the known ones."""
        names = [item.name for item in declared(cls)]
        unknown = sorted(set(keywords) - set(names))
        if unknown:
            raise ConfigError(f"unknown option(s): {', '.join(unknown)} (known: {', '.join(names)})")
        return cls(**keywords).validated()

    def recorded(self) -> dict[str, Any]:
        """Every option as the manifest records it, under its keyword."""
        return recorded(self)

    @property
    def judgment_names(self) -> ColumnNames:
        """The judgments' column names: columns, with judgments_columns over them."""
        return dataclasses.replace(self.columns, **dict(self.judgments_columns))

    @property
    def result_names(self) -> ColumnNames:
        """The results' column names: columns, with results_columns over them."""
        return dataclasses.replace(self.columns, **dict(self.results_columns))

    @property
    def variant(self) -> str:
        """How the values were computed, beyond the cutoff: the `variant` column of the reports,
        so that two reports computed differently cannot be mistaken for each other."""
        level = self.relevance_level if self.measures else None
        variant = describe_variant(self.gain, self.gains, self.judged_only, self.max_depth, level)
        return variant if self.trec_eval_version == TREC_EVAL_10 else f"{variant};trec_eval_version={self.trec_eval_version}"


def spelling(name: str, kind: type[Options] = Options) -> Setting:
    """How the command, the config file and Python spell the option `name`."""
    return spelling_of(name, kind)


def options_table(kind: type[Options] = Options) -> str:
    """The Markdown table of docs/options.md: each option as each caller spells it."""
    return settings_table(kind)


def describe_variant(
    gain: Gain, gains: GainTable, judged_only: bool, max_depth: int | None, relevance_level: int | None = None
) -> str:
    """'gain=linear', then ';gains=2=3,3=7', ';judged_only', ';max_depth=N' when they are set, and
    ';relevance_level=N' when binary measures are reported at a level other than 1."""
    parts = [f"gain={gain}"]
    if gains:
        parts.append(f"gains={format_gains(gains)}")
    if judged_only:
        parts.append("judged_only")
    if max_depth is not None:
        parts.append(f"max_depth={max_depth}")
    if relevance_level is not None and relevance_level != 1:
        parts.append(f"relevance_level={relevance_level}")
    return ";".join(parts)
