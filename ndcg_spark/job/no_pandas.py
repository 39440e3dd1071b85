"""pyarrow's one probe for pandas, answered "no" for a command that never converts to pandas: the
import it would cost (0.13 s, a fifth of a small local run) is skipped."""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any

import pyarrow as pa


class _NoPandas(importlib.abc.MetaPathFinder):
    """Refuses `import pandas`, for as long as it is on sys.meta_path."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == "pandas":
            raise ImportError("pandas is not needed here")


def skip_pyarrow_pandas_probe() -> None:
    """pyarrow imports pandas (a third of this command's time) at its first conversion of a
    Python value, only to ask whether the value is a pandas object; this command never holds one.
    So pyarrow's one probe is answered 'no pandas' (its integration off, as without pandas), and
    pandas imports as usual afterwards for anyone who wants it."""
    if "pandas" in sys.modules:
        return
    refusal = _NoPandas()
    sys.meta_path.insert(0, refusal)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(refusal)
