"""The package's folders follow the data flow, and imports only run downstream: read and check,
score, compare, report, publish; the job on top, imported by nothing (see docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ndcg_spark"

# Each step may import the steps before it, never one after it.
FLOW = [
    {"ndcg_spark", "columns", "errors", "options", "progress", "spark_conf", "frames", "sessions"},
    {"io"},
    {"checks"},
    {"scoring"},
    {"comparison"},
    {"evaluation"},
    {"report"},
    {"publish"},
    {"api"},
    {"evaluator"},
    {"job"},
    {"__main__"},
]


def _step(module: str) -> int:
    """The step of 'ndcg_spark.x.y' (or of the file 'x/y.py'): where x sits in FLOW."""
    parts = module.split(".")
    name = parts[1] if parts[0] == "ndcg_spark" and len(parts) > 1 else parts[0]
    return next(index for index, names in enumerate(FLOW) if name in names)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ndcg_spark"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("ndcg_spark")}
    return found


def _modules() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py")) if path.name != "__init__.py" or path.parent != PACKAGE]


def test_imports_only_run_downstream() -> None:
    wrong = []
    for path in _modules():
        relative = path.relative_to(PACKAGE).with_suffix("").as_posix().replace("/", ".")
        own = _step(relative)
        wrong += [f"{relative} imports {target}" for target in _imports(path) if _step(target) > own]
    assert not wrong, wrong


def test_nothing_imports_the_job() -> None:
    outside = [path for path in _modules() if "job" not in path.relative_to(PACKAGE).parts[:1]]
    users = [str(path) for path in outside if any(t.startswith("ndcg_spark.job") for t in _imports(path))]
    assert users == [str(PACKAGE / "__main__.py")]


def test_scoring_takes_no_job_config() -> None:
    for path in (PACKAGE / "scoring").rglob("*.py"):
        assert "JobConfig" not in path.read_text(), path
