"""``Summary``: what was run, how the solve went, the headline figures and the diagnosis.

Headline money figures are formulas of the Costs, Purchases and Charts sheets, so
they move with the inputs; each shows in $K/$M/$B with at most three significant
digits (:mod:`planner.export.money`). The NPV of the same fleet under every horizon-end
convention sits beside the headline NPV, each row naming its convention. The solve and
build times are the only cells that differ between two runs of the same scenario
(:data:`MEASURED`).

Printed on one page: notes wrap within their column (the row grows), and the two
charts sit to the right of every written cell, so no text lies beneath a chart.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path
from typing import Any

from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from planner import __version__, safe_io
from planner.economics.horizon_end import HORIZON_END_CONVENTIONS, HORIZON_END_TEXT
from planner.export import cells, money
from planner.export.charts import cost_chart, fleet_chart, power_frame
from planner.export.sheets.book import PERIOD, SECTION_FONT, Book, absolute, table
from planner.results import Plan
from planner.results.horizon_end import npv_key
from planner.results.solve_words import termination_prose
from planner.scenario.schema import Scenario

TITLE = "Summary"
LABEL_WIDTH = 44  # characters: column A, the labels
VALUE_WIDTH = 70  # characters: column B, where values and the description sit
NOTE_WIDTH = 50  # characters: column C, units and notes (wrapped within it)
LINE_HEIGHT_PT = 15.0  # one line of the default 11 pt font
MAX_ROW_HEIGHT_PT = 409.0  # Excel's tallest row
CHART_W, CHART_H = 16.0, 8.5  # cm: two charts stacked beside the headline figures
CHART_ROWS = 18  # rows between their tops (8.5 cm ≈ 16 rows)
SAME_FLEET_NOTE = "same fleet, not re-optimised"
MEASURED = ("solve time", "build time")
"""Labels of the rows that hold wall-clock measurements (not part of the result)."""


def file_sha256(path: str | Path) -> str:
    """SHA-256 of the input file at ``path``, read as the loader reads (regular files only,
    through :mod:`planner.safe_io`) in 1 MiB chunks, so a file swapped for a device or a
    pipe after loading is refused rather than read without end."""
    digest = hashlib.sha256()
    with safe_io.open_regular(path, "scenario file") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def scenario_sha256(scenario: Scenario) -> str:
    """SHA-256 of the scenario as loaded (after extends, overrides and defaults)."""
    text = json.dumps(scenario.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def wrapped_lines(text: str, width: int) -> int:
    """Lines ``text`` takes when wrapped at word boundaries within ``width`` characters."""
    return sum(max(1, len(textwrap.wrap(line, width))) for line in text.splitlines() or [""])


class _Writer:
    def __init__(self, book: Book, ws: Worksheet) -> None:
        self.book, self.ws, self.row = book, ws, 2

    def section(self, title: str) -> None:
        self.row += 1
        self.book.text(self.ws, self.row, 1, title, track=False).font = SECTION_FONT
        self.row += 1

    def item(self, label: str, value: Any, unit: str = "", fmt: str | None = None) -> None:
        self.book.text(self.ws, self.row, 1, label)
        self.book.value(self.ws, self.row, 2, value, fmt)
        self.note(unit)

    def formula(self, label: str, formula: str, expected: float, unit: str, fmt: str) -> None:
        self.book.text(self.ws, self.row, 1, label)
        self.book.formula(self.ws, self.row, 2, formula, expected, fmt)
        self.note(unit)

    def usd(self, label: str, value: float | None, unit: str, formula: str | None = None) -> None:
        """A money figure in $K/$M/$B (:mod:`planner.export.money`), a formula when given."""
        fmt = money.usd_format(value)
        if formula is None or value is None:
            self.item(label, value, unit, fmt)
        else:
            self.formula(label, formula, value, unit, fmt)

    def note(self, text: str) -> None:
        """The row's unit or note in column C, wrapped within it; ends the row."""
        cell = self.book.text(self.ws, self.row, 3, text, track=False)
        lines = wrapped_lines(text, NOTE_WIDTH)
        if lines > 1:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
            self.ws.cell(row=self.row, column=1).alignment = Alignment(vertical="top")
            self.ws.cell(row=self.row, column=2).alignment = Alignment(vertical="top")
            self.ws.row_dimensions[self.row].height = min(lines * LINE_HEIGHT_PT, MAX_ROW_HEIGHT_PT)
        self.row += 1

    def paragraph(self, label: str, text: str) -> None:
        """A long text beside its label, wrapped within the value column, row tall enough."""
        self.book.text(self.ws, self.row, 1, label).alignment = Alignment(vertical="top")
        cell = self.book.text(self.ws, self.row, 2, text, track=False)
        cell.alignment = Alignment(wrap_text=True, vertical="top")
        lines = wrapped_lines(text, VALUE_WIDTH)
        if lines > 1:
            height = min(lines * LINE_HEIGHT_PT, MAX_ROW_HEIGHT_PT)
            self.ws.row_dimensions[self.row].height = height
        self.row += 1

    def sentence(self, text: str) -> None:
        cell = self.book.text(self.ws, self.row, 1, text, track=False)
        cell.alignment = Alignment(wrap_text=False)
        self.row += 1


def _binding(plan: Plan) -> list[str]:
    out = []
    for name, subject, what in (
        ("power", "site", "power cap at {}"),
        ("budget", None, "capex budget"),
        ("supply", "hardware", "supply cap of {}"),
        ("vendor_share", "vendor", "vendor-share cap of {}"),
    ):
        frame = table(plan, name)
        label = PERIOD
        hits = frame[frame["binding"].astype(bool)]
        groups: dict[str, list[str]] = {}
        for row in hits.to_dict("records"):
            key = what.format(row[subject]) if subject else what
            groups.setdefault(key, []).append(str(row[label]))
        out += [f"The {k} binds in {', '.join(v)}." for k, v in groups.items()]
    return out or ["No power, budget, supply or vendor-share limit binds."]


def write_summary(
    book: Book, plan: Plan, scenario: Scenario, source: str | Path | None = None
) -> None:
    ws = book.sheet(TITLE)
    h = plan.headline
    for j, header in enumerate(("item", "value", "unit or note"), start=1):
        book.text(ws, 1, j, header)
    cells.style_header_row(ws, 1, 3)
    w = _Writer(book, ws)
    w.section("Scenario")
    w.item("scenario", scenario.name)
    w.paragraph("description", scenario.description.strip() or "(none)")
    w.item("planner version", __version__)
    w.item("scenario file", str(source) if source is not None else "(not from a file)")
    if source is not None:
        w.item("scenario file SHA-256", file_sha256(source))
    w.item("scenario as loaded, SHA-256", scenario_sha256(scenario), "after extends and overrides")
    if scenario.extends:
        w.item("extends", scenario.extends)

    w.section("Solve")
    w.item("solver", h.get("solver"))
    w.item("status", plan.status, "optimal, or the best plan found when stopped early")
    w.item("termination", h.get("termination"), termination_prose(h.get("termination")))
    w.item(
        "follow-ups skipped",
        ", ".join(h.get("follow_ups_skipped") or ()) or "none",
        "cut by the run's time limit after the plan was found; the plan is kept",
    )
    w.item("MIP gap", h.get("mip_gap"), "relative, at the end of the solve", cells.PCT_PRECISE)
    w.usd("objective (solver)", h.get("objective_usd"), "USD, NPV (penalties outside)")
    w.usd("best bound", h.get("best_bound_usd"), "USD")
    w.item("solve time", h.get("solve_seconds"), "s (wall clock)", cells.DECIMAL2)
    w.item("build time", h.get("build_seconds"), "s (wall clock)", cells.DECIMAL2)
    w.item("variables", h.get("variables"), "of which integer: see next row", cells.THOUSANDS)
    w.item("integer variables", h.get("integer_variables"), "", cells.THOUSANDS)
    w.item("constraints", h.get("constraints"), "", cells.THOUSANDS)
    w.item("purchases continuous (--relax)", bool(h.get("relax")))

    w.section("Headline figures")
    costs = table(plan, "costs")
    w.usd(
        "NPV of total cost of ownership",
        h["npv_cost_usd"],
        "USD at the horizon start, excl. penalties; "
        + (f"{h['foresight']}; " if str(h.get("foresight", "")).startswith("myopic") else "")
        + "horizon end: "
        f"{h.get('horizon_end', 'straight_line')}; Costs sheet",
        "=npv_tco",
    )
    _horizon_ends(w, h)
    if h.get("priced_work") and (h.get("lost_revenue_usd") or 0.0) > 0:
        # a priced shortfall is worth the revenue it loses, never the notional penalty
        lost = "revenue lost on unmet priced work"
        w.usd(lost, h["lost_revenue_usd"], "USD, undiscounted")
        w.usd(f"{lost} (PV)", h["lost_revenue_usd_pv"], "USD, present value")
    else:
        w.usd(
            "NPV incl. notional penalties (outside the min_cost objective)",
            float(costs["usd_pv"].sum()),
            "USD",
            "=npv_with_penalties",
        )
        w.usd(
            "notional penalty for unmet demand (no price given; not a cost)",
            h["penalties_usd_pv"],
            "USD, present value",
            "=penalties_pv",
        )
    w.usd(
        "undiscounted cash cost",
        h["undiscounted_cost_usd"],
        "USD, excl. penalties",
        "=undiscounted_cost",
    )
    capex = book.tables["Purchases"].range("capex_usd")
    w.usd("total capex", h["capex_usd"], "USD, all purchases", f"=SUM({capex})")
    peak = book.tables["chart_power"].range("used_mw")
    used = power_frame(plan)["used_mw"]
    w.formula(
        "peak facility power",
        f"=MAX({peak})",
        float(used.max()) if len(used) else 0.0,
        "MW, all sites",
        cells.DECIMAL1,
    )
    _vendors(w, plan)
    _usd_per_mtok(w, plan)
    w.item(
        "unmet inference demand",
        h.get("unmet_inference_tokens"),
        "output tokens over the horizon, "
        + h.get("unmet_tokens_basis", "linear load-duration curve from peak_to_average"),
        cells.SCIENTIFIC,
    )
    w.item("unmet training work", h.get("unmet_training_flops"), "FLOP", cells.SCIENTIFIC)

    w.section("Binding constraints")
    for sentence in _binding(plan):
        w.sentence(sentence)
    w.section("Diagnosis")
    for sentence in plan.diagnosis or ["(none)"]:
        w.sentence(sentence)
    w.section("Sheets")
    for title in book.wb.sheetnames:
        w.item(title, SHEET_NOTES.get(title, ""))
    cells.freeze_header(ws)
    book.fit_widths(ws)
    ws.column_dimensions["A"].width = LABEL_WIDTH
    ws.column_dimensions["B"].width = VALUE_WIDTH
    ws.column_dimensions["C"].width = NOTE_WIDTH
    # two small charts beside the figures, on the same printed page, one empty column
    # to the right of the last written one
    column = get_column_letter(ws.max_column + 2)
    ws.add_chart(cost_chart(book, plan, CHART_W, CHART_H), f"{column}3")
    ws.add_chart(fleet_chart(book, CHART_W, CHART_H), f"{column}{3 + CHART_ROWS}")


def _horizon_ends(w: _Writer, h: dict[str, Any]) -> None:
    """The NPV of the same fleet under each horizon-end convention, convention named."""
    own = h.get("horizon_end")
    for convention in HORIZON_END_CONVENTIONS:
        value = h.get(npv_key(convention))
        if not isinstance(value, float):
            continue
        mark = " (this plan's)" if convention == own else ""
        w.usd(
            f"NPV, horizon end: {convention}{mark}",
            value,
            f"USD; {HORIZON_END_TEXT[convention]}; {SAME_FLEET_NOTE}",
        )


def _vendors(w: _Writer, plan: Plan) -> None:
    fleet = table(plan, "fleet")
    periods = table(plan, "periods")
    last = periods[PERIOD].iloc[-1]
    here = fleet[fleet[PERIOD] == last]
    vendor = plan.parameters["vendor_of_hardware"]
    by_vendor = (
        here.assign(vendor=here["hardware"].map(vendor)).groupby("vendor")["accelerators"].sum()
    )
    if by_vendor.empty:
        w.item(f"owned accelerators in {last}", 0, "none", cells.THOUSANDS)
    for name, count in sorted(by_vendor.items()):
        w.item(
            f"owned accelerators in {last}: {name}", float(count), "accelerators", cells.THOUSANDS
        )


def _usd_per_mtok(w: _Writer, plan: Plan) -> None:
    frame = table(plan, "usd_per_mtok")
    if frame.empty:
        return
    label = PERIOD
    periods = table(plan, "periods")
    last = periods[PERIOD].iloc[-1]
    source = w.book.tables["Cost_per_Mtok"]
    for row in frame[frame[label] == last].to_dict("records"):
        what = f"realised cost per Mtok in {last}: {row['workload']}"
        unit = "USD per million output tokens served"
        if not row["served_mtok"] > 0:
            w.item(what, row["usd_per_mtok"], unit, cells.USD_PER_MTOK)
            continue
        at = w.book.rows[("usd_per_mtok", row["workload"], row[label])]
        cell = absolute(source.title, at, source.columns["usd_per_mtok"])
        w.formula(what, f"={cell}", row["usd_per_mtok"], unit, cells.USD_PER_MTOK)


SHEET_NOTES = {
    "Summary": "this page",
    "Charts": "fleet, costs, power and demand charts with their data",
    "Costs": "cash cost and present value by period and category; live formulas",
    "Assumptions": "every input the run used, with units; wacc and prices feed Costs",
    "Hardware": "catalog rows used (overrides applied), with source and as_of",
    "Models": "model architectures used, with source and as_of",
    "Throughput inference": "perf model: tokens/s per unit and $/Mtok per workload and hardware",
    "Throughput training": "perf model: goodput, cluster and time per run and hardware",
    "Fleet": "owned units by period and vintage; power and running costs (formulas)",
    "Purchases": "units bought, capex and residual value (formulas)",
    "Rentals": "rented units and rent (formulas)",
    "Assignment training": "units working on each training run",
    "Assignment inference": "units serving each workload",
    "Utilisation": "units assigned over units available",
    "Power": "facility MW used vs cap per site",
    "Budget": "capex vs budget per period",
    "Supply": "units bought vs supply caps",
    "Vendor share": "vendor shares of owned accelerators vs caps",
    "Demand vs served": "demand, capacity, unmet demand and its penalty",
    "Training runs": "work required and done per run, and its penalty",
    "Cost per Mtok": "realised USD per million output tokens per workload",
    "Shadow prices": "what one more unit of each limit is worth",
    "Marginals": "exact marginal values from re-solving (--marginal)",
}
