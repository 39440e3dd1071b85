"""compare(): every run against the baseline at every cutoff, from the pairing, the resampling
and the paired t-test, with Holm's correction across runs."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from pyspark.errors import PySparkImportError, PythonException
from pyspark.sql import DataFrame, SparkSession

from ndcg_spark.checks.kinds import require_baseline
from ndcg_spark.comparison.pairing import EXACT_DRAWS, N_PAIRS, PERMS, cutoff_column, pair_stats, paired
from ndcg_spark.comparison.resampling import (
    draw_arrays,
    draw_rows,
    fixed_rows,
    fixed_scale,
    resampling_plan,
    spread,
)
from ndcg_spark.comparison.rows import ComparisonRow, Cutoff, Resampling
from ndcg_spark.comparison.stats import holm, paired_t
from ndcg_spark.errors import ConfigError
from ndcg_spark.options import RESAMPLING_ROWS, spelling
from ndcg_spark.remedies import Remedy
from ndcg_spark.scoring.exact_sums import FRACTION_BITS, mean_of_some, mean_of_total

_UNIT = 2**FRACTION_BITS  # an exact sum counts in units of 1 / _UNIT
_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")


def _mean(total: int, n: int) -> float | None:
    """The mean of n values from their exact_sum, as the summary computes it."""
    return mean_of_total(int(total), n)


def _variance(total: int, squares: int, n: int) -> float:
    """The sample variance from exact_sums of the values and of their squares, in integers:
    (S - T^2 / n) / (n - 1) with T and S in units of 2^-FRACTION_BITS, one rounding at the end."""
    t, s = int(total), int(squares)
    return float(Fraction(s * _UNIT * n - t * t, _UNIT * _UNIT * n * (n - 1)))


def compare(
    spark: SparkSession,
    wide: DataFrame,
    baseline: str,
    runs: list[str],
    cutoffs: list[Cutoff],
    resampling: Resampling,
    rows: int,
) -> list[ComparisonRow]:
    """The comparison rows (COMPARISON_SCHEMA), one per other run and cutoff, runs in order, from
    a row per (run, query) with each cutoff's value (pairing.wide_values' columns), about `rows`
    of them. They are spread by query before the pairing, whose window keeps that partitioning
    for the draws: no shuffle of their own. The caller starts the Python workers
    (resampling.start_python_workers), as early as it can."""
    require_baseline(baseline, runs)
    compared = rows * (len(runs) - 1) // len(runs)  # the pairs: the baseline's rows pair with the others'
    pairs = paired(spread(wide, compared), baseline, cutoffs).cache()
    others = [run for run in runs if run != baseline]
    try:
        return compare_pairs(spark, pairs, baseline, others, cutoffs, resampling, spread_already=True)
    finally:
        pairs.unpersist()


def compare_pairs(
    spark: SparkSession,
    pairs: DataFrame,
    baseline: str,
    runs: list[str],
    cutoffs: list[Cutoff],
    resampling: Resampling,
    spread_already: bool = False,
) -> list[ComparisonRow]:
    """The comparison rows of paired values (pairing.py's columns b_, r_, d_ per cutoff), one
    per run and cutoff, runs in the given order; `baseline` names what each run was paired
    with. The caller caches `pairs`: every test reads them, and starts the Python workers
    (resampling.start_python_workers). spread_already: the pairs are spread by query
    (resampling.spread), as the draws' arrays want them."""
    stats = pair_stats(pairs, cutoffs)
    resampled: dict[str, dict[str, Any]] = {}
    plans: dict[str, Any] = {}
    if stats:
        pair_rows = sum(row[N_PAIRS] for row in stats.values())
        arrays = resampling.arrays(pair_rows)
        scale = fixed_scale(max(row[N_PAIRS] for row in stats.values()))
        plans = resampling_plan(stats, resampling)
        fixed = fixed_rows(pairs, plans, cutoffs, scale)
        if arrays:
            try:
                draws = draw_arrays(fixed if spread_already else spread(fixed, pair_rows), cutoffs, resampling)
            except PySparkImportError as error:  # the driver's pyspark asks for pandas and pyarrow first
                needs = "the comparison's draws as arrays need what pyspark's Arrow path imports"
                raise _without_rows_engine(f"{needs}: {error}") from None
        else:
            draws = draw_rows(fixed, cutoffs, resampling)
        from ndcg_spark.comparison.resampled import resampled_sums  # numpy: a comparison's only

        try:
            resampled = resampled_sums(draws.toArrow(), cutoffs, resampling, scale)
        except PythonException as error:
            raise _missing_module(error) or error from None
    return comparison_rows(baseline, runs, cutoffs, stats, resampled, plans, resampling)


def comparison_rows(
    baseline: str,
    runs: list[str],
    cutoffs: list[Cutoff],
    stats: dict[str, dict[str, Any]],
    resampled: dict[str, dict[str, Any]],
    plans: dict[str, Any],
    resampling: Resampling,
) -> list[ComparisonRow]:
    """The rows, one per run and cutoff, from the pairs' statistics and the resampled sums (either
    engine's: the same integers), Holm's correction applied."""
    rows = [
        _row(baseline, run, cut, stats.get(run), resampled.get(run), plans.get(run), resampling)
        for run in runs
        for cut in cutoffs
    ]
    _adjust(rows, cutoffs)
    return rows


def _missing_module(error: PythonException) -> ConfigError | None:
    """The executors' Python lacks what the arrays engine imports: a setup to fix, not a failure
    to retry; None for any other failure of a Python worker."""
    found = _MISSING_MODULE.search(str(error))
    if found is None:
        return None
    return _without_rows_engine(
        f"the comparison's draws run numpy in the executors' Python, which cannot import {found.group(1)!r}:"
        " install numpy, pyarrow and pandas there (docs/operations.md, Running on a cluster)"
    )


def _without_rows_engine(message: str) -> ConfigError:
    """A Python without what the arrays engine imports: a setup to fix, or the rows engine."""
    missing = ConfigError(message)
    missing.remedy = Remedy(spelling("resampling"), RESAMPLING_ROWS, "to compute them in Spark SQL alone")
    return missing


def _row(
    baseline: str,
    run: str,
    cut: Cutoff,
    stats: dict[str, Any] | None,
    resampled: dict[str, Any] | None,
    plan: Any,
    resampling: Resampling,
) -> ComparisonRow:
    n = stats[N_PAIRS] if stats else 0
    row = ComparisonRow(
        baseline=baseline,
        run_id=run,
        measure=cut.measure,
        k=cut.k,
        num_queries=n,
        permutations=plan[PERMS] if plan else resampling.permutations,
        randomization_exact=bool(plan[EXACT_DRAWS]) if plan else False,
        bootstrap=resampling.bootstrap,
        seed=resampling.seed,
    )
    if not stats or not n:
        return row
    total = stats[cutoff_column("sd", cut)]
    mean = mean_of_some(int(total), n)
    t, p = paired_t(n, mean, _variance(total, stats[cutoff_column("sdd", cut)], n) if n > 1 else 0.0)
    row.ndcg_baseline = _mean(stats[cutoff_column("sb", cut)], n)
    row.ndcg_run = _mean(stats[cutoff_column("sr", cut)], n)
    row.mean_difference = mean
    row.wins, row.ties, row.losses = (
        stats[cutoff_column("w", cut)],
        stats[cutoff_column("t", cut)],
        stats[cutoff_column("l", cut)],
    )
    row.t_statistic, row.p_value_t = t, p
    if resampled:
        adjustment = 0 if plan[EXACT_DRAWS] else 1
        draws = plan[PERMS]
        tail = min(resampled[cutoff_column("less", cut)], resampled[cutoff_column("more", cut)]) + adjustment
        interval = resampled[cutoff_column("ci", cut)] or [None, None]
        row.p_value_randomization = min(1.0, 2.0 * tail / (draws + adjustment))
        row.ci_low, row.ci_high = interval[0], interval[1]
    return row


def _adjust(rows: list[ComparisonRow], cutoffs: list[Cutoff]) -> None:
    """Holm across the compared runs, separately for each cutoff and each test."""
    for cut in cutoffs:
        group = [row for row in rows if row.measure == cut.measure and row.k == cut.k]
        for row, value in zip(group, holm([row.p_value_t for row in group]), strict=True):
            row.p_value_t_holm = value
        for row, value in zip(group, holm([row.p_value_randomization for row in group]), strict=True):
            row.p_value_randomization_holm = value
