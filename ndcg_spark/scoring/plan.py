"""The one plan the scoring path reads: what it needs of the options and the measures asked for
(their formulas built, and so what the pass must compute for them), made once per evaluation."""

from __future__ import annotations

from dataclasses import dataclass

from ndcg_spark.option_values import GainTable
from ndcg_spark.options import GAIN_LINEAR, ORDER_BY_SCORE, Gain, Options, OrderBy
from ndcg_spark.scoring.binary import Binary, binary_of


@dataclass(frozen=True)
class ScoringPlan:
    """ks, uncut: NDCG's cutoffs and whether the uncut NDCG is reported. gain, gains: how a grade
    gains. order_by: score (trec_eval's order) or the results' rank. judged_only, max_depth:
    trec_eval -J and -M. complete: trec_eval -c. variant: Options.variant, the reports' column.
    binary: the measures beside NDCG (None when NDCG alone)."""

    ks: tuple[int, ...]
    uncut: bool = True
    gain: Gain = GAIN_LINEAR
    gains: GainTable = ()
    order_by: OrderBy = ORDER_BY_SCORE
    judged_only: bool = False
    max_depth: int | None = None
    complete: bool = False
    variant: str = ""
    binary: Binary | None = None

    @classmethod
    def of(cls, options: Options) -> ScoringPlan:
        """The plan of validated options (Options.validated: NDCG asked for by name is in ks)."""
        return cls(
            ks=options.ks,
            uncut=options.uncut,
            gain=options.gain,
            gains=options.gains,
            order_by=options.order_by,
            judged_only=options.judged_only,
            max_depth=options.max_depth,
            complete=options.complete,
            variant=options.variant,
            binary=binary_of(options.measures, options.relevance_level, options.gains),
        )
