"""What is generated and where it goes: whole pages and marked regions of pages.

A region sits between ``<!-- generated: NAME -->`` and ``<!-- end generated -->`` in a
hand-written page; :data:`REGIONS` gives the function that writes each ``NAME``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from planner.docs_gen import examples
from planner.docs_gen.cli_ref import cli_reference
from planner.docs_gen.scenario_ref import scenario_reference

REPO = Path(__file__).resolve().parents[2]

PAGES: dict[str, Callable[[], str]] = {
    "docs/reference/scenario.md": scenario_reference,
    "docs/reference/cli.md": cli_reference,
}
"""Pages written whole, by path from the repository root."""

REGIONS: dict[str, Callable[[], str]] = {
    "run-baseline": examples.run_baseline,
    "workbook-sheets": examples.workbook_sheets,
    "vendors": examples.vendors_table,
    "fidelity": examples.fidelity_table,
    "plan-tables": examples.plan_tables,
    "solve-recipes": examples.solve_recipes,
    "catalog-availability": examples.catalog_availability,
    "horizon-end-npvs": examples.horizon_end_npvs,
    "analysis-band": examples.analysis_band,
    "tco-gb200": examples.tco_gb200,
    "resale-curve": examples.resale_curve,
    "load-shape": examples.load_shape_ratios,
    "software-rows": examples.software_rows,
    "myopic-example": examples.myopic_example,
    "llama-duration": examples.llama_duration,
    "deepseek-v4": examples.deepseek_v4_point,
    "frontier-lab-capex": examples.frontier_lab_capex,
    "trtllm-rows": examples.trtllm_rows,
    "llama3-goodput": examples.llama3_goodput,
}
"""Regions of hand-written pages, by name."""

QUICK = (
    "fidelity",
    "plan-tables",
    "solve-recipes",
    "tco-gb200",
    "resale-curve",
    "load-shape",
    "software-rows",
    "deepseek-v4",
    "catalog-availability",
    "trtllm-rows",
    "llama3-goodput",
)
"""Regions made without solving a model (about a second between them)."""

OWN_TEST = ("frontier-lab-capex",)
"""Regions from a solve long enough to get a test module of its own: frontier_lab's
(about ten seconds) is checked by tests/test_frontier_lab.py, which checks its plan
with the same solve; ``python -m planner.docs_gen --check`` checks it with the rest."""

REGION = re.compile(
    r"(<!-- generated: (?P<name>[a-z0-9-]+) -->\n)"
    r"(?P<body>(?:(?!<!-- generated:).)*?)"
    r"(<!-- end generated -->)",
    re.S,
)


def region_pages(root: Path = REPO) -> list[Path]:
    """The README and every docs page (those that may hold regions)."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def regions_in(text: str) -> list[str]:
    """Names of the generated regions of a page, in order."""
    return [m.group("name") for m in REGION.finditer(text)]


def refreshed(text: str, names: tuple[str, ...] | None = None) -> str:
    """``text`` with each region (those named, or all) rewritten from the code."""

    def fill(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in REGIONS:
            raise KeyError(f"unknown generated region {name!r}; known: {', '.join(REGIONS)}")
        if names is not None and name not in names:
            return match.group(0)
        return match.group(1) + REGIONS[name]().rstrip("\n") + "\n" + match.group(4)

    return REGION.sub(fill, text)


def expected(root: Path = REPO, names: tuple[str, ...] | None = None) -> dict[Path, str]:
    """Every generated file's text as the code gives it now, by path.

    ``names`` limits the regions refreshed (the whole pages are always made).
    """
    out = {root / path: make() for path, make in PAGES.items()}
    for page in region_pages(root):
        text = page.read_text(encoding="utf-8")
        if regions_in(text):
            out[page] = refreshed(text, names)
    return out


def stale(root: Path = REPO, names: tuple[str, ...] | None = None) -> list[Path]:
    """Generated files whose committed text differs from :func:`expected`."""
    return [
        path
        for path, text in expected(root, names).items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def write(root: Path = REPO) -> list[Path]:
    """Rewrite every generated file that changed; the paths written."""
    changed = []
    for path, text in expected(root).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed
