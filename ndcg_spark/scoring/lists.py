"""NDCG per query from one frame of labelled candidates, as arrays: the evaluator's path.

A model's transformed test set holds each candidate's grade and score on one row. Each query's
rows are collected into one list (an aggregation over the one shuffle by query_id), and the list
is ranked, and ideally ordered, by sorting that array: no join of the frame with itself and no
window (the aggregation, past 128 queries a task, sorts its rows by query only). The sums run in
rank order over the same terms as the windows' (ranking.discounted), from 0, so every value is
the windows' bit for bit.

One list is held in memory per query: fine for a test set's candidates (hundreds or thousands a
query); the windows of dcg.query_pairs stream lists of any length."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ndcg_spark import columns as c
from ndcg_spark.frames import sql_name
from ndcg_spark.scoring.formulas import formulas_of
from ndcg_spark.scoring.plan import ScoringPlan
from ndcg_spark.scoring.ranking import BIGINT, TIE_BREAK, discounted, gain, tie_break

# How many rows of a list repeat a document of a row before them: what the copies checks count.
COPIES = "_copies"
_LIST = "_list"
_RANKED = "_ranked_gains"
_IDEAL = "_ideal_gains"


def _first(gains: str, k: int | None) -> str:
    """SQL text: the first k gains of a list (all of them for None)."""
    return gains if k is None else f"slice({gains}, 1, {k})"


def _dcg_to(gains: str, k: int | None) -> str:
    """SQL text: the DCG of the first k gains, summed in order from 0, as the windows sum."""
    terms = f"transform({_first(gains, k)}, (g, i) -> {discounted('g', '(i + 1)')})"
    return f"aggregate({terms}, 0.0D, (total, term) -> total + term)"


def _relevant_to(gains: str, k: int | None) -> str:
    """SQL text: how many of the first k gains are positive (relevant rows, as the windows count)."""
    return f"CAST(size(filter({_first(gains, k)}, g -> g > 0.0D)) AS {BIGINT})"


def labelled_lists(rows: DataFrame, plan: ScoringPlan) -> DataFrame:
    """One row per (run, query) of `rows` (canonical columns: run_id, query_id, doc_id, relevance,
    score; hash-partitioned by query_id): the columns of dcg.query_pairs that the plan's NDCG measures
    read (DCG and ideal DCG at each cutoff, the counts), and COPIES. Every row is retrieved and
    judged; the plan's order is by score (ties by doc_id descending, as a string)."""
    gain_name, score, doc = sql_name(c.GAIN), sql_name(c.SCORE), sql_name(c.DOC_ID)
    # Sorted by (score, tie-break): the tie-break is unique in a list without copies, so the
    # fields after it never decide. doc_id finds the copies (a long, for integer ids, hashes
    # faster than its string: 0.13 s of 1.4 s at 1M rows).
    item = f"struct({score}, {sql_name(TIE_BREAK)}, {gain_name}, {doc})"
    collected = (
        rows.select(
            c.RUN_ID, c.QUERY_ID, c.SCORE, tie_break(), gain(F.col(c.RELEVANCE), plan.gain, plan.gains).alias(c.GAIN), c.DOC_ID
        )
        .groupBy(c.QUERY_ID, c.RUN_ID)
        .agg(F.expr(f"collect_list({item})").alias(_LIST))
    )
    listed = sql_name(_LIST)
    # Descending by (score, tie-break), trec_eval's order; the ideal order by gain alone (the
    # order of equal gains changes no term).
    terms = collected.select(
        c.QUERY_ID,
        c.RUN_ID,
        F.expr(f"CAST(size({listed}) AS {BIGINT})").alias(c.NUM_RETRIEVED),
        F.expr(f"size({listed}) - size(array_distinct(transform({listed}, x -> x.{doc})))").alias(COPIES),
        F.expr(f"transform(sort_array({listed}, false), x -> x.{gain_name})").alias(_RANKED),
        F.expr(f"sort_array(transform({listed}, x -> x.{gain_name}), false)").alias(_IDEAL),
    )
    ranked, ideal, retrieved = sql_name(_RANKED), sql_name(_IDEAL), sql_name(c.NUM_RETRIEVED)
    needs = formulas_of(plan).needs
    cutoffs = sorted(needs.dcg_ks | needs.ideal_ks | needs.positive_ks, key=c.cutoff_order)
    per_cutoff = {}
    for k in cutoffs:
        per_cutoff[c.at_cutoff(c.DCG, k)] = _dcg_to(ranked, k)
        per_cutoff[c.at_cutoff(c.NUM_RELEVANT_RETRIEVED, k)] = _relevant_to(ranked, k)
        per_cutoff[c.at_cutoff(c.NUM_JUDGED_RETRIEVED, k)] = retrieved if k is None else f"least({retrieved}, {k}L)"
        per_cutoff[c.at_cutoff(c.IDCG, k)] = _dcg_to(ideal, k)
    return terms.select(
        c.RUN_ID,
        c.QUERY_ID,
        c.NUM_RETRIEVED,
        F.col(c.NUM_RETRIEVED).alias(c.NUM_JUDGED),
        F.expr(_relevant_to(ideal, None)).alias(c.NUM_RELEVANT),
        *[F.expr(f"{text} AS {sql_name(name)}") for name, text in per_cutoff.items()],
        COPIES,
    )
