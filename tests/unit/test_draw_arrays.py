"""The arrays engine's arithmetic and its one refusal, in plain Python: exact integer products
through BLAS, the Poisson inversion on integer bits, and a missing module on the executors."""

from __future__ import annotations

import numpy as np
from pyspark.errors import PythonException

from ndcg_spark.comparison.compare import _missing_module
from ndcg_spark.comparison.draw_arrays import _poisson, exact_products
from ndcg_spark.comparison.draws import POISSON_CDF, UNIFORM_BITS
from ndcg_spark.comparison.rows import ARRAYS_FROM_ROWS, Resampling
from ndcg_spark.errors import EXIT_USAGE
from ndcg_spark.remedies import VOICE_JOB, VOICE_PYTHON


def test_products_are_exact_beyond_doubles() -> None:
    """Values up to 2^48 in magnitude, sums up to 2^61, where a double keeps 53 bits: every sum is Python's."""
    rng = np.random.default_rng(2)
    left = rng.integers(0, 19, size=(400, 30)).astype(np.float64)
    values = rng.integers(-(2**48), 2**48, size=(400, 3), dtype=np.int64)
    values[0] = [2**48, -(2**48), 0]
    got = exact_products(left, values)
    expected = [[sum(int(left[r, d]) * int(values[r, j]) for r in range(400)) for j in range(3)] for d in range(30)]
    assert got.tolist() == expected
    assert exact_products(left[:0], values[:0]).shape == (30, 3)


def test_the_poisson_counts_invert_the_same_distribution() -> None:
    """As resampling._poisson does on the uniform bits / 2^53: the first j with u < CDF[j]."""
    thresholds = [int(np.ceil(p * 2**UNIFORM_BITS)) for p in POISSON_CDF]
    bits = np.array([0, thresholds[0] - 1, thresholds[0], thresholds[1], thresholds[4] - 1, 2**UNIFORM_BITS - 1], dtype=np.uint64)
    expected = [next((j for j, p in enumerate(POISSON_CDF) if b / 2**UNIFORM_BITS < p), len(POISSON_CDF)) for b in bits]
    assert _poisson(bits).tolist() == expected == [0, 0, 1, 2, 4, len(POISSON_CDF)]


def test_a_module_the_executors_lack_is_a_setup_error_with_its_remedy() -> None:
    failure = PythonException(
        "An exception was thrown from the Python worker.\nTraceback (most recent call last):\n"
        "  File \"worker.py\", line 1, in <module>\nModuleNotFoundError: No module named 'numpy'\n"
    )
    error = _missing_module(failure)
    assert error is not None and error.exit_code == EXIT_USAGE
    assert "cannot import 'numpy'" in error.said(VOICE_JOB)
    remedy = 'pass --resampling rows (config file: [comparison] resampling = "rows") to compute them in Spark SQL alone'
    assert error.said(VOICE_JOB).endswith(remedy)
    assert 'pass resampling="rows"' in error.said(VOICE_PYTHON)
    assert _missing_module(PythonException("ZeroDivisionError: division by zero")) is None


def test_auto_takes_arrays_from_ten_million_rows_of_draws() -> None:
    auto = Resampling(1000, 500, 42)
    assert not auto.arrays(ARRAYS_FROM_ROWS // 1000 - 1) and auto.arrays(ARRAYS_FROM_ROWS // 1000)
    assert Resampling(1000, 500, 42, "arrays").arrays(1) and not Resampling(1000, 500, 42, "rows").arrays(10**9)
