"""Every measure, each declared once, in the order trec_eval prints them (its measures.c table).

Each formula is the per-query value as SQL text over `Ingredients`; the docs print the
`formula` line beside trec_eval's file that defines it. R is the number of judged documents
graded at least the relevance level (trec_eval -l), n the number retrieved (after -M and -J),
rel(k) the relevant ones in the top k."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ndcg_spark.measures.declaration import (
    ALL_TREC,
    COEFFICIENTS,
    CUTOFFS,
    GEOMETRIC,
    LEVELS,
    OFFICIAL,
    SUM,
    Declaration,
    Ingredients,
    Measure,
    gain_details,
)
from ndcg_spark.measures.terms import (
    Term,
    as_double,
    coalesce,
    differ,
    equal,
    floor,
    greatest,
    least,
    log2,
    power_of_two,
    ratio,
    round_half_up,
    where,
)

_LONG_CUTOFFS = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_OFFICIAL = frozenset({OFFICIAL, ALL_TREC})
_TREC = frozenset({ALL_TREC})
_NONE: frozenset[str] = frozenset()


def _average_precision(i: Ingredients, m: Measure) -> Term:
    return ratio(i.precision_sum(m.k), i.relevant())


def _bpref(i: Ingredients, m: Measure) -> Term:
    return ratio(i.bpref_sum(), i.relevant())


def _recip_rank(i: Ingredients, m: Measure) -> Term:
    first = i.first_relevant()
    found = first > 0 if m.k is None else (first > 0) & (first <= m.k)
    return where(found, 1.0 / as_double(first), 0.0)


def _recall_depth(recall: float, version: int) -> Callable[[Term], Term]:
    """How many relevant documents a recall level asks for, of a query's R: trec_eval 10.0 rounds
    (lround(level x R)); 9 truncates level x R + 0.9 (m_iprec_at_recall.c of each)."""

    def depth(relevant: Term) -> Term:
        scaled = recall * as_double(relevant)
        return floor(scaled + 0.9) if version == 9 else round_half_up(scaled)

    return depth


def _iprec(i: Ingredients, recall: float) -> Term:
    depth = _recall_depth(recall, i.trec_eval_version)
    reached = depth(i.relevant())
    return where(reached > i.relevant_retrieved(None), 0.0, coalesce(i.interpolated_precision(recall, depth), 0.0))


def _iprec_at_recall(i: Ingredients, m: Measure) -> Term:
    return _iprec(i, float(m.param or 0))


def _eleven_point(i: Ingredients, m: Measure) -> Term:
    levels = ELEVEN_PT_AVG.values_of(m)
    total = _iprec(i, levels[0])
    for level in levels[1:]:
        total = total + _iprec(i, level)
    return total / float(len(levels))


def _rprec_mult(i: Ingredients, m: Measure) -> Term:
    multiple = float(m.param or 1)
    depth = floor(multiple * as_double(i.relevant()) + 0.9)
    return ratio(i.relevant_within_multiple(multiple), depth)


def _utility(i: Ingredients, m: Measure) -> Term:
    a, b, c, d = UTILITY.values_of(m)
    found, n, r = i.relevant_retrieved(None), i.retrieved(), i.relevant()
    # trec_eval's num_docs_in_coll (its -N) is 0 unless given; this measure has no -N.
    return a * found + b * (n - found) + c * (r - found) + d * (found - n - r)


def _set_relative_p(i: Ingredients, m: Measure) -> Term:
    return ratio(i.relevant_retrieved(None), least(i.retrieved(), i.relevant()))


def _set_f(i: Ingredients, m: Measure) -> Term:
    (beta,) = SET_F.values_of(m)
    precision, recall = ratio(i.relevant_retrieved(None), i.retrieved()), ratio(i.relevant_retrieved(None), i.relevant())
    weighted = (beta + 1) * precision * recall
    harmonic = weighted / (beta * precision + recall)
    return where(i.relevant_retrieved(None) > 0, harmonic, 0.0)


def _rbp(i: Ingredients, m: Measure) -> Term:
    (p,) = RBP.values_of(m)
    return (1 - p) * i.grade_discount_sum(p) / as_double(greatest(coalesce(i.max_grade(), 1), 1))


_RBP_RESID_P = 0.9  # fixed in trec_eval's m_rbp_resid.c


def _rbp_resid(i: Ingredients, m: Measure) -> Term:
    judged = i.relevant_retrieved(None) + i.nonrelevant_retrieved(None)
    rest = 1.0 - (1 - _RBP_RESID_P) * i.judged_discount_sum(_RBP_RESID_P)
    return where(i.retrieved() > judged, rest, 0.0)


def _unjudged(i: Ingredients, m: Measure) -> Term:
    k = m.k or 1
    unjudged = least(k, i.retrieved()) - i.relevant_retrieved(k) - i.nonrelevant_retrieved(k)
    return as_double(unjudged) / float(k)


def _judged(i: Ingredients, m: Measure) -> Term:
    """ir_measures' Judged@k: the judged share of the top min(k, n); 0 for an empty list."""
    depth = i.retrieved() if m.k is None else least(m.k, i.retrieved())
    return where(depth > 0, as_double(i.judged_retrieved(m.k)) / as_double(depth), 0.0)


def _ndcg_rel(i: Ingredients, m: Measure) -> Term:
    """trec_eval's ndcg_rel: NDCG at each retrieved document of gain > 0 (the ideal DCG held at
    the ideal's last positive position), and at the list's end for each such document not
    retrieved, averaged over the P documents of gain > 0."""
    ranked, ideal = i.ranked_positives(), i.ideal_positives()
    positives = ideal.size()
    at_rows = ranked.sum(lambda r: r.dcg / ideal.at(least(r.pos, r.of_pair(positives)), r).idcg)
    missed = as_double(positives - ranked.size()) * i.dcg(None) / i.ideal_dcg(None)
    return where(positives > 0, (at_rows + missed) / as_double(positives), 0.0)


def _rndcg(i: Ingredients, m: Measure) -> Term:
    """trec_eval's Rndcg: NDCG at each position where the ideal gain changes (the ends of the
    blocks of equal gain, the last where it falls to 0), and at the list's end when the list goes
    on past that position by more than one document; averaged."""
    ideal = i.ideal_positives()
    positives = ideal.size()

    def block_end(x: Any) -> Term:
        last = x.of_pair(positives)
        return equal(x.pos, last) | differ(ideal.at(least(x.pos + 1, last), x).gain, x.gain)

    ends = ideal.filter(block_end)
    terms = ends.sum(lambda x: i.dcg_within(x.pos, x) / x.idcg)
    beyond = i.retrieved() > positives + 1
    extra = where(beyond, i.dcg(None) / i.ideal_dcg(None), 0.0)
    count = as_double(ends.size() + where(beyond, 1, 0))
    return where((i.relevant() > 0) & (positives > 0), (terms + extra) / count, 0.0)


def _g(i: Ingredients, m: Measure) -> Term:
    """trec_eval's G: each retrieved document's gain / log2(2 + cost - gained), cost the ideal's
    sum of max(gain, 1) down to its rank (1 a rank past the ideal's positives), gained the
    retrieved gains down to it; summed, over the ideal's total gain."""
    ranked, ideal = i.ranked_positives(), i.ideal_positives()
    positives = ideal.size()
    last = where(positives > 0, ideal.at(positives).cost, 0.0)

    def cost(r: Any) -> Term:
        end = r.of_pair(positives)
        return where(r.pos <= end, ideal.at(r.pos, r).cost, r.of_pair(last) + as_double(r.pos - end))

    total = ideal.sum(lambda x: x.gain)
    gained = ranked.sum(lambda r: r.gain / log2(2.0 + cost(r) - r.cum_gain))
    return where(total > 0, gained / total, 0.0)


_ERR_MAX_GRADE = 4  # gdeval.pl's MAX_JUDGMENT: a grade's chance of satisfying is (2^grade - 1) / 2^4


def _err(i: Ingredients, m: Measure) -> Term:
    """gdeval's ERR@k: down the top k, the chance of stopping at each document, r = (2^grade - 1)
    / 2^4, times the chance of having gone on that far, over its rank; the chance of going on
    falls by 1 - r at each. Only documents graded above 0 change either."""

    def stop(d: Any) -> Term:
        return (power_of_two(d.grade) - 1.0) / float(2**_ERR_MAX_GRADE)

    def step(state: tuple[Any, ...], d: Any) -> tuple[Term, ...]:
        score, going_on = state
        return score + stop(d) * going_on / as_double(d.pos), going_on * (1.0 - stop(d))

    top = i.ranked_graded().filter(lambda d: d.pos <= (m.k or 1))
    return top.fold((0.0, 1.0), step)[0]


def _ndcg(i: Ingredients, m: Measure) -> Term:
    return ratio(i.dcg(m.k), i.ideal_dcg(m.k))


UTILITY = Declaration(
    "utility",
    "set utility: a weighted count of the contingency table",
    "a * rel(n) + b * (n - rel(n)) + c * (R - rel(n)) + d * (rel(n) - n - R), coefficients a,b,c,d (default 1,-1,0,0)",
    "m_utility.c",
    _utility,
    report=27,
    params=COEFFICIENTS,
    defaults=(1.0, -1.0, 0.0, 0.0),
    sets=frozenset({ALL_TREC}),
    bounded=False,
)
ELEVEN_PT_AVG = Declaration(
    "11pt_avg",
    "interpolated precision averaged over recall levels (default the 11 of iprec_at_recall)",
    "mean over the levels x of iprec_at_recall_x",
    "m_11pt_avg.c",
    _eleven_point,
    report=28,
    params=COEFFICIENTS,
    defaults=_RECALL_LEVELS,
)
SET_F = Declaration(
    "set_F",
    "F measure of the whole retrieved set",
    "(beta + 1) * P * Rc / (beta * P + Rc), P = rel(n) / n, Rc = rel(n) / R; 0 when rel(n) = 0 (default beta 1)",
    "m_set_F.c",
    _set_f,
    report=40,
    params=COEFFICIENTS,
    defaults=(1.0,),
    ir_measures=("SetF",),
)
RBP = Declaration(
    "rbp",
    "rank-biased precision (Moffat and Zobel, TOIS 2008)",
    "(1 - p) * sum over retrieved documents of g * p^(i - 1), g the grade (divided by the query's highest grade when it"
    " is above 1), persistence p (default 0.9)",
    "m_rbp.c",
    _rbp,
    report=42,
    params=COEFFICIENTS,
    defaults=(0.9,),
    param_names=("p",),
)

CATALOGUE: tuple[Declaration, ...] = (
    Declaration("runid", "the run's name (text)", "the run_id", "m_runid.c", None, report=10, sets=_OFFICIAL, text=True),
    Declaration(
        "num_q",
        "number of queries evaluated",
        "1 per query, summed",
        "m_num_q.c",
        lambda i, m: i.constant(1.0),
        report=11,
        combine=SUM,
        sets=_OFFICIAL,
        per_query_printed=False,
        whole=True,
        ir_measures=("NumQ",),
    ),
    Declaration(
        "num_ret",
        "number of documents retrieved",
        "n, summed over queries",
        "m_num_ret.c",
        lambda i, m: as_double(i.retrieved()),
        report=12,
        combine=SUM,
        sets=_OFFICIAL,
        whole=True,
        ir_measures=("NumRet",),
    ),
    Declaration(
        "num_rel",
        "number of relevant documents judged",
        "R, summed over queries",
        "m_num_rel.c",
        lambda i, m: as_double(i.relevant()),
        report=13,
        combine=SUM,
        sets=_OFFICIAL,
        whole=True,
        ir_measures=("NumRel",),
    ),
    Declaration(
        "num_rel_ret",
        "number of relevant documents retrieved",
        "rel(n), summed over queries",
        "m_num_rel_ret.c",
        lambda i, m: as_double(i.relevant_retrieved(None)),
        report=14,
        combine=SUM,
        sets=_OFFICIAL,
        whole=True,
        ir_measures=("NumRelRet",),
    ),
    Declaration(
        "map",
        "mean average precision",
        "sum over relevant retrieved documents of precision at their rank, / R",
        "m_map.c",
        _average_precision,
        report=5,
        sets=_OFFICIAL,
        ir_measures=("AP", "MAP"),
    ),
    Declaration(
        "gm_map",
        "average precision, geometric mean over queries",
        "map per query; 'all' is exp(mean(log(max(map, 0.00001))))",
        "m_gm_map.c",
        _average_precision,
        report=15,
        combine=GEOMETRIC,
        sets=_OFFICIAL,
        per_query_printed=False,
    ),
    Declaration(
        "Rprec",
        "precision after R documents",
        "rel(R) / R",
        "m_Rprec.c",
        lambda i, m: ratio(i.relevant_within_multiple(1.0), i.relevant()),
        report=7,
        sets=_OFFICIAL,
        ir_measures=("Rprec", "RPrec"),
    ),
    Declaration(
        "bpref",
        "binary preference (Buckley and Voorhees, SIGIR 2004)",
        "sum over relevant retrieved documents of 1 - min(nonrel above, R) / min(R, N), / R; N the judged non-relevant",
        "m_bpref.c",
        _bpref,
        report=9,
        sets=_OFFICIAL,
        ir_measures=("Bpref", "BPref"),
    ),
    Declaration(
        "recip_rank",
        "reciprocal rank of the first relevant document",
        "1 / rank of the first relevant document (0 when none); RR@k: 0 when it is below k",
        "m_recip_rank.c",
        _recip_rank,
        report=6,
        sets=_OFFICIAL,
        ir_measures=("RR", "MRR"),
        ir_measures_cut=("RR", "MRR"),
        ir_cutoff=True,
    ),
    Declaration(
        "iprec_at_recall",
        "interpolated precision at recall levels (the recall-precision curve)",
        "the highest precision at any rank where recall >= x; 0 when round(x * R) > rel(n)",
        "m_iprec_at_recall.c",
        _iprec_at_recall,
        report=16,
        params=LEVELS,
        defaults=_RECALL_LEVELS,
        sets=_OFFICIAL,
        ir_measures_cut=("IPrec",),
    ),
    Declaration(
        "P",
        "precision at k",
        "rel(k) / k",
        "m_P.c",
        lambda i, m: as_double(i.relevant_retrieved(m.k)) / float(m.k or 1),
        report=2,
        params=CUTOFFS,
        defaults=_LONG_CUTOFFS,
        sets=_OFFICIAL,
        ir_measures_cut=("P", "Precision"),
    ),
    Declaration(
        "relstring",
        "the grades of the top N documents (text)",
        "one character per document of the top N (default 10): the grade, > above 9, - not judged, . judged below 0",
        "m_relstring.c",
        None,
        report=17,
        text=True,
    ),
    Declaration(
        "recall",
        "recall at k",
        "rel(k) / R",
        "m_recall.c",
        lambda i, m: ratio(i.relevant_retrieved(m.k), i.relevant()),
        report=3,
        params=CUTOFFS,
        defaults=_LONG_CUTOFFS,
        ir_measures_cut=("R", "Recall"),
    ),
    Declaration(
        "infAP",
        "inferred average precision (Yilmaz and Aslam, CIKM 2006)",
        "at a relevant document at rank j > 1: 1/j + ((j-1)/j) * (above/(j-1)) * ((rel-1 + e) / (rel-1 + nonrel + 2e)), at rank"
        " 1: 1; summed, / R; above counts the judged documents above it (graded ones, and those graded below 0), e = 0.00001",
        "m_infap.c",
        lambda i, m: ratio(i.infap_sum(), i.relevant()),
        report=18,
        ir_measures=("infAP",),
    ),
    Declaration(
        "gm_bpref",
        "bpref, geometric mean over queries",
        "bpref per query; 'all' is exp(mean(log(max(bpref, 0.00001))))",
        "m_gm_bpref.c",
        _bpref,
        report=19,
        combine=GEOMETRIC,
        per_query_printed=False,
    ),
    Declaration(
        "Rprec_mult",
        "precision at multiples of R",
        "rel(c) / c, c = floor(x * R + 0.9); 0 when c = 0",
        "m_Rprec_mult.c",
        _rprec_mult,
        report=20,
        params=LEVELS,
        defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    ),
    UTILITY,
    ELEVEN_PT_AVG,
    Declaration(
        "binG",
        "binary G: relevant documents discounted by the non-relevant ones above them",
        "sum over relevant retrieved documents of 1 / log2(2 + nonrelevant or unjudged above), / R",
        "m_binG.c",
        lambda i, m: ratio(i.bing_sum(), i.relevant()),
        report=29,
    ),
    Declaration(
        "G",
        "normalized gain: gain discounted by how far the run lags the ideal's gain so far",
        "sum over retrieved documents of gain / log2(2 + cost(i) - gained(i)), / the ideal's total gain; cost(i) the ideal's"
        " sum of max(gain, 1) to rank i, gained(i) the run's gains to rank i",
        "m_G.c",
        _g,
        report=30,
    ),
    Declaration(
        "ndcg",
        "normalized discounted cumulative gain over the whole list",
        "DCG / IDCG; DCG = sum of gain / log2(rank + 1), IDCG over all judged documents in the best order",
        "m_ndcg.c",
        _ndcg,
        report=1,
        ir_measures=("nDCG", "NDCG"),
        details=gain_details,
    ),
    Declaration(
        "ndcg_rel",
        "NDCG averaged over the documents of gain > 0",
        "mean over the P judged documents of gain > 0 of DCG(i) / IDCG(min(i, P)) at its rank i, or DCG(n) / IDCG(P) when"
        " not retrieved",
        "m_ndcg_rel.c",
        _ndcg_rel,
        report=31,
    ),
    Declaration(
        "Rndcg",
        "NDCG averaged at the R levels",
        "mean of DCG(e) / IDCG(e) over the ends e of the ideal's blocks of equal gain, and DCG(n) / IDCG(P) when n > P + 1;"
        " 0 when R = 0",
        "m_Rndcg.c",
        _rndcg,
        report=32,
    ),
    Declaration(
        "ndcg_cut",
        "NDCG at k",
        "DCG@k / IDCG@k",
        "m_ndcg_cut.c",
        _ndcg,
        report=0,
        params=CUTOFFS,
        defaults=_LONG_CUTOFFS,
        ir_measures_cut=("nDCG", "NDCG"),
        details=gain_details,
    ),
    Declaration(
        "map_cut",
        "average precision at k",
        "sum over relevant documents in the top k of precision at their rank, / R",
        "m_map_cut.c",
        _average_precision,
        report=4,
        params=CUTOFFS,
        defaults=_LONG_CUTOFFS,
        ir_measures_cut=("AP", "MAP"),
    ),
    Declaration(
        "relative_P",
        "precision at k relative to the best possible",
        "rel(k) / min(k, R)",
        "m_relative_P.c",
        lambda i, m: ratio(i.relevant_retrieved(m.k), least(m.k or 1, i.relevant())),
        report=33,
        params=CUTOFFS,
        defaults=_LONG_CUTOFFS,
    ),
    Declaration(
        "success",
        "whether a relevant document is in the top k",
        "1 when rel(k) > 0, else 0",
        "m_success.c",
        lambda i, m: where(i.relevant_retrieved(m.k) > 0, 1.0, 0.0),
        report=8,
        params=CUTOFFS,
        defaults=(1.0, 5.0, 10.0),
        ir_measures_cut=("Success",),
    ),
    Declaration(
        "set_P",
        "precision of the whole retrieved set",
        "rel(n) / n",
        "m_set_P.c",
        lambda i, m: ratio(i.relevant_retrieved(None), i.retrieved()),
        report=34,
        ir_measures=("SetP",),
    ),
    Declaration(
        "set_relative_P",
        "set precision relative to the best possible",
        "rel(n) / min(n, R)",
        "m_set_relative_P.c",
        _set_relative_p,
        report=35,
        ir_measures=("SetRelP",),
    ),
    Declaration(
        "set_recall",
        "recall of the whole retrieved set",
        "rel(n) / R",
        "m_set_recall.c",
        lambda i, m: ratio(i.relevant_retrieved(None), i.relevant()),
        report=36,
        ir_measures=("SetR",),
    ),
    Declaration(
        "set_map",
        "set precision times set recall",
        "(rel(n) / n) * (rel(n) / R)",
        "m_set_map.c",
        lambda i, m: ratio(i.relevant_retrieved(None), i.retrieved()) * ratio(i.relevant_retrieved(None), i.relevant()),
        report=37,
        ir_measures=("SetAP",),
    ),
    SET_F,
    Declaration(
        "num_nonrel_judged_ret",
        "number of judged non-relevant documents retrieved",
        "retrieved documents graded from 0 to below the level, summed over queries",
        "m_num_nonrel_judged_ret.c",
        lambda i, m: as_double(i.nonrelevant_retrieved(None)),
        report=41,
        combine=SUM,
        whole=True,
        larger_is_better=False,
    ),
    RBP,
    Declaration(
        "rbp_resid",
        "the residual of rank-biased precision: what the unjudged documents could add",
        "when some retrieved document is unjudged or graded below 0: 1 - (1 - p) * sum over the other retrieved documents of"
        " p^(i - 1), p = 0.9; else 0",
        "m_rbp_resid.c",
        _rbp_resid,
        report=43,
        larger_is_better=False,
    ),
    Declaration(
        "unj",
        "the share of the top k that is unjudged",
        "(min(k, n) - judged documents graded 0 or more in the top k) / k",
        "m_unjudged.c",
        _unjudged,
        report=44,
        params=CUTOFFS,
        defaults=(5.0, 10.0, 20.0),
        larger_is_better=False,
    ),
    Declaration(
        "err",
        "expected reciprocal rank (Chapelle et al., CIKM 2009), as gdeval computes it",
        "sum over the top k of r(i) / i * prod over j < i of (1 - r(j)), r(i) = (2^grade - 1) / 2^4 (grades 0 to 4;"
        " unjudged and negative 0)",
        "gdeval.pl (TREC Web track), ir_measures' ERR",
        _err,
        report=45,
        params=CUTOFFS,
        defaults=(10.0, 20.0),
        ir_measures_cut=("ERR",),
        sets=_NONE,
    ),
    Declaration(
        "judged",
        "the share of the top k that is judged, as ir_measures' Judged@k",
        "judged documents (any grade) in the top min(k, n) / min(k, n); 0 when n = 0",
        "ir_measures (judged_provider.py)",
        _judged,
        report=46,
        params=CUTOFFS,
        defaults=(5.0, 10.0, 20.0),
        ir_measures=("Judged",),
        ir_measures_cut=("Judged",),
        sets=_NONE,
    ),
)

BY_NAME: dict[str, Declaration] = {declaration.name: declaration for declaration in CATALOGUE}
NDCG_MEASURES: tuple[str, ...] = ("ndcg_cut", "ndcg")
NDCG_CUT, NDCG_UNCUT = NDCG_MEASURES


def declared(name: str) -> Declaration:
    """The declaration of trec_eval's measure `name` (a KeyError for any other name)."""
    return BY_NAME[name]


def declaration_of(measure: Measure) -> Declaration:
    return BY_NAME[measure.name]


def report_order(name: str, k: int | None) -> tuple[int, str, bool, int]:
    """Sort key of a reported (measure, k): by the declaration's place in the reports, then its
    parameter text, then k ascending, uncut last. `name` is the reports' measure column."""
    family, param = family_of(name)
    declaration = BY_NAME.get(family)
    return (declaration.report if declaration else len(CATALOGUE) + 100, param_key(param), k is None, k or 0)


def param_key(param: str) -> str:
    """Parameters that are levels sort by number (0.10 < 1.00 < 5.00: zero-padded)."""
    try:
        return f"{float(param):020.6f}"
    except ValueError:
        return param


def trec_eval_order(name: str) -> int:
    """Where trec_eval prints the reported measure `name` among the others (its table's order)."""
    family, _ = family_of(name)
    return next((i for i, declaration in enumerate(CATALOGUE) if declaration.name == family), len(CATALOGUE))


def family_of(name: str) -> tuple[str, str]:
    """The declaration's name and the parameter text of a reported measure name
    (iprec_at_recall_0.10 -> (iprec_at_recall, 0.10); P -> (P, ''))."""
    if name in BY_NAME:
        return name, ""
    for declaration in CATALOGUE:
        if declaration.params in (LEVELS, COEFFICIENTS) and name.startswith(declaration.name + "_"):
            return declaration.name, name[len(declaration.name) + 1 :]
    return name, ""


def label(name: str, k: int | None) -> str:
    """A reported (measure, k) as the tables head it: ndcg@10, ndcg, P@5, map@10, map,
    recip_rank@10, iprec_at_recall_0.10."""
    if k is None:
        return name
    return f"{cut_head(name)}@{k}"


def cut_head(name: str) -> str:
    """A measure with cutoffs as the tables head it before '@k': ndcg_cut as ndcg, map_cut as map."""
    return "ndcg" if name == NDCG_CUT else "map" if name == "map_cut" else name


def combine_of(name: str) -> str:
    """How the reported measure `name` combines over queries (mean for an unknown name)."""
    declaration = BY_NAME.get(family_of(name)[0])
    return declaration.combine if declaration else "mean"


def is_whole(name: str) -> bool:
    """Whether the reported measure `name` is a count, printed whole (num_ret, num_rel, ...)."""
    declaration = BY_NAME.get(family_of(name)[0])
    return declaration.whole if declaration else False


def printed_per_query(name: str) -> bool:
    """Whether trec_eval -q prints the reported measure `name` per query (gm_map: 'all' only)."""
    declaration = BY_NAME.get(family_of(name)[0])
    return declaration.per_query_printed if declaration else True


def bounded(name: str) -> bool:
    """Whether the reported measure's per-query values lie in [-1, 1] (the summary's exact sums)."""
    declaration = BY_NAME.get(family_of(name)[0])
    return declaration.bounded if declaration else True
