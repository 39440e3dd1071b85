"""What the plan tests count in a physical plan's text: shuffles, reused shuffles, broadcasts, sorts."""

from __future__ import annotations

import re

EXCHANGE = re.compile(r"^[\s:|+-]*(\*\(\d+\) )?Exchange hashpartitioning", re.MULTILINE)
REUSED = re.compile(r"^[\s:|+-]*ReusedExchange", re.MULTILINE)
BROADCAST = re.compile(r"Broadcast", re.MULTILINE)
SORT = re.compile(r"^[\s:|+-]*(\*\(\d+\) )?Sort \[", re.MULTILINE)


def counts(plan: str) -> dict[str, int]:
    """How many of each a plan holds."""
    patterns = {"exchanges": EXCHANGE, "reused": REUSED, "broadcasts": BROADCAST, "sorts": SORT}
    return {name: len(pattern.findall(plan)) for name, pattern in patterns.items()}
