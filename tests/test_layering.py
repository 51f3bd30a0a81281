"""The data flow is the import graph: no module imports a later stage, and no import circles.

Stages, earliest first (a module may import its own stage and earlier ones)::

    units/errors/deadline → catalog → scenario → perf/economics → optimize → results → pipeline
    → export/analysis/api → cli

``export`` and ``analysis`` share a stage; within it ``analysis`` may import ``export``
(reports are written as workbooks) but ``export`` may not import ``analysis``.

Every import counts: at module level, inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "planner"

STAGES: dict[str, int] = {
    "planner": 0,
    "planner.units": 0,
    "planner.errors": 0,
    "planner.deadline": 0,
    "planner.safe_io": 0,
    "planner.field_docs": 0,
    "planner.text": 0,
    "planner.solver_programs": 0,
    "planner.catalog": 1,
    "planner.scenario": 2,
    "planner.perf": 3,
    "planner.economics": 3,
    "planner.optimize": 4,
    "planner.results": 5,
    "planner.pipeline": 6,
    "planner.marginals": 6,
    "planner.relief": 6,
    "planner.follow_ups": 6,
    "planner.stochastic": 7,
    "planner.export": 7,
    "planner.analysis": 7,
    "planner.api": 7,
    "planner.cli": 8,
    "planner.docs_gen": 8,
    "planner.__main__": 8,
}
"""Stage of each top-level part of the package (the key the longest prefix matches)."""

FORBIDDEN = {
    ("planner.export", "planner.analysis"),
    ("planner.export", "planner.optimize"),
    ("planner.export", "planner.perf"),
}
"""(a, b): ``a`` may not import ``b`` although the stages allow it. Exports write Plans
(which carry their throughput tables): they never run the perf model or the optimiser."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def part_of(module: str) -> str:
    """The key of STAGES that ``module`` belongs to (its longest matching prefix)."""
    candidates = [k for k in STAGES if module == k or module.startswith(k + ".")]
    return max(candidates, key=len)


def imported_modules(path: Path, name: str) -> set[str]:
    """planner modules that ``path`` (module ``name``) imports, anywhere in the file."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # ``from planner.analysis import compare`` imports the submodule too
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {m for m in found if m == "planner" or m.startswith("planner.")}


def module_graph() -> dict[str, set[str]]:
    """Each planner module → the planner modules it imports (resolved to real modules)."""
    files = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for target in imported_modules(path, name):
            while target not in files and "." in target:
                target = target.rsplit(".", 1)[0]  # an attribute, not a module
            if target in files and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def stage_violations(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for module, targets in sorted(graph.items()):
        mine = part_of(module)
        for target in sorted(targets):
            theirs = part_of(target)
            if STAGES[theirs] > STAGES[mine]:
                out.append(f"{module} imports {target} (stage {theirs} above {mine})")
            elif (mine, theirs) in FORBIDDEN:
                out.append(f"{module} imports {target} ({mine} may not import {theirs})")
    return out


def pyomo_users() -> list[str]:
    """Modules outside planner.optimize that import Pyomo (the model ends there)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name == "planner.optimize" or name.startswith("planner.optimize."):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n == "pyomo" or n.startswith("pyomo.") for n in names):
                out.append(name)
                break
    return out


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_every_top_level_part_has_a_stage() -> None:
    parts = {".".join(module_name(p).split(".")[:2]) for p in PACKAGE.rglob("*.py")}
    missing = sorted(p for p in parts if p not in STAGES)
    assert missing == []


def test_no_module_imports_a_later_stage() -> None:
    violations = stage_violations(module_graph())
    print("\n".join(violations))
    assert violations == []


def test_only_the_optimiser_imports_pyomo() -> None:
    assert pyomo_users() == []


def test_no_import_circles() -> None:
    circles = import_circles(module_graph())
    print("\n".join(" ⇄ ".join(c) for c in circles))
    assert circles == []


def test_the_rules_catch_a_later_stage_and_a_circle() -> None:
    """The checks can fail: a made-up graph with one backward import and one circle."""
    graph = {
        "planner.optimize.data": {"planner.results.plan"},
        "planner.results.plan": {"planner.optimize.data"},
        "planner.export.excel": {"planner.analysis.compare"},
        "planner.analysis.compare": set(),
    }
    assert stage_violations(graph) == [
        "planner.export.excel imports planner.analysis.compare "
        "(planner.export may not import planner.analysis)",
        "planner.optimize.data imports planner.results.plan "
        "(stage planner.results above planner.optimize)",
    ]
    assert import_circles(graph) == [["planner.optimize.data", "planner.results.plan"]]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from planner.results import Plan", {"planner.results", "planner.results.Plan"}),
        ("import planner.scenario.paths as paths", {"planner.scenario.paths"}),
        (
            "def f():\n    from planner.pipeline import plan\n",
            {"planner.pipeline", "planner.pipeline.plan"},
        ),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from planner.perf import x\n",
            {"planner.perf", "planner.perf.x"},
        ),
        ("from . import charts", {"planner.export", "planner.export.charts"}),
    ],
)
def test_imports_are_read_everywhere_in_a_file(
    tmp_path: Path, source: str, expected: set[str]
) -> None:
    path = tmp_path / "excel.py"
    path.write_text(source)
    assert imported_modules(path, "planner.export.excel") == expected
