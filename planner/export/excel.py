"""The analyst workbook of a plan: every number traceable to an input inside it.

Read :func:`build_workbook` as the table of contents. Sheets are created in display
order, then filled in dependency order, because formulas read cells of sheets
filled before them (Costs sums the Fleet and Purchases cells, which read the prices
on Assumptions and the kW on Hardware). Every formula is recorded with the number
the planner computed for it (:attr:`PlanWorkbook.expected`), which the tests check
after recalculating in LibreOffice.

Text from the scenario goes through :func:`planner.export.cells.write_text` (never a
formula); the file is saved atomically (:mod:`planner.export.atomic`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from openpyxl import Workbook

from planner import deadline
from planner.export.atomic import check_workbook_target, save_workbook_atomically
from planner.export.charts import write_charts
from planner.export.sheets.assumptions import write_assumptions
from planner.export.sheets.book import Book
from planner.export.sheets.catalog import write_hardware, write_models
from planner.export.sheets.comparison import (
    write_comparison,
    write_cost_comparison,
    write_fleet_comparison,
)
from planner.export.sheets.costs import write_costs
from planner.export.sheets.curves import write_curves
from planner.export.sheets.datacenter import has_builds, write_datacenter
from planner.export.sheets.demand import write_served, write_training, write_usd_per_mtok
from planner.export.sheets.fleet import write_fleet, write_purchases, write_rentals
from planner.export.sheets.investment import write_investment
from planner.export.sheets.limits import write_budget, write_power, write_supply
from planner.export.sheets.page import chart_anchor, set_up_page
from planner.export.sheets.sales import has_sales, write_sales
from planner.export.sheets.shadow import write_marginals, write_shadow_prices
from planner.export.sheets.summary import write_summary
from planner.export.sheets.tco import write_tco
from planner.export.sheets.throughput import write_throughput
from planner.export.sheets.work import write_assignment, write_utilisation
from planner.results import Plan
from planner.results.comparison import Comparison
from planner.scenario.schema import Scenario

SHEETS = (
    "Summary",
    "Charts",
    "Costs",
    "Investment",
    "Assumptions",
    "Hardware",
    "Models",
    "Throughput inference",
    "Throughput training",
    "Curves",
    "TCO",
    "Fleet",
    "Purchases",
    "Rentals",
    "Assignment training",
    "Assignment inference",
    "Utilisation",
    "Power",
    "Budget",
    "Supply",
    "Vendor share",
    "Demand vs served",
    "Training runs",
    "Cost per Mtok",
    "Shadow prices",
)
Throughput = tuple[pd.DataFrame, pd.DataFrame]


@dataclass(frozen=True)
class PlanWorkbook:
    """The built workbook and, per formula cell (``'Sheet'!$C$5``), the planner's number."""

    workbook: Workbook
    expected: dict[str, float]
    refs: dict
    """Addresses of input cells, e.g. ``refs["wacc"]``, ``refs[("electricity", site, 2027)]``."""


def build_workbook(
    plan: Plan,
    scenario: Scenario,
    *,
    source: str | Path | None = None,
    throughput: Throughput | None = None,
    curves: pd.DataFrame | None = None,
) -> PlanWorkbook:
    """The workbook of ``plan`` (solved from ``scenario``, read from ``source``).

    ``throughput``: the perf model's (inference, training) tables to show; by default
    the ones the plan was solved with (:attr:`Plan.inference_throughput`), so the
    workbook never reruns the perf model. ``curves``: the throughput-interactivity
    table of :func:`planner.perf.curves.scenario_curves` for the Curves sheet (no such
    sheet without it; :func:`planner.api.write_workbook` computes it).
    """
    if throughput is None:
        throughput = (plan.inference_throughput, plan.training_throughput)
    marginals = "marginals" in plan.tables
    sold = has_sales(plan)
    titles = [t for t in SHEETS if curves is not None or t != "Curves"]
    if sold:  # after Purchases
        titles.insert(titles.index("Purchases") + 1, "Sales")
    built = has_builds(plan)
    if built:  # after Rentals
        titles.insert(titles.index("Rentals") + 1, "Datacenter")
    book = Book.new([*titles, "Marginals"] if marginals else titles)
    tables = throughput
    steps: list[tuple[str, Callable[[], None]]] = [
        # inputs
        ("Assumptions", lambda: write_assumptions(book, plan, scenario)),
        ("Hardware", lambda: write_hardware(book, scenario)),
        ("Models", lambda: write_models(book, scenario)),
        ("Throughput", lambda: write_throughput(book, scenario, *tables)),
        *([("Curves", lambda: write_curves(book, scenario, curves))] if curves is not None else []),
        ("TCO", lambda: write_tco(book, scenario)),
        # the plan, each cost a formula of the inputs
        ("Purchases", lambda: write_purchases(book, plan)),
        *([("Sales", lambda: write_sales(book, plan))] if sold else []),
        ("Fleet", lambda: write_fleet(book, plan, scenario)),
        ("Rentals", lambda: write_rentals(book, plan, scenario)),
        *([("Datacenter", lambda: write_datacenter(book, plan))] if built else []),
        ("Assignment", lambda: write_assignment(book, plan, scenario)),
        ("Utilisation", lambda: write_utilisation(book, plan)),
        ("Demand vs served", lambda: write_served(book, plan)),
        ("Training runs", lambda: write_training(book, plan)),
        ("Power", lambda: write_power(book, plan)),
        ("Budget", lambda: write_budget(book, plan)),
        ("Supply", lambda: write_supply(book, plan)),
        ("Cost per Mtok", lambda: write_usd_per_mtok(book, plan)),
        ("Shadow prices", lambda: write_shadow_prices(book, plan)),
        *([("Marginals", lambda: write_marginals(book, plan))] if marginals else []),
        # totals, charts and the front page read everything above
        ("Costs", lambda: write_costs(book, plan)),
        ("Investment", lambda: write_investment(book, plan)),
        ("Charts", lambda: write_charts(book, plan)),
        ("Summary", lambda: write_summary(book, plan, scenario, source)),
    ]
    for sheet, write in steps:
        deadline.check(f"the workbook's {sheet} sheet")  # within the export's grace
        write()
    for ws in book.wb.worksheets:
        chart_tops = sorted(chart_anchor(chart)[0] - 1 for chart in ws._charts)
        set_up_page(ws, one_page=ws.title == "Summary", breaks=chart_tops[1:])
    book.wb.active = 0
    return PlanWorkbook(book.wb, dict(book.expected), dict(book.refs))


def write_workbook(
    plan: Plan,
    scenario: Scenario,
    path: str | Path,
    *,
    source: str | Path | None = None,
    throughput: Throughput | None = None,
    curves: pd.DataFrame | None = None,
) -> Path:
    """Build the workbook and save it to ``path`` atomically (ExportError on failure).

    The plan exists, so within a run's time limit the export may take
    :data:`planner.deadline.EXPORT_GRACE_S` seconds more (TimeLimitError after that).
    ``throughput``, ``curves``: see :func:`build_workbook`.
    """
    check_workbook_target(path, source)
    with deadline.export_grace():
        built = build_workbook(plan, scenario, source=source, throughput=throughput, curves=curves)
        deadline.check("saving the workbook")
        return save_workbook_atomically(built.workbook, path)


COMPARISON_SHEETS = ("Comparison", "Fleet comparison", "Cost comparison")


def build_comparison_workbook(comparison: Comparison) -> PlanWorkbook:
    """The workbook of ``planner compare``: headline figures, fleets and costs side by side."""
    book = Book.new(COMPARISON_SHEETS)
    write_fleet_comparison(book, comparison)
    write_cost_comparison(book, comparison)
    write_comparison(book, comparison)  # its charts read the cost comparison
    book.wb.active = 0
    return PlanWorkbook(book.wb, dict(book.expected), dict(book.refs))


def write_comparison_workbook(comparison: Comparison, path: str | Path) -> Path:
    """Build the comparison workbook and save it to ``path`` atomically."""
    check_workbook_target(path)
    return save_workbook_atomically(build_comparison_workbook(comparison).workbook, path)
