"""The measure catalogue: every measure declared once (catalogue.py), what a declaration and a
measure asked for are (declaration.py), and how a caller names them (names.py)."""

from ndcg_spark.measures.catalogue import (
    BY_NAME,
    CATALOGUE,
    NDCG_CUT,
    NDCG_MEASURES,
    NDCG_UNCUT,
    bounded,
    combine_of,
    declaration_of,
    declared,
    family_of,
    is_whole,
    label,
    printed_per_query,
    report_order,
    trec_eval_order,
)
from ndcg_spark.measures.declaration import GEOMETRIC, MEAN, MIN_GEO_MEAN, SUM, Declaration, Ingredients, Measure
from ndcg_spark.measures.names import NAMED_SETS, measures_of_set, parse_measures, scored, supported_names, takes_cutoff

__all__ = [
    "BY_NAME",
    "CATALOGUE",
    "GEOMETRIC",
    "MEAN",
    "MIN_GEO_MEAN",
    "NAMED_SETS",
    "NDCG_CUT",
    "NDCG_MEASURES",
    "NDCG_UNCUT",
    "SUM",
    "Declaration",
    "Ingredients",
    "Measure",
    "bounded",
    "combine_of",
    "declaration_of",
    "declared",
    "family_of",
    "is_whole",
    "label",
    "measures_of_set",
    "printed_per_query",
    "parse_measures",
    "report_order",
    "scored",
    "supported_names",
    "takes_cutoff",
    "trec_eval_order",
]
