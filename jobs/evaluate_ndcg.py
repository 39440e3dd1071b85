"""spark-submit entry point of the evaluation: see ndcg_spark.job.cli."""

import sys

from ndcg_spark.job.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
