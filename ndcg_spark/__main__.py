"""`python -m ndcg_spark`: the same command as `ndcg-spark`."""

from ndcg_spark.job.cli import entry_point

entry_point()
