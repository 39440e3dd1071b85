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


# The Spark versions these counts were confirmed on: the oldest and the newest the project claims
# (pyproject.toml: pyspark>=4.0,<5).
CONFIRMED_ON = ("4.0.1", "4.3.0")
SPARK = tuple(int(part) for part in pyspark.__version__.split(".")[:2])
# The main pass's sorts of rows: four from Spark 4.3 on; Spark 4.0 plans two more (its window
# and join orders are not shared), the same numbers at a little more cost.
MAIN_PASS_SORTS = 4 if SPARK >= (4, 3) else 6


def drift(plan: str) -> str:
    """The message of a count that no longer holds: which Spark planned it, and the plan."""
    return (
        f"the physical plan changed under pyspark {pyspark.__version__} (counts confirmed on"
        f" {' and '.join(CONFIRMED_ON)}): {counts(plan)}\n{plan}"
    )
