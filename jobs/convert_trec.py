"""spark-submit entry point of the TREC text <-> Parquet conversion: see ndcg_spark.job.convert_trec."""

import sys

from ndcg_spark.job.convert_trec import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
