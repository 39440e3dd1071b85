"""NDCG@k, and every other measure of the reports, as a pyspark.ml Evaluator, for CrossValidator
and TrainValidationSplit.

Spark's own RankingEvaluator takes binary relevance only, and its RankingMetrics does not sort
the ideal list; this one scores graded labels with trec_eval's rules, by the same code as the job.
Its metricName also takes Spark's names (ndcgAtK, precisionAtK, recallAtK, meanAveragePrecision,
meanAveragePrecisionAtK) with k, so that a tuning script written for Spark's evaluator keeps its
parameters."""

from __future__ import annotations

from typing import Any

from pyspark import keyword_only
from pyspark.ml.evaluation import Evaluator
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.param.shared import HasLabelCol, HasPredictionCol
from pyspark.ml.util import DefaultParamsReadable, DefaultParamsWritable
from pyspark.sql import DataFrame

from ndcg_spark import columns as c
from ndcg_spark.api import evaluate
from ndcg_spark.checks.inputs import ARE_NAN
from ndcg_spark.errors import ConfigError, InputError
from ndcg_spark.labelled import labelled_mean
from ndcg_spark.measures import NDCG_MEASURES, Measure, declaration_of, parse_measures, takes_cutoff
from ndcg_spark.options import GAIN_LINEAR, Gain, Options

DEFAULT_K = 10
NDCG_AT_K = "ndcgAtK"
# Spark's RankingEvaluator's metric names, as trec_eval's measures (cut at k when they take one).
SPARK_METRICS = {
    NDCG_AT_K: "ndcg_cut",
    "precisionAtK": "P",
    "recallAtK": "recall",
    "meanAveragePrecision": "map",
    "meanAveragePrecisionAtK": "map_cut",
}


def measure_of(metric: str, k: int) -> Measure:
    """The measure a metricName names: one of Spark's names, trec_eval's (P, map, ndcg_cut.5) or
    ir_measures' (P@5, AP, RR); a measure that takes a cutoff and names none is cut at k."""
    name = SPARK_METRICS.get(metric, metric)
    if takes_cutoff(name):
        return Measure(name, k)
    try:
        (measure,) = parse_measures(name)
    except ValueError:
        raise ConfigError(f"metricName {metric!r} names several measures; name one, e.g. P@10") from None
    except ConfigError as error:
        spark = ", ".join(SPARK_METRICS)
        raise ConfigError(f"metricName: {error}; Spark's names are {spark}") from None
    return measure


class NdcgEvaluator(Evaluator, HasLabelCol, HasPredictionCol, DefaultParamsReadable, DefaultParamsWritable):
    """Mean NDCG@k (or the measure metricName names) over the queries of a frame with one row per
    (query, candidate document).

    The label is the graded relevance (whole numbers; negatives gain 0), the prediction is the
    score that ranks the candidates; the ideal list is built from the labels in the frame, and
    score ties are broken by document id descending, as trec_eval does. A query whose labels
    are all 0 scores 0 and counts in the mean. For the binary measures a candidate is relevant
    when its label is at least relevanceLevel. Larger is better, for every measure."""

    _input_kwargs: dict[str, Any]  # set by keyword_only

    metricName: Param[str] = Param(
        Params._dummy(),
        "metricName",
        "the measure: ndcgAtK, precisionAtK, recallAtK, meanAveragePrecision, meanAveragePrecisionAtK (Spark's"
        " names), or any of the catalogue's, by trec_eval's or ir_measures' name (P, recall, map, recip_rank,"
        " Rprec, bpref, infAP, ndcg, P@5, AP, RR@10, ...); cut at k when it takes a cutoff and names none",
        typeConverter=TypeConverters.toString,
    )
    k: Param[int] = Param(Params._dummy(), "k", "the cutoff of NDCG@k (of the measure)", typeConverter=TypeConverters.toInt)
    relevanceLevel: Param[int] = Param(
        Params._dummy(),
        "relevanceLevel",
        "the label from which a candidate is relevant, for the binary measures (trec_eval -l)",
        typeConverter=TypeConverters.toInt,
    )
    gain: Param[str] = Param(
        Params._dummy(), "gain", "linear (trec_eval) or exponential (2^rel - 1)", typeConverter=TypeConverters.toString
    )
    queryCol: Param[str] = Param(Params._dummy(), "queryCol", "query id column", typeConverter=TypeConverters.toString)
    docCol: Param[str] = Param(Params._dummy(), "docCol", "document id column", typeConverter=TypeConverters.toString)

    @keyword_only
    def __init__(
        self,
        *,
        metricName: str = NDCG_AT_K,
        k: int = DEFAULT_K,
        relevanceLevel: int = 1,
        gain: Gain = GAIN_LINEAR,
        queryCol: str = c.QUERY_ID,
        docCol: str = c.DOC_ID,
        labelCol: str = "label",
        predictionCol: str = "prediction",
    ) -> None:
        super().__init__()
        self._setDefault(
            metricName=NDCG_AT_K,
            k=DEFAULT_K,
            relevanceLevel=1,
            gain=GAIN_LINEAR,
            queryCol=c.QUERY_ID,
            docCol=c.DOC_ID,
            labelCol="label",
            predictionCol="prediction",
        )
        self._set(**self._input_kwargs)

    @keyword_only
    def setParams(
        self,
        *,
        metricName: str = NDCG_AT_K,
        k: int = DEFAULT_K,
        relevanceLevel: int = 1,
        gain: Gain = GAIN_LINEAR,
        queryCol: str = c.QUERY_ID,
        docCol: str = c.DOC_ID,
        labelCol: str = "label",
        predictionCol: str = "prediction",
    ) -> NdcgEvaluator:
        return self._set(**self._input_kwargs)

    def setMetricName(self, value: str) -> NdcgEvaluator:
        return self._set(metricName=value)

    def getMetricName(self) -> str:
        return self.getOrDefault(self.metricName)

    def setRelevanceLevel(self, value: int) -> NdcgEvaluator:
        return self._set(relevanceLevel=value)

    def getRelevanceLevel(self) -> int:
        return self.getOrDefault(self.relevanceLevel)

    def setK(self, value: int) -> NdcgEvaluator:
        return self._set(k=value)

    def getK(self) -> int:
        return self.getOrDefault(self.k)

    def setGain(self, value: Gain) -> NdcgEvaluator:
        return self._set(gain=value)

    def getGain(self) -> str:
        return self.getOrDefault(self.gain)

    def setQueryCol(self, value: str) -> NdcgEvaluator:
        return self._set(queryCol=value)

    def getQueryCol(self) -> str:
        return self.getOrDefault(self.queryCol)

    def setDocCol(self, value: str) -> NdcgEvaluator:
        return self._set(docCol=value)

    def getDocCol(self) -> str:
        return self.getOrDefault(self.docCol)

    def setLabelCol(self, value: str) -> NdcgEvaluator:
        return self._set(labelCol=value)

    def setPredictionCol(self, value: str) -> NdcgEvaluator:
        return self._set(predictionCol=value)

    def isLargerBetter(self) -> bool:
        """The measure's own direction (its declaration's): True for NDCG and most, False where a
        lower value is the better ranking (unj, rbp_resid)."""
        return declaration_of(measure_of(self.getMetricName(), self.getK())).larger_is_better

    def _columns(self) -> dict[str, str]:
        """The evaluator's column parameters and the columns they name, in the order a reader
        of the dataset would look for them."""
        return {
            "queryCol": self.getQueryCol(),
            "docCol": self.getDocCol(),
            "labelCol": self.getLabelCol(),
            "predictionCol": self.getPredictionCol(),
        }

    def _check_columns(self, dataset: DataFrame) -> None:
        """Refuse a parameter naming no column of the dataset now, in the parameter's words: later,
        Spark's own error would name the columns of whatever model made the dataset."""
        found = dataset.columns
        missing = [f"{param}={name!r}" for param, name in self._columns().items() if name not in found]
        if missing:
            raise ConfigError(
                f"{type(self).__name__}: {', '.join(missing)} not in the dataset (found: {', '.join(found)});"
                " set the parameter to one of these columns"
            )

    def _restated(self, error: InputError) -> InputError:
        """A refused row check in the evaluator's words: the parameter that names the column and,
        for NaN predictions, the usual cause."""
        param = next((param for param, name in self._columns().items() if name == error.column), None)
        if param is None:
            return error
        message = f"{type(self).__name__}: {param} {error.column!r}: {error.bad} of {error.rows} rows {error.problem}"
        if param == "predictionCol" and error.problem == ARE_NAN:
            message += (
                "; ALS predicts NaN for users and items it did not see in training: set"
                ' ALS(coldStartStrategy="drop"), or drop those rows before evaluating'
            )
        return InputError(message, column=error.column, problem=error.problem, bad=error.bad, rows=error.rows)

    def _evaluate(self, dataset: DataFrame) -> float:
        """NDCG takes the labelled frame's own path (labelled.labelled_mean: one shuffle, each
        query's rows as one list, the mean alone); the other measures evaluate the frame as
        judgments and results, as the job does."""
        measure = measure_of(self.getMetricName(), self.getK())
        self._check_columns(dataset)
        query, doc, label, prediction = self._columns().values()
        options: dict[str, Any] = {
            "ks": (self.getK() if measure.k is None else measure.k,),
            "gain": self.getGain(),  # checked by Options, as the job's --gain
            "uncut": measure.name == c.MEASURE_UNCUT,
            "measures": [] if measure.name in NDCG_MEASURES else [measure],
            "relevance_level": self.getRelevanceLevel(),
            "columns": {"query_id": query, "doc_id": doc, "relevance": label, "score": prediction},
        }
        try:
            if measure.name in NDCG_MEASURES:
                value: float | None = labelled_mean(dataset, Options.of(options), measure)
            else:
                value = self._mean_of_report(dataset, options, measure)
        except InputError as error:
            raise self._restated(error) from None
        return 0.0 if value is None else float(value)

    def _mean_of_report(self, dataset: DataFrame, options: dict[str, Any], measure: Measure) -> float | None:
        query, doc, label, prediction = self._columns().values()
        report = evaluate(dataset.select(query, doc, label), dataset.select(query, doc, prediction), **options)
        rows: list[Any] = [row for row in report.evaluation.summary if (row[c.MEASURE], row[c.K]) == (measure.name, measure.k)]
        report.unpersist()  # only the mean is wanted: free the stored rows now (Spark Connect)
        return rows[0][c.VALUE] if rows else None
