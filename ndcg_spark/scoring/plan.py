"""The one plan the scoring path reads: the measures to score and how (gains, order, trec_eval's
-J, -M, -c and -l), made once per evaluation from the options. Engine-neutral: each engine builds
its own pass from it (scoring.formulas for Spark, scoring.embedded for numpy)."""

from __future__ import annotations

from dataclasses import dataclass

from ndcg_spark.measures import Measure
from ndcg_spark.option_values import GainTable
from ndcg_spark.options import GAIN_LINEAR, ORDER_BY_SCORE, TREC_EVAL_10, Gain, Options, OrderBy, TrecEvalVersion


@dataclass(frozen=True)
class ScoringPlan:
    """measures: every (measure, k) a (run, query) row is reported at, in that order (NDCG is one
    of them, as any other). relevance_level: from which grade a document is relevant to the
    measures of relevance (trec_eval -l). gain, gains: how a grade gains. order_by: score
    (trec_eval's order) or the results' rank. judged_only, max_depth: trec_eval -J and -M.
    complete: trec_eval -c. trec_eval_version: whose rules where trec_eval's versions differ.
    variant: Options.variant, the reports' column. page_measures: scored in the same pass for the
    HTML page alone (its precision-recall curve), reported nowhere else."""

    measures: tuple[Measure, ...]
    relevance_level: int = 1
    gain: Gain = GAIN_LINEAR
    gains: GainTable = ()
    order_by: OrderBy = ORDER_BY_SCORE
    judged_only: bool = False
    max_depth: int | None = None
    complete: bool = False
    trec_eval_version: TrecEvalVersion = TREC_EVAL_10
    variant: str = ""
    page_measures: tuple[Measure, ...] = ()

    @property
    def scored(self) -> tuple[Measure, ...]:
        """What the pass computes: the reported measures, then the page's own."""
        return self.measures + self.page_measures

    @property
    def by_gain(self) -> bool:
        """Whether relevant at the level is gain > 0: level 1 and the gain's own values (whose
        positive gains are exactly the grades >= 1; a custom table may give a grade >= 1 gain 0)."""
        return self.relevance_level == 1 and not self.gains

    @classmethod
    def of(cls, options: Options, page_measures: tuple[Measure, ...] = ()) -> ScoringPlan:
        """The plan of validated options (and of what the page alone draws, of those not asked)."""
        measures = options.scored_measures
        return cls(
            measures=measures,
            page_measures=tuple(measure for measure in page_measures if measure not in measures),
            relevance_level=options.relevance_level,
            gain=options.gain,
            gains=options.gains,
            order_by=options.order_by,
            judged_only=options.judged_only,
            max_depth=options.max_depth,
            complete=options.complete,
            trec_eval_version=options.trec_eval_version,
            variant=options.variant,
        )
