"""The regression gate's rule, its settings and its verdict in words: plain Python."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest

from ndcg_spark.comparison.rows import Cutoff
from ndcg_spark.errors import ConfigError
from ndcg_spark.gate.against import FELL_SLICES, slice_fell_most
from ndcg_spark.gate.rule import GateRule, Threshold, gated_cutoffs, parse_alpha, parse_threshold
from ndcg_spark.gate.verdict import GateRow, Verdict
from ndcg_spark.job.command_line import parse_args
from ndcg_spark.job.settings import PREVIOUS
from ndcg_spark.remedies import VOICE_JOB

REQUIRED = ["--judgments", "j", "--results", "r", "--output", "o"]
REPORTED = [Cutoff("ndcg_cut", 5), Cutoff("ndcg_cut", 10), Cutoff("ndcg", None), Cutoff("P", 5), Cutoff("map", None)]


@pytest.mark.parametrize(
    ("text", "threshold"), [("0.01", Threshold(0.01)), (0.02, Threshold(0.02)), ("2%", Threshold(0.02, True))]
)
def test_thresholds(text, threshold: Threshold) -> None:
    assert parse_threshold(text) == threshold


@pytest.mark.parametrize("text", ["-0.1", "x", "%", "inf", True, "nan"])
def test_bad_thresholds(text) -> None:
    with pytest.raises(ConfigError, match="fail_on_drop must be a drop such as 0.01"):
        parse_threshold(text)


def test_a_fall_must_exceed_the_threshold() -> None:
    assert Threshold(0.01).exceeded(0.50, 0.48) and not Threshold(0.01).exceeded(0.50, 0.495)
    assert not Threshold(0.01).exceeded(0.50, 0.60)  # a rise never fails
    assert Threshold(0.02, True).exceeded(0.50, 0.489) and not Threshold(0.02, True).exceeded(0.50, 0.491)
    assert str(Threshold(0.02, True)) == "2%" and str(Threshold(0.01)) == "0.01"


def test_alpha() -> None:
    assert parse_alpha("0.01") == 0.01
    for bad in ("0", "1", "x", True):
        with pytest.raises(ConfigError, match="between 0 and 1"):
            parse_alpha(bad)


def test_gated_cutoffs_default_to_the_first_measure() -> None:
    assert gated_cutoffs([], REPORTED) == (Cutoff("ndcg_cut", 5), Cutoff("ndcg_cut", 10))
    assert gated_cutoffs(["nDCG@10", "map", "P.5"], REPORTED) == (Cutoff("ndcg_cut", 10), Cutoff("P", 5), Cutoff("map", None))
    assert gated_cutoffs(["ndcg_cut"], REPORTED) == (Cutoff("ndcg_cut", 5), Cutoff("ndcg_cut", 10))
    remedy = r"ask for it with --measure or --k \(config file: \[evaluation\] measures, \[evaluation\] k\)$"
    with pytest.raises(ConfigError, match=r"--gate-measure 'P.10' is not in the report \(it holds ndcg_cut.5, .*; " + remedy):
        gated_cutoffs(["P.10"], REPORTED)
    with pytest.raises(ConfigError, match="unknown"):
        gated_cutoffs(["prec@5"], REPORTED)


def test_gate_flags_and_keys(tmp_path: Path) -> None:
    dated = [*REQUIRED, "--eval-date", "2026-12-02"]
    config = parse_args(
        [*dated, "--fail-on-drop", "2%", "--against-previous", "--gate-measure", "ndcg_cut.10", "--alpha", "0.01"]
    )
    assert config.gate_rule == GateRule(Threshold(0.02, True), (Cutoff("ndcg_cut", 10),), 0.01)
    assert config.against == PREVIOUS
    config = parse_args([*dated, "--fail-on-drop", "0.01", "--against-date", "2026-11-30"])
    assert config.against == dt.date(2026, 11, 30)
    assert config.gate_rule is not None and config.gate_rule.cutoffs == (
        Cutoff("ndcg_cut", 5),
        Cutoff("ndcg_cut", 10),
        Cutoff("ndcg_cut", 20),
    )
    path = tmp_path / "c.toml"
    path.write_text(
        '[input]\njudgments = "j"\nresults = "r"\n[output]\npath = "o"\n[comparison]\nbaseline = "bm25"\n'
        '[gate]\nfail_on_drop = 0.05\nmeasures = ["nDCG@5"]\n[mlflow]\nexperiment = "nightly"\n'
    )
    config = parse_args(["--config", str(path)])
    assert config.gate_rule == GateRule(Threshold(0.05), (Cutoff("ndcg_cut", 5),))
    assert config.against is None and config.mlflow_experiment == "nightly"
    assert parse_args(REQUIRED).gate_rule is None and parse_args(REQUIRED).mlflow_experiment is None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--fail-on-drop", "0.01"], "--fail-on-drop needs a reference: --against-previous"),
        (["--against-previous"], "--against-previous gates nothing without a threshold: add --fail-on-drop"),
        (["--gate-measure", "P.5"], "--gate-measure gates nothing without a threshold"),
        (["--fail-on-drop", "0.01", "--against-previous"], "give this run one with --eval-date"),
        (["--fail-on-drop", "0.01", "--baseline", "b", "--gate-measure", "P.5"], "--gate-measure 'P.5' is not in the report"),
        (
            ["--fail-on-drop", "a lot", "--baseline", "b"],
            "fail_on_drop must be a drop such as 0.01 (absolute) or 2% (relative), got 'a lot'"
            " (flag --fail-on-drop, config file: [gate] fail_on_drop)",
        ),
        (
            ["--fail-on-drop", "0.01", "--baseline", "b", "--alpha", "5"],
            "alpha must be a significance level between 0 and 1, such as 0.05, got '5' (flag --alpha, config file: [gate] alpha)",
        ),
        (["--eval-date", "2026-12-01", "--against-date", "2026-12-01", "--fail-on-drop", "1"], "must be before this run's"),
        (
            ["--mlflow-experiment", " "],
            "mlflow_experiment must be a name, got ' ' (flag --mlflow-experiment, config file: [mlflow] experiment)",
        ),
    ],
)
def test_bad_gate_settings(flags: list[str], message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_args([*REQUIRED, *flags])
    assert message in refused.value.said(VOICE_JOB)


def test_two_earlier_dates_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as usage:
        parse_args([*REQUIRED, "--against-previous", "--against-date", "2026-01-01", "--fail-on-drop", "1"])
    assert usage.value.code == 2 and "not allowed with argument --against-previous" in capsys.readouterr().err


def _row(run: str, before: float, after: float, p: float, **changes) -> GateRow:
    rule = GateRule(Threshold(0.01), (Cutoff("ndcg_cut", 10),))
    dropped = rule.threshold.exceeded(before, after)
    row = GateRow(
        reference_kind="date",
        reference="2026-12-01",
        run_id=run,
        measure="ndcg_cut",
        k=10,
        num_queries=50,
        mean_reference=before,
        mean_run=after,
        difference=after - before,
        relative_difference=(after - before) / before,
        ci_low=-0.2,
        ci_high=-0.05,
        p_value_randomization=p,
        p_value_randomization_holm=p,
        threshold="0.01",
        alpha=0.05,
        dropped=dropped,
        significant=p < 0.05,
        passed=not (dropped and p < 0.05),
        judgments_changed=False,
        fell_most=[("q7", 0.9, 0.1)],
        slices_fell_most=[("locale", "de", 0.7, 0.4), ("locale", None, 0.7, 0.5)],
    )
    for name, value in changes.items():
        setattr(row, name, value)
    return row


def test_the_verdict_says_first_what_failed_and_why() -> None:
    rule = GateRule(Threshold(0.01), (Cutoff("ndcg_cut", 10),))
    verdict = Verdict((_row("old", 0.6, 0.5, 0.2), _row("new", 0.6, 0.5, 0.001), _row("same", 0.6, 0.6, 1.0)), rule)
    text = str(verdict).splitlines()
    assert not verdict.passed and [row.run_id for row in verdict.failed] == ["new"]
    assert text[0] == (
        "gate: FAILED against the report of 2026-12-01: 1 of 3 gated failed"
        " (a fall of more than 0.01 with a Holm-corrected randomization p below 0.05)"
    )
    assert (
        text[1].startswith("  FAILED ")
        and "new ndcg@10 against the report of 2026-12-01: 0.6000 -> 0.5000 (-0.1000, -16.67%)" in text[1]
    )
    assert "95% CI [-0.2000, -0.0500], p 0.0010 (Holm 0.0010), 50 queries" in text[1]
    assert text[2] == "    queries of new that fell most at ndcg@10 (query: before -> after):"
    assert text[3] == "      q7: 0.9000 -> 0.1000"
    assert text[5:7] == ["      locale=de: 0.7000 -> 0.4000", "      locale=(null): 0.7000 -> 0.5000"]  # as the slice tables
    assert text[7].strip().startswith("passed (fell, not significant)") and " old " in text[7]
    assert text[-1].strip().startswith("passed") and " same " in text[-1]  # no fall: no queries listed
    assert "0.6000 -> 0.6000 (+0.0000, +0.00%)" in text[-1]  # signed, as the tables'


def test_the_verdict_names_each_reference_in_words() -> None:
    rule = GateRule(Threshold(0.01), (Cutoff("ndcg_cut", 10),))
    rows = (_row("new", 0.6, 0.6, 1.0), _row("new", 0.6, 0.6, 1.0, reference_kind="baseline", reference="bm25"))
    head = str(Verdict(rows, rule)).splitlines()[0]
    assert head.startswith("gate: passed against the report of 2026-12-01 and the baseline bm25: none of 2 gated")


def test_a_verdict_across_other_judgments_is_flagged() -> None:
    rule = GateRule(Threshold(0.01), (Cutoff("ndcg_cut", 10),))
    text = str(Verdict((_row("new", 0.6, 0.6, 1.0, judgments_changed=True),), rule))
    assert text.startswith("gate: passed against the report of 2026-12-01: none of 1 gated shows a fall")
    assert "note: the judgments differ from 2026-12-01's" in text


def test_nothing_to_gate_against_passes_and_says_so() -> None:
    rule = GateRule(Threshold(0.01), (Cutoff("ndcg_cut", 10),))
    verdict = Verdict((), rule, "nothing to gate against: no eval date before 2026-12-01 is published in out")
    assert verdict.passed
    assert str(verdict) == "gate: passed: nothing to gate against: no eval date before 2026-12-01 is published in out"


def test_the_slices_that_fell_most() -> None:
    ndcg10 = Cutoff("ndcg_cut", 10)
    before = {("locale", value, "a", "ndcg_cut", 10): 0.8 for value in ("de", "en", "fr", "it", "es", "nl", None)}
    after = {
        ("locale", value, "a", "ndcg_cut", 10): mean
        for value, mean in (("de", 0.5), ("en", 0.79), ("fr", 0.9), ("it", 0.6), ("es", 0.7), ("nl", 0.75), (None, 0.4))
    }
    after[("locale", "de", "b", "ndcg_cut", 10)] = 0.1  # another run's slice
    fallen = slice_fell_most(before, after, None, "a", ndcg10)
    assert len(fallen) == FELL_SLICES
    assert fallen[:3] == [("locale", None, 0.8, 0.4), ("locale", "de", 0.8, 0.5), ("locale", "it", 0.8, 0.6)]
    assert all(after_mean < before_mean for _, _, before_mean, after_mean in fallen)  # fr rose: never listed
    # Against a baseline run of the same report: the baseline's slice means are the reference.
    same = {**after, ("locale", "de", "base", "ndcg_cut", 10): 0.9}
    assert slice_fell_most(same, same, "base", "a", ndcg10) == [("locale", "de", 0.9, 0.5)]


def test_the_page_opens_with_the_verdict_in_green_or_red() -> None:
    from ndcg_spark.report.data import ReportData
    from ndcg_spark.report.html import _gate_section

    rule = GateRule(Threshold(0.01), (Cutoff("ndcg_cut", 10),))
    data = ReportData(title="2026-12-02", k=10, summary=[], comparison=[], slices=[], histogram={})
    passed = _gate_section(replace(data, verdict=Verdict((_row("same", 0.6, 0.6, 1.0),), rule)))
    failed = _gate_section(replace(data, verdict=Verdict((_row("new", 0.6, 0.5, 0.001),), rule)))
    assert passed.startswith('<section class="gate passed"><h2>Gate: passed against the report of 2026-12-01')
    assert failed.startswith('<section class="gate failed"><h2>Gate: FAILED against the report of 2026-12-01')
    assert "<td>+0.0000</td><td>[-0.2000, -0.0500]</td>" in passed  # signed, as the tables
    assert "<td>FAILED</td>" in failed and "new ndcg@10 against the report of 2026-12-01: what fell most" in failed
    assert "<td>q7</td><td>0.9000</td><td>0.1000</td>" in failed  # the queries that fell most
    assert "<td>locale</td><td>de</td><td>0.7000</td><td>0.4000</td>" in failed  # and the slices, beside them
    assert "<td>locale</td><td>(null)</td>" in failed
    assert "fell most" not in passed and _gate_section(data) == ""
    # What failed is listed first, as the command prints it.
    both = _gate_section(replace(data, verdict=Verdict((_row("same", 0.6, 0.6, 1.0), _row("new", 0.6, 0.5, 0.001)), rule)))
    assert both.index("<td>new</td>") < both.index("<td>same</td>")
