"""The package's folders follow the data flow, and imports only run downstream: read and check,
score, compare, report, publish; the job on top, imported by nothing (see docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ndcg_spark"

# Each step may import the steps before it, never one after it.
FLOW = [
    {
        "columns",
        "remedies",
        "errors",
        "measures",
        "option_values",
        "options",
        "progress",
        "spark_conf",
        "frames",
        "sessions",
        "version",
        "formats",
        "declarations",
        "arrays",
    },
    {"io"},
    {"checks"},
    {"scoring"},
    {"comparison"},
    {"evaluation", "labelled", "local_evaluation"},
    {"gate"},
    {"report"},
    {"publish"},
    {"api"},
    {"tuning"},
    {"__init__"},  # the package root: the public names, re-exported
    {"job"},
    {"__main__"},
]


def _step(module: str) -> int:
    """The step of 'ndcg_spark.x.y' (or of the file 'x/y.py'): where x sits in FLOW."""
    parts = module.split(".")
    if parts == ["ndcg_spark"]:
        return FLOW.index({"__init__"})
    name = parts[1] if parts[0] == "ndcg_spark" and len(parts) > 1 else parts[0]
    return next(index for index, names in enumerate(FLOW) if name in names)


def _submodule(name: str) -> bool:
    return (PACKAGE / f"{name}.py").exists() or (PACKAGE / name / "__init__.py").exists()


def _imports(path: Path) -> set[str]:
    """The package's modules a file imports: `from ndcg_spark import columns` is the module
    ndcg_spark.columns, `from ndcg_spark import evaluate` the package root."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "ndcg_spark":
            found |= {f"ndcg_spark.{a.name}" if _submodule(a.name) else "ndcg_spark" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ndcg_spark"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("ndcg_spark")}
    return found


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    """'scoring.dcg' of scoring/dcg.py; '__init__' of the package root's file."""
    relative = path.relative_to(PACKAGE).with_suffix("").as_posix().replace("/", ".")
    return relative.removesuffix(".__init__")


def test_imports_only_run_downstream() -> None:
    wrong = []
    for path in _modules():
        relative = _name(path)
        own = _step(relative)
        wrong += [f"{relative} imports {target}" for target in _imports(path) if _step(target) > own]
    assert not wrong, wrong


def test_nothing_imports_the_job() -> None:
    outside = [path for path in _modules() if "job" not in path.relative_to(PACKAGE).parts[:1]]
    users = [str(path) for path in outside if any(t.startswith("ndcg_spark.job") for t in _imports(path))]
    assert users == [str(PACKAGE / "__main__.py")]


def test_nothing_inside_imports_the_package_root() -> None:
    """The root loads the whole API: a module that imports it for one name (the version, say)
    loads everything, and would import in a cycle."""
    users = [str(path) for path in _modules() if "ndcg_spark" in _imports(path)]
    assert users == [], users


def test_the_package_root_imports_no_job() -> None:
    assert not [t for t in _imports(PACKAGE / "__init__.py") if t.startswith("ndcg_spark.job")]


def test_scoring_takes_no_job_config() -> None:
    for path in (PACKAGE / "scoring").rglob("*.py"):
        assert "JobConfig" not in path.read_text(), path


def test_io_knows_nothing_of_publication() -> None:
    """io/ reads and writes files; the lock, the commit record, staging and the manifest are
    publish/'s."""
    for path in (PACKAGE / "io").rglob("*.py"):
        text = path.read_text()
        for word in ("_publishing", "_manifests", "_staging", "Staging", "COMMIT_FILE", "LOCK_FILE"):
            assert word not in text, f"{path.name} names {word}"


def _module(path: Path) -> str:
    name = _name(path)
    return "ndcg_spark" if name == "__init__" else f"ndcg_spark.{name}"


def _resolved(path: Path) -> set[str]:
    """The modules a file imports, `from ndcg_spark.x import y` as the module x.y when y is one."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ndcg_spark"):
            folder = PACKAGE.joinpath(*node.module.split(".")[1:])
            for alias in node.names:
                submodule = (folder / f"{alias.name}.py").exists() or (folder / alias.name / "__init__.py").exists()
                found.add(f"{node.module}.{alias.name}" if submodule else node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("ndcg_spark")}
    return found


def test_no_import_cycle_even_through_a_local_import() -> None:
    """Module by module, imports inside functions included: a cycle hidden by a function-local
    import (as the gate's verdict and its text once were) fails here too."""
    graph = {_module(path): _resolved(path) for path in _modules()}
    seen: dict[str, int] = {}  # 1: on the path being walked, 2: done
    cycles = []

    def walk(module: str, path: list[str]) -> None:
        seen[module] = 1
        for target in sorted(graph.get(module, set())):
            if seen.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target in graph and target not in seen:
                walk(target, [*path, target])
        seen[module] = 2

    for module in sorted(graph):
        if module not in seen:
            walk(module, [module])
    assert not cycles, cycles
