"""How a caller names measures: trec_eval's -m syntax and ir_measures' names, each to the same
measures, trec_eval's own names for them, and the catalogue against trec_eval's printed lines."""

from __future__ import annotations

import os

import pytest

from ndcg_spark.errors import ConfigError
from ndcg_spark.measures import BY_NAME, CATALOGUE, Measure, label, parse_measures, scored
from ndcg_spark.measures.declaration import ALL_TREC, CUTOFFS
from tests import catalogue_table


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


def test_parameters_as_trec_eval_writes_and_prints_them() -> None:
    """out.test.meas_params's own -m arguments, and the names trec_eval prints for them."""
    asked = parse_measures(["iprec_at_recall..10,.20", "Rprec_mult.5.0,0.2", "utility.2,-1,0,0", "11pt_avg..25,.5,.75"])
    assert [m.trec_eval for m in asked] == [
        "iprec_at_recall_0.10",
        "iprec_at_recall_0.20",
        "Rprec_mult_0.20",
        "Rprec_mult_5.00",
        "utility_2,-1,0,0",
        "11pt_avg_.25,.5,.75",
    ]
    assert [m.trec_eval for m in parse_measures(["utility", "11pt_avg", "rbp"])] == ["utility", "11pt_avg", "rbp"]


def test_ir_measures_names_are_synonyms() -> None:
    names = ["nDCG@10", "P@5", "R@100", "AP", "AP@10", "RR", "Rprec", "Success@5", "Bpref", "nDCG", "MAP", "MRR", "NDCG@10"]
    assert parse_measures(names) == parse_measures(
        ["ndcg_cut.10", "P.5", "recall.100", "map", "map_cut.10", "recip_rank", "Rprec", "success.5", "bpref", "ndcg"]
    )
    assert parse_measures(["Recall@100", "IPrec@0.5", "SetF", "NumRelRet", "infAP"]) == (
        Measure("recall", 100),
        Measure("iprec_at_recall", None, "0.50"),
        Measure("set_F"),
        Measure("num_rel_ret"),
        Measure("infAP"),
    )


def test_rr_at_k_is_recip_rank_cut_at_k() -> None:
    assert parse_measures(["RR@10", "MRR@5"]) == (Measure("recip_rank", 10), Measure("recip_rank", 5))


def test_each_measure_once_in_the_order_first_asked() -> None:
    assert parse_measures(["P.10,5", "P@5", "map", "AP"]) == (Measure("P", 5), Measure("P", 10), Measure("map"))
    assert parse_measures("bpref") == (Measure("bpref"),)


def _printed_all(conformance_dir: str) -> list[str]:
    with open(os.path.join(conformance_dir, "out.test.aq")) as handle:
        return [line.split()[0] for line in handle if line.split()[1:2] == ["all"]]


def test_all_trec_asks_for_what_trec_eval_prints_in_its_order(conformance_dir: str) -> None:
    """-m all_trec: every line trec_eval prints for 'all' but those the catalogue does not support
    yet, in trec_eval's order (NDCG's cutoffs join --k, so they are compared as a set)."""
    supported = {d.name for d in CATALOGUE if d.supported}
    printed = [name for name in _printed_all(conformance_dir) if name in supported or name.rsplit("_", 1)[0] in supported]
    asked = parse_measures("all_trec")
    assert [m.trec_eval for m in scored(asked)] == printed
    assert [m.trec_eval for m in asked if m not in scored(asked)] == [
        "runid",
        "relstring",
    ]  # the text ones, printed by trec_eval's report


def test_a_measure_without_cutoffs_takes_trec_evals_defaults(conformance_dir: str) -> None:
    printed = set(_printed_all(conformance_dir))
    for declaration in CATALOGUE:
        if declaration.params == CUTOFFS and ALL_TREC in declaration.sets:  # err is not trec_eval's
            ours = {m.trec_eval for m in parse_measures(declaration.name)}
            theirs = {name for name in printed if name.rsplit("_", 1)[0] == declaration.name and name.rsplit("_", 1)[1].isdigit()}
            assert ours == theirs, declaration.name


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (["P.0"], r"^measure 'P.0': cutoff '0' is not a positive whole number$"),
        (["ndcg_cut.10,23.4"], r"cutoff '23.4' is not a positive whole number"),
        (["P@-1"], r"cutoff '-1' is not"),
        (["map.5"], r"^measure 'map.5': map takes no cutoff; ask for map_cut.5$"),
        (["recip_rank.10"], r"^measure 'recip_rank.10': recip_rank takes no cutoff; ir_measures' RR@10 is cut at 10$"),
        (["Rprec@5"], r"^measure 'Rprec@5': Rprec takes no cutoff \(trec_eval's Rprec\)$"),
        (["Bpref@10"], r"^measure 'Bpref@10': Bpref takes no cutoff \(trec_eval's bpref\)$"),
        (["P_0"], r"^measure 'P_0': cutoff '0' is not a positive whole number$"),
        (["ndcg@ten"], r"^measure 'ndcg@ten': cutoff 'ten' is not a positive whole number$"),
        (
            ["relstring"],
            r"^measure 'relstring': trec_eval's relstring is text, not a number: the reports leave it out, and ndcg-spark",
        ),
        (["utility.1,2"], r"utility takes 4 number\(s\), got 2"),
        (["P@5", "alpha_nDCG@10"], r"^measure 'alpha_nDCG@10' is unknown \(trec_eval's names: num_q, "),
        (["P(dcg=log2)@5"], r"^measure 'P\(dcg=log2\)@5': P takes no parameter 'dcg' here \(it takes: rel\)$"),
        (["nDCG(dcg=exp)@5"], r"dcg=exp: dcg is log2 or exp-log2$"),
        (["Success"], r"^measure 'Success' needs a cutoff, e.g. Success@10$"),
        ([""], r"is not a measure name"),
        ([], r"at least one measure"),
    ],
)
def test_unknown_measure_or_bad_cutoff_is_a_usage_error_naming_the_entry(entries: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        parse_measures(entries)
    assert raised.value.exit_code == 2


def test_every_declaration_is_whole() -> None:
    """Names unique; each supported one has a formula line and a source; report places unique."""
    names = [d.name for d in CATALOGUE]
    assert len(names) == len(set(names))
    assert len({d.report for d in CATALOGUE}) == len(CATALOGUE)
    for declaration in CATALOGUE:
        assert declaration.summary and declaration.formula and declaration.source, declaration.name


def test_the_docs_list_the_catalogue_exactly() -> None:
    """docs/semantics.md's table is the catalogue's, row for row."""
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "semantics.md")) as handle:
        page = handle.read()
    start, end = page.index(catalogue_table.START), page.index(catalogue_table.END) + len(catalogue_table.END)
    assert page[start:end] == catalogue_table.table()


def test_the_evaluator_says_which_way_is_better_as_the_measure_is_declared() -> None:
    """CrossValidator keeps the model with the best metric: for unj (the share unjudged) the
    lowest, for NDCG and map the highest."""
    from ndcg_spark.tuning import NdcgEvaluator

    assert [NdcgEvaluator(metricName=name).isLargerBetter() for name in ("ndcgAtK", "map", "unj.10", "rbp_resid")] == [
        True,
        True,
        False,
        False,
    ]


def _every_reported_measure() -> list[Measure]:
    """Every declaration at its defaults, and a parameter of each kind beside them."""
    asked = ["all_trec", "err", "P.7", "ndcg_cut.3", "iprec_at_recall.0.25", "utility.2,-1,0,0", "Rprec_mult.0.5", "RR@10"]
    return scored(parse_measures(asked))


@pytest.mark.parametrize("measure", _every_reported_measure(), ids=lambda m: f"{m.reported}@{m.k}")
def test_every_name_a_report_prints_is_taken_back(measure: Measure) -> None:
    """The tables' heads (ndcg@10, map@10, P@5, iprec_at_recall_0.10) and trec_eval's printed names
    (ndcg_cut_10, P_5) name the measure they head."""
    assert parse_measures(label(measure.reported, measure.k)) == (measure,)
    assert parse_measures(measure.trec_eval) == (measure,)


def test_rbp_takes_trec_eval_10s_named_persistence() -> None:
    """trec_eval 10.0's -m rbp.p=0.8, printed rbp_p=0.8; the positional rbp.0.8 stays."""
    (named,) = parse_measures("rbp.p=0.8")
    assert (named.reported, named.trec_eval) == ("rbp_p=0.8", "rbp_p=0.8")
    (positional,) = parse_measures("rbp.0.8")
    assert BY_NAME["rbp"].values_of(named) == BY_NAME["rbp"].values_of(positional) == (0.8,)
    assert parse_measures("rbp_p=0.8") == (named,)  # its printed name, taken back
    with pytest.raises(ConfigError, match=r"^measure 'rbp.q=0.8': rbp takes p=\.\.\., got 'q=0.8'$"):
        parse_measures("rbp.q=0.8")
    with pytest.raises(ConfigError, match=r"'x' is not a number"):
        parse_measures("rbp.p=x")
