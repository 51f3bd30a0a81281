"""The plan's four charts: their data (pandas, shared with the PNG plots) and native charts.

* fleet: owned accelerators by hardware and period (stacked columns);
* costs: cash cost by category and period (stacked columns; residual value below 0),
  penalties for unmet demand left out so that real costs stay readable (they are
  rows of their own on the Costs sheet: "of which penalties");
* power: facility MW used vs the cap, all sites (columns: a step per period);
* demand: average output tokens per day demanded vs served, all workloads (columns).

Quantities that hold for a whole period (fleet, power, cap, demand) are columns, a
step per period, never lines that would slope between periods. The money axis is in
one unit, $K, $M or $B, chosen by the largest stack (:func:`money_axis_format`);
legends name the series (hardware id, cost category, "cap"), the unit is the axis's.

On the ``Charts`` sheet each chart sits beside its data block, whose cells are
formulas of the detail sheets (the cost chart reads the Costs sheet directly), so
the charts follow any edit to the inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from openpyxl.chart import BarChart, LineChart, Reference
from openpyxl.chart.axis import ChartLines
from openpyxl.chart.data_source import NumFmt
from openpyxl.chart.series import SeriesLabel
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from planner.export import cells
from planner.export.sheets.book import PERIOD, Book, TableRef, criterion, sum_where, table
from planner.export.sheets.costs import CASH_ROW, PENALTIES, sheet_categories
from planner.results import Plan
from planner.units import DAYS_PER_YEAR, MTOK

TITLE = "Charts"
SLOT_ROWS = 22  # rows between the tops of two charts (a chart is ~18 rows high)


@dataclass(frozen=True)
class ChartSpec:
    """What one chart shows: its title, axis titles and (for plots) file name."""

    key: str
    title: str
    y_title: str
    kind: str
    """``stacked``, ``lines`` or ``clustered``."""
    file: str
    y_format: str | None = None
    """Number format of the value axis; None: the engine's default (a money axis gets
    :func:`money_axis_format`)."""


FLEET = ChartSpec(
    "fleet",
    "Owned accelerators by hardware",
    "accelerators",
    "stacked",
    "fleet_by_hardware.png",
    cells.THOUSANDS,
)
COSTS = ChartSpec(
    "costs",
    "Cash cost by category (excl. penalties)",
    "USD (undiscounted)",
    "stacked",
    "cost_by_category.png",
    cells.USD,
)
POWER = ChartSpec(
    "power",
    "Facility power used vs cap (all sites)",
    "MW",
    "clustered",
    "power_vs_cap.png",
    cells.THOUSANDS,
)
DEMAND = ChartSpec(
    "demand",
    "Inference demand vs served (all workloads)",
    "million output tokens/day (average)",
    "clustered",
    "demand_vs_served.png",
    cells.THOUSANDS,
)
CHARTS = (FLEET, COSTS, POWER, DEMAND)
POWER_LEGEND = {"used_mw": "facility power used", "cap_mw": "cap"}
DEMAND_LEGEND = {"demand_mtok_per_day": "demand", "served_mtok_per_day": "served"}
"""Legend names of the power and demand series (the PNG plots use the same words)."""

_MONEY_UNITS = ((1e9, ',,,"B"'), (1e6, ',,"M"'), (1e3, ',"K"'))


def money_axis_format(largest_usd: float) -> str:
    """One $K/$M/$B format for a whole money axis, by the largest absolute value on it.

    ``$#,##0.0,,,"B"`` shows 2.5e9 as ``$2.5B`` and the residual credit -4.7e8 as
    ``-$0.5B``: unlike the cells' :data:`cells.USD_SCALED`, every tick has one unit.
    """
    for size, suffix in _MONEY_UNITS:
        if abs(largest_usd) >= size:
            return f"$#,##0.0{suffix}"
    return cells.USD


def largest_stack(frame: pd.DataFrame) -> float:
    """The largest absolute height of a stacked column: positives and negatives apart."""
    if frame.empty:
        return 0.0
    up = frame.clip(lower=0).sum(axis=1).max()
    down = frame.clip(upper=0).sum(axis=1).min()
    return float(max(abs(up), abs(down)))


def _axis_format(chart: BarChart | LineChart, code: str) -> None:
    chart.y_axis.numFmt = NumFmt(formatCode=code, sourceLinked=False)


def _legend(chart: BarChart | LineChart, names: list[str]) -> None:
    """Name the chart's series, in order, with ``names`` (not their header cells)."""
    for series, name in zip(chart.series, names, strict=True):
        series.tx = SeriesLabel(v=name)


def _labels(plan: Plan) -> list:
    periods = table(plan, "periods")
    return list(periods[PERIOD])


def fleet_frame(plan: Plan) -> pd.DataFrame:
    """Owned accelerators: one row per period, one column per hardware owned at some point."""
    fleet = table(plan, "fleet")
    label = PERIOD
    order = [h for h in plan.parameters["accelerators_per_unit"] if h in set(fleet["hardware"])]
    wide = fleet.pivot_table(index=label, columns="hardware", values="accelerators", aggfunc="sum")
    return wide.reindex(index=_labels(plan), columns=order).fillna(0.0)


def cost_frame(plan: Plan) -> pd.DataFrame:
    """Cash cost (USD): one row per period, one column per category."""
    costs = table(plan, "costs")
    wide = costs.pivot_table(index=PERIOD, columns="category", values="usd", aggfunc="sum")
    return wide.reindex(index=_labels(plan), columns=list(sheet_categories(plan))).fillna(0.0)


def power_frame(plan: Plan) -> pd.DataFrame:
    """Facility MW used and the cap, summed over sites, per period."""
    power = table(plan, "power")
    total = power.groupby(PERIOD)[["used_mw", "cap_mw"]].sum()
    return total.reindex(_labels(plan)).fillna(0.0)


def demand_frame(plan: Plan) -> pd.DataFrame:
    """Average output Mtok/day demanded and served, summed over workloads, per period."""
    served = table(plan, "served")
    served = served.assign(
        demand_mtok_per_day=served["tokens_per_day"] / MTOK,
        served_mtok_per_day=(
            served["tokens_per_day"]
            - served["unmet_tokens"] / (DAYS_PER_YEAR * served["length_years"])
        )
        / MTOK,
    )
    total = served.groupby(PERIOD)[["demand_mtok_per_day", "served_mtok_per_day"]].sum()
    return total.reindex(_labels(plan)).fillna(0.0)


def style_chart(chart: BarChart | LineChart, spec: ChartSpec, x_title: str) -> None:
    chart.title = spec.title
    chart.y_axis.title = spec.y_title
    chart.x_axis.title = x_title
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.y_axis.majorGridlines = ChartLines()
    if spec.y_format is not None:
        _axis_format(chart, spec.y_format)
    chart.width, chart.height = 18, 9
    chart.legend.position = "b"


def bar_chart(spec: ChartSpec) -> BarChart:
    chart = BarChart()
    chart.type = "col"
    if spec.kind == "stacked":
        chart.grouping = "stacked"
        chart.overlap = 100
    return chart


def fleet_chart(book: Book, width: float = 18, height: float = 9) -> BarChart:
    """Owned accelerators by hardware (stacked columns) from the Charts sheet's fleet block."""
    block = book.tables["chart_fleet"]
    ws = book.sheet(block.title)
    chart = bar_chart(FLEET)
    if block.columns:
        chart.add_data(
            Reference(
                ws,
                min_col=2,
                max_col=1 + len(block.columns),
                min_row=block.header_row,
                max_row=block.last_row,
            ),
            titles_from_data=True,
        )
        _legend(chart, list(block.columns))  # the hardware ids, as in the scenario
    chart.set_categories(Reference(ws, min_col=1, min_row=block.first_row, max_row=block.last_row))
    style_chart(chart, FLEET, "period")
    chart.width, chart.height = width, height
    return chart


def cost_chart(book: Book, plan: Plan, width: float = 18, height: float = 9) -> BarChart:
    """Cash cost by category from the Costs sheet, penalties left out (rows of their own).

    The legend is the Costs sheet's category labels; the axis is in $K, $M or $B by the
    tallest stack of the categories shown.
    """
    periods = len(_labels(plan))
    costs_ws = book.sheet("Costs")
    chart = bar_chart(COSTS)
    chart.add_data(
        Reference(
            costs_ws,
            min_col=1,
            max_col=1 + periods,
            min_row=CASH_ROW,
            max_row=CASH_ROW + len(sheet_categories(plan)) - 1 - len(PENALTIES),
        ),
        from_rows=True,
        titles_from_data=True,
    )
    chart.set_categories(Reference(costs_ws, min_col=2, max_col=1 + periods, min_row=1))
    style_chart(chart, COSTS, "period")
    shown = cost_frame(plan).drop(columns=list(PENALTIES))
    _axis_format(chart, money_axis_format(largest_stack(shown)))
    chart.width, chart.height = width, height
    return chart


def _block(
    book: Book,
    ws: Worksheet,
    top: int,
    frame: pd.DataFrame,
    headers: list[str],
    formula,
    fmt: str,
) -> tuple[int, int]:
    """A data block (period down, series across) of formulas; returns (last row, last col)."""
    book.text(ws, top, 1, "period")
    for j, header in enumerate(headers, start=2):
        book.text(ws, top, j, header)
    cells.style_header_row(ws, top, len(headers) + 1)
    for i, (label, values) in enumerate(frame.iterrows(), start=top + 1):
        book.value(ws, i, 1, label, cells.YEAR)
        for j, column in enumerate(frame.columns, start=2):
            book.formula(ws, i, j, formula(i, j, label, column), float(values[column]), fmt)
    return top + len(frame), len(headers) + 1


def write_charts(book: Book, plan: Plan) -> None:
    """Fill the Charts sheet: four data blocks of formulas and a native chart beside each."""
    ws = book.sheet(TITLE)
    book.title_row(ws, 1, "Charts (the blocks beside them are formulas of the detail sheets)")
    cells.freeze_header(ws)
    slot = max(SLOT_ROWS, len(_labels(plan)) + 4)
    fleet, power, demand = fleet_frame(plan), power_frame(plan), demand_frame(plan)
    width = max(len(fleet.columns), 2) + 1
    anchor_col = get_column_letter(width + 2)
    fleet_table = book.tables["Fleet"]
    power_table = book.tables["Power"]
    served_table = book.tables["Demand_vs_served"]
    label = PERIOD

    def by(table, values: str, key: str, row: int, extra: list | None = None) -> str:
        conditions = [(table.range(key), f"$A{row}", criterion(ws.cell(row=row, column=1).value))]
        return sum_where(table.range(values), conditions + (extra or []))

    # fleet
    top = 3
    last, _ = _block(
        book,
        ws,
        top,
        fleet,
        [f"{h} (accelerators)" for h in fleet.columns],
        lambda i, j, t, h: by(
            fleet_table,
            "accelerators",
            label,
            i,
            [(fleet_table.range("hardware"), f'"{h}"', False)],
        ),
        cells.THOUSANDS,
    )
    book.tables["chart_fleet"] = TableRef(
        ws.title, top, top + 1, last, {h: 2 + j for j, h in enumerate(fleet.columns)}, len(fleet)
    )
    ws.add_chart(fleet_chart(book), f"{anchor_col}{top}")

    # costs: data on the Costs sheet
    top += slot
    book.note(ws, top, "Data: the Costs sheet (cash cost by category).")
    book.note(ws, top + 1, "Penalties for unmet demand: Costs, 'of which penalties'.")
    ws.add_chart(cost_chart(book, plan), f"{anchor_col}{top}")

    # power
    top += slot
    power_source = {"used_mw": "used_mw", "cap_mw": "cap_mw"}
    last, _ = _block(
        book,
        ws,
        top,
        power,
        ["facility power used (MW)", "cap (MW)"],
        lambda i, j, t, c: by(power_table, power_source[c], PERIOD, i),
        cells.DECIMAL2,
    )
    book.tables["chart_power"] = TableRef(
        ws.title, top, top + 1, last, {"used_mw": 2, "cap_mw": 3}, len(power)
    )
    chart = bar_chart(POWER)
    chart.add_data(
        Reference(ws, min_col=2, max_col=3, min_row=top, max_row=last), titles_from_data=True
    )
    _legend(chart, [POWER_LEGEND[c] for c in power.columns])
    chart.set_categories(Reference(ws, min_col=1, min_row=top + 1, max_row=last))
    style_chart(chart, POWER, "period")
    ws.add_chart(chart, f"{anchor_col}{top}")

    # demand vs served
    top += slot
    served_label = PERIOD
    source = {
        "demand_mtok_per_day": "tokens_per_day",
        "served_mtok_per_day": "served_tokens_per_day",
    }
    last, _ = _block(
        book,
        ws,
        top,
        demand,
        ["demand (Mtok/day)", "served (Mtok/day)"],
        lambda i, j, t, c: by(served_table, source[c], served_label, i) + f"/{MTOK:.0f}",
        cells.THOUSANDS,
    )
    chart = bar_chart(DEMAND)
    chart.add_data(
        Reference(ws, min_col=2, max_col=3, min_row=top, max_row=last), titles_from_data=True
    )
    _legend(chart, [DEMAND_LEGEND[c] for c in demand.columns])
    chart.set_categories(Reference(ws, min_col=1, min_row=top + 1, max_row=last))
    style_chart(chart, DEMAND, "period")
    ws.add_chart(chart, f"{anchor_col}{top}")
    book.fit_widths(ws)
