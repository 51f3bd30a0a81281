"""The sheets of a comparison workbook (``planner compare``).

``Comparison``: headline figures side by side, differences against the first scenario
(formulas), the scenarios' sources, and two charts; ``Fleet comparison``: owned
accelerators by period and hardware; ``Cost comparison``: present value by category.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from openpyxl.chart import BarChart, Reference
from openpyxl.utils import get_column_letter

from planner.export import cells
from planner.export.charts import ChartSpec, bar_chart, style_chart
from planner.export.sheets.book import PERIOD, Book, Column, Formula, Row, write_table
from planner.export.sheets.summary import file_sha256
from planner.results.costs import RESALE

if TYPE_CHECKING:
    from planner.results.comparison import Comparison

UNIT_FORMATS = {
    "USD": cells.USD,
    "MW": cells.DECIMAL1,
    "accelerators": cells.THOUSANDS,
    "USD per Mtok": cells.USD_PER_MTOK,
    "output tokens": cells.SCIENTIFIC,
    "FLOP": cells.SCIENTIFIC,
    "share": cells.PCT_PRECISE,
}
NPV_CHART = ChartSpec("npv", "NPV of total cost of ownership", "USD", "clustered", "")
COST_CHART = ChartSpec(
    "costs", "Present value by cost category", "USD (present value)", "stacked", ""
)


def _difference(comparison: Comparison, label: str) -> Formula:
    first = comparison.labels[0]

    def formula(r: Row) -> str | None:
        if not _finite(r[label]) or not _finite(r[first]):
            return None
        return f"={r.at(label)}-{r.at(first)}"

    return formula


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def _value_columns(comparison: Comparison, fmt: str | None) -> list[Column]:
    columns = [Column(label, label, fmt) for label in comparison.labels]
    for label, name in zip(comparison.labels[1:], comparison.difference_columns, strict=True):
        columns.append(Column(name, name, fmt, _difference(comparison, label)))
    return columns


def write_comparison(book: Book, comparison: Comparison) -> None:
    ws = book.sheet("Comparison")
    headline = comparison.headline
    columns = [Column("metric", "metric"), Column("unit", "unit")]
    columns += _value_columns(comparison, None)
    written = write_table(book, ws, "Comparison", headline, columns)
    for i, unit in enumerate(headline["unit"]):
        fmt = UNIT_FORMATS.get(unit)
        for col in range(3, len(columns) + 1):
            if fmt:
                ws.cell(row=written.first_row + i, column=col).number_format = fmt
    top = written.last_row + 3
    book.title_row(ws, top - 1, "Scenarios")
    headers = ["label", "file", "scenario", "status", "file SHA-256", "description"]
    for j, header in enumerate(headers, start=1):
        book.text(ws, top, j, header)
    cells.style_header_row(ws, top, len(headers))
    for i, s in enumerate(comparison.solved, start=top + 1):
        values = [
            s.label,
            str(s.source) if s.source else "",
            s.scenario.name,
            s.plan.status,
            file_sha256(s.source) if s.source else "",
            s.scenario.description.strip(),
        ]
        for j, value in enumerate(values, start=1):
            book.text(ws, i, j, value, track=j < len(values))
    cells.freeze_header(ws, 1, 1)
    book.fit_widths(ws)
    _charts(book, comparison, top + len(comparison.solved) + 3)


def _charts(book: Book, comparison: Comparison, row: int) -> None:
    ws = book.sheet("Comparison")
    n = len(comparison.labels)
    npv = BarChart()
    npv.type = "col"
    npv.add_data(Reference(ws, min_col=3, max_col=2 + n, min_row=2), from_rows=True)
    npv.set_categories(Reference(ws, min_col=3, max_col=2 + n, min_row=1))
    _style_npv(npv)
    ws.add_chart(npv, f"A{row}")
    costs = book.sheet("Cost comparison")
    source = book.tables["Cost_comparison"]
    stacked = bar_chart(COST_CHART)
    last_category = source.last_row - 1  # the total row is not stacked
    stacked.add_data(
        Reference(costs, min_col=1, max_col=1 + n, min_row=source.first_row, max_row=last_category),
        from_rows=True,
        titles_from_data=True,
    )
    stacked.set_categories(Reference(costs, min_col=2, max_col=1 + n, min_row=source.header_row))
    style_chart(stacked, COST_CHART, "scenario")
    ws.add_chart(stacked, f"{get_column_letter(8)}{row}")


def _style_npv(chart: BarChart) -> None:
    style_chart(chart, NPV_CHART, "scenario")
    chart.legend = None


def write_fleet_comparison(book: Book, comparison: Comparison) -> None:
    ws = book.sheet("Fleet comparison")
    columns = [Column(PERIOD, PERIOD, cells.YEAR), Column("hardware", "hardware")]
    columns += _value_columns(comparison, cells.THOUSANDS)
    write_table(book, ws, "Fleet_comparison", comparison.fleet, columns)
    book.note(ws, len(comparison.fleet) + 3, "Owned accelerators in each period.")
    cells.freeze_header(ws, 1, 2)
    book.fit_widths(ws)


def write_cost_comparison(book: Book, comparison: Comparison) -> None:
    ws = book.sheet("Cost comparison")
    columns = [Column("category", "category (present value, USD)")]
    columns += _value_columns(comparison, cells.USD)
    written = write_table(book, ws, "Cost_comparison", comparison.costs, columns)
    total = written.last_row
    shown = list(comparison.costs["category"])
    last = RESALE if RESALE in shown else "residual"  # penalties follow
    last_cash = written.first_row + shown.index(last)
    for label in comparison.labels:
        col = written.columns[label]
        letter = get_column_letter(col)
        expected = float(comparison.costs[label].iloc[-1])
        book.formula(
            ws,
            total,
            col,
            f"=SUM({letter}{written.first_row}:{letter}{last_cash})",
            expected,
            cells.USD,
        )
    book.note(ws, total + 2, "The total excludes the penalties for unmet demand.")
    cells.freeze_header(ws, 1, 1)
    book.fit_widths(ws)
