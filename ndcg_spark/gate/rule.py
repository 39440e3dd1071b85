"""The gate's rule and its settings: a run fails at a (measure, k) when its mean fell by more than
the threshold *and* the fall is real: the paired randomization test's p, Holm-corrected across
runs, below alpha. A raw difference of means (MLflow's MetricThreshold, TFMA's
GenericChangeThreshold) fails on noise; a p-value alone fails on a drop too small to matter.

The settings are declared once (declarations.py): `gate()`'s keywords, the job's flags, the config
file's [gate] keys and the manifest's record all come from GateSettings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ndcg_spark.comparison.rows import Cutoff
from ndcg_spark.declarations import declared, setting
from ndcg_spark.declarations import spelling as spelled
from ndcg_spark.errors import ConfigError
from ndcg_spark.measures import Measure, parse_measures, report_order, takes_cutoff
from ndcg_spark.options import spelling
from ndcg_spark.remedies import VOICE_JOB, VOICE_PYTHON, Setting, Voice

GATE = "gate"  # the config file's table
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class Threshold:
    """How far a mean may fall: an amount of the measure (0.01), or a share of the reference's
    mean (2%, relative)."""

    amount: float
    relative: bool = False

    def __str__(self) -> str:
        return f"{self.amount * 100:g}%" if self.relative else f"{self.amount:g}"

    def exceeded(self, before: float, after: float) -> bool:
        """Whether the fall from `before` to `after` is larger than the threshold."""
        allowed = self.amount * abs(before) if self.relative else self.amount
        return before - after > allowed


def parse_threshold(value: Any) -> Threshold | None:
    """`0.01` (absolute) or `2%` (relative, of the reference's mean); None: no gate."""
    if value is None or isinstance(value, Threshold):
        return value
    text = str(value).strip()
    relative = text.endswith("%")
    try:
        amount = float(text.removesuffix("%")) / (100 if relative else 1)
    except ValueError:
        amount = -1.0
    if not amount >= 0 or amount == float("inf") or isinstance(value, bool):
        raise bad_threshold(value)
    return Threshold(amount, relative)


def bad_threshold(value: Any) -> ConfigError:
    return ConfigError(f"fail_on_drop must be a drop such as 0.01 (absolute) or 2% (relative), got {value!r}")


def parse_alpha(value: Any) -> float:
    try:
        alpha = float(value)
    except (TypeError, ValueError):
        alpha = -1.0
    if isinstance(value, bool) or not 0 < alpha < 1:
        raise ConfigError(f"alpha must be a significance level between 0 and 1, such as 0.05, got {value!r}")
    return alpha


def parse_entries(value: Any) -> tuple[str, ...]:
    """The measures to gate, each in --measure's syntax: a list, or text where trec_eval's
    NAME.K,K stays whole and other names are comma-separated."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else list(value)
    entries: list[str] = []
    for item in items:
        text = str(item).strip()
        entries += [text] if "." in text else [part.strip() for part in text.split(",") if part.strip()]
    return tuple(dict.fromkeys(entries))


@dataclass(frozen=True)
class GateSettings:
    """The gate as a caller asks for it (`gate()`'s keywords; the job's [gate]): off without a
    threshold."""

    fail_on_drop: Threshold | None = setting(
        None,
        "exit 4 when a run's mean falls by more than this (0.01, or 2% of the reference's mean) and the fall is"
        " significant; the report is published either way",
        GATE,
        parse=parse_threshold,
        record=str,
        group=GATE,
        shown="none (no gate)",
    )
    measures: tuple[str, ...] = setting(
        (),
        "a measure to gate, as --measure names it; repeatable",
        GATE,
        flag="--gate-measure",
        parse=parse_entries,
        record=list,
        repeat=True,
        group=GATE,
        shown="every cutoff of the first measure, NDCG",
    )
    alpha: float = setting(
        DEFAULT_ALPHA, "the significance level of the gate's Holm-corrected p", GATE, parse=parse_alpha, group=GATE
    )

    def rule(self, reported: Sequence[Cutoff], voice: Voice = VOICE_JOB) -> GateRule | None:
        """The rule over the report's cutoffs, or None when no gate is asked for."""
        if self.fail_on_drop is None:
            return None
        return GateRule(self.fail_on_drop, gated_cutoffs(self.measures, reported, voice), self.alpha)


def gate_spelling(name: str) -> Setting:
    """How each caller spells the gate's setting `name`."""
    return spelled(name, GateSettings)


GATE_KEYWORDS = tuple(item.name for item in declared(GateSettings))


@dataclass(frozen=True)
class GateRule:
    """Fail a (run, measure, k) of `cutoffs` when its mean falls by more than `threshold` and the
    Holm-corrected randomization p is below `alpha`."""

    threshold: Threshold
    cutoffs: tuple[Cutoff, ...]
    alpha: float = DEFAULT_ALPHA


def gated_cutoffs(entries: Sequence[str], reported: Sequence[Cutoff], voice: Voice = VOICE_JOB) -> tuple[Cutoff, ...]:
    """The (measure, k) to gate: each entry in --measure's syntax (a measure with cutoffs and none
    given: every reported cutoff of it); none given, every reported cutoff of the first measure.
    An entry the report does not hold is a ConfigError listing what it holds."""
    if not reported:
        return ()
    if not entries:
        first = reported[0].measure
        return tuple(item for item in reported if item.measure == first)
    chosen: dict[Cutoff, None] = {}
    name = gate_spelling("measures").keyword + " entry" if voice == VOICE_PYTHON else gate_spelling("measures").flag
    for entry in entries:
        bare = str(entry).strip()
        if bare in {item.measure for item in reported} and takes_cutoff(bare):
            measures: Iterable[Measure | Cutoff] = [item for item in reported if item.measure == bare]
        else:
            measures = parse_measures(bare)
        for measure in measures:
            wanted = Cutoff(measure.reported if isinstance(measure, Measure) else measure.measure, measure.k)
            if wanted not in reported:
                held = ", ".join(item.asked for item in reported)
                raise ConfigError(f"{name} {entry!r} is not in the report (it holds {held}); {_ask_for_it(voice)}")
            chosen.setdefault(wanted)
    return tuple(sorted(chosen, key=lambda item: report_order(item.measure, item.k)))


def _ask_for_it(voice: Voice) -> str:
    """How the caller has a report computed with a measure or cutoff it lacks."""
    measures, ks = spelling("measures"), spelling("ks")
    if voice == VOICE_PYTHON:
        return f"evaluate with it: pass {measures.keyword}=[...] or {ks.keyword}=[...] to evaluate()"
    return (
        f"ask for it with {measures.flag} or {ks.flag}"
        f" (config file: [{measures.section}] {measures.key}, [{ks.section}] {ks.key})"
    )
