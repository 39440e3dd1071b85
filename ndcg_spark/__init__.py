"""NDCG@k evaluation of ranked results on Spark, with trec_eval's semantics."""

from __future__ import annotations

__version__ = "0.1.0"
