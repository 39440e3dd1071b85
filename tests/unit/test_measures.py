"""How a caller names measures: trec_eval's -m syntax and ir_measures' names, each to the same
(measure, cutoff) pairs, and trec_eval's own names for them."""

from __future__ import annotations

import os

import pytest

from ndcg_spark.errors import ConfigError
from ndcg_spark.measures import DEFAULT_CUTOFFS, MEASURE_NAMES, Measure, parse_measures


def test_trec_eval_syntax() -> None:
    asked = parse_measures(["ndcg_cut.5,10", "P.5,10", "recall.100", "map", "recip_rank"])
    assert asked == (
        Measure("ndcg_cut", 5),
        Measure("ndcg_cut", 10),
        Measure("P", 5),
        Measure("P", 10),
        Measure("recall", 100),
        Measure("map"),
        Measure("recip_rank"),
    )
    assert [m.trec_eval for m in asked] == ["ndcg_cut_5", "ndcg_cut_10", "P_5", "P_10", "recall_100", "map", "recip_rank"]


def test_ir_measures_names_are_synonyms() -> None:
    names = ["nDCG@10", "P@5", "R@100", "AP", "AP@10", "RR", "Rprec", "Success@5", "Bpref", "nDCG"]
    assert parse_measures(names) == parse_measures(
        ["ndcg_cut.10", "P.5", "recall.100", "map", "map_cut.10", "recip_rank", "Rprec", "success.5", "bpref", "ndcg"]
    )


def test_each_measure_once_in_the_order_first_asked() -> None:
    assert parse_measures(["P.10,5", "P@5", "map", "AP"]) == (Measure("P", 5), Measure("P", 10), Measure("map"))
    assert parse_measures("bpref") == (Measure("bpref"),)


def test_a_measure_without_cutoffs_takes_trec_evals_defaults(conformance_dir: str) -> None:
    """trec_eval -m all_trec prints each cut measure at its default cutoffs: the same ones."""
    with open(os.path.join(conformance_dir, "out.test.aq")) as handle:
        printed = {line.split()[0] for line in handle if line.split()[1:2] == ["all"]}
    for name in DEFAULT_CUTOFFS:
        ours = {m.trec_eval for m in parse_measures(name)}
        theirs = {measure for measure in printed if measure.rsplit("_", 1)[0] == name and measure.rsplit("_", 1)[1].isdigit()}
        assert ours == theirs, name
    assert {name for name in MEASURE_NAMES} <= printed | set(DEFAULT_CUTOFFS)  # trec_eval's own names


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (["P.0"], r"^measure 'P.0': cutoff '0' is not a positive whole number$"),
        (["ndcg_cut.10,23.4"], r"cutoff '23.4' is not a positive whole number"),
        (["P@-1"], r"cutoff '-1' is not"),
        (["map.5"], r"^measure 'map.5': map takes no cutoff$"),
        (["P@5", "ERR@10"], r"^measure 'ERR@10' is unknown \(trec_eval's names: ndcg, ndcg_cut, P, "),
        (["Success"], r"^measure 'Success' needs a cutoff, e.g. Success@10$"),
        ([""], r"is not a measure name"),
        ([], r"at least one measure"),
    ],
)
def test_unknown_measure_or_bad_cutoff_is_a_usage_error_naming_the_entry(entries: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        parse_measures(entries)
    assert raised.value.exit_code == 2
