"""What the plan tests count in a physical plan's text: shuffles, reused shuffles, broadcasts, sorts."""

from __future__ import annotations

import re

import pyspark

EXCHANGE = re.compile(r"^[\s:|+-]*(\*\(\d+\) )?Exchange hashpartitioning", re.MULTILINE)
REUSED = re.compile(r"^[\s:|+-]*ReusedExchange", re.MULTILINE)
BROADCAST = re.compile(r"Broadcast", re.MULTILINE)
SORT = re.compile(r"^[\s:|+-]*(\*\(\d+\) )?Sort \[", re.MULTILINE)


def counts(plan: str) -> dict[str, int]:
    """How many of each a plan holds."""
    patterns = {"exchanges": EXCHANGE, "reused": REUSED, "broadcasts": BROADCAST, "sorts": SORT}
    return {name: len(pattern.findall(plan)) for name, pattern in patterns.items()}


# The main pass's sorts of rows, as measured on the versions CI runs: the lower bound of
# pyproject.toml's range (scripts/test_lowest.sh) and the newest it resolves to (scripts/test.sh).
# Spark 4.0 plans two more sorts than 4.3 (its window and join orders are not shared), with the
# same numbers at a little more cost.
MEASURED_SORTS = {(4, 0): 6, (4, 3): 4}
CONFIRMED_ON = ("4.0.1", "4.3.0")
SPARK = tuple(int(part) for part in pyspark.__version__.split(".")[:2])


def main_pass_sorts() -> set[int]:
    """The sorts the main pass may plan under this pyspark: its measured count; on a version CI
    does not run (4.1, 4.2, a newer 4.x), any count measured on one it runs, no other."""
    measured = MEASURED_SORTS.get(SPARK)  # type: ignore[call-overload]
    return {measured} if measured is not None else set(MEASURED_SORTS.values())


MAIN_PASS_SORTS = main_pass_sorts()


def drift(plan: str) -> str:
    """The message of a count that no longer holds: which Spark planned it, and the plan."""
    return (
        f"the physical plan changed under pyspark {pyspark.__version__} (counts confirmed on"
        f" {' and '.join(CONFIRMED_ON)}): {counts(plan)}\n{plan}"
    )
