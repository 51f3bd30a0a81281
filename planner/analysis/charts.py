"""Native charts of the analysis workbook, drawn to be pasted into a memo.

Money axes in $K/$M/$B, legends from human column names, the tornado's largest bar on
top with its labels beside the axis (not over the bars), yearly quantities as one level
per year (bars, nothing interpolated between years), a dashed cap line on a power
fan, and every sheet set to print landscape, fitted to one page wide.
"""

from __future__ import annotations

from dataclasses import dataclass

from openpyxl import Workbook
from openpyxl.chart import BarChart, LineChart, Reference, ScatterChart, Series
from openpyxl.chart.axis import ChartLines
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from planner.export import cells

CHART_WIDTH_CM = 24
CHART_HEIGHT_CM = 13
"""One chart fills a landscape A4 or Letter page at most."""
CHART_ROWS = 27
"""Worksheet rows one chart covers (13 cm at the default row height), plus a gap."""


@dataclass(frozen=True)
class ChartSpec:
    """A native chart drawn from one frame of an analysis.

    ``kind``: ``tornado`` (horizontal bars, first column the categories), ``columns``
    (vertical bars), ``stacked`` (stacked vertical bars), ``lines``, ``steps`` (yearly
    quantities: a bar per year and series, never a line interpolated between years,
    with ``cap_column`` as a dashed limit line) or ``spider`` (one line per value
    of the first column, x from ``x_column``, y from ``y_column``).
    """

    kind: str
    sheet: str
    title: str
    y_title: str = ""
    series: int = 0
    """How many columns after the categories to plot (0: all)."""
    x_title: str = ""
    cap_column: str | None = None
    """A column drawn as a dashed limit line (the power cap on a power fan)."""
    x_column: str = "value_vs_base"
    y_column: str = "npv_cost_change_usd"
    y_format: str | None = None
    """The value axis's number format (default: by ``y_title``: USD in $K/$M/$B)."""


def _axis_format(chart: BarChart | LineChart | ScatterChart, y_title: str) -> None:
    chart.y_axis.delete = False
    chart.x_axis.delete = False
    if y_title == "USD":
        chart.y_axis.number_format = cells.USD_SCALED
        chart.y_axis.title = "USD ($K / $M / $B)"
    elif y_title in ("share", "share of demand"):
        chart.y_axis.number_format = cells.PCT
    chart.y_axis.majorGridlines = ChartLines()


def _columns(ws: Worksheet) -> list[str]:
    return [str(c.value) for c in ws[1]]


def _spider(ws: Worksheet, spec: ChartSpec) -> ScatterChart:
    chart = ScatterChart()
    header = _columns(ws)
    x_col, y_col = header.index(spec.x_column) + 1, header.index(spec.y_column) + 1
    groups: dict[str, list[int]] = {}
    for r in range(2, ws.max_row + 1):
        groups.setdefault(str(ws.cell(row=r, column=1).value), []).append(r)
    for name, rows in groups.items():
        lo, hi = min(rows), max(rows)
        xs = Reference(ws, min_col=x_col, min_row=lo, max_row=hi)
        ys = Reference(ws, min_col=y_col, min_row=lo, max_row=hi)
        series = Series(ys, xs, title=name)
        series.marker.symbol = "circle"
        series.smooth = False
        chart.series.append(series)
    chart.x_axis.title = spec.x_title
    return chart


def _lines(ws: Worksheet, spec: ChartSpec, last: int, rows: int) -> LineChart:
    chart = LineChart()
    for col in range(2, last + 1):
        chart.add_data(Reference(ws, min_col=col, min_row=1, max_row=rows), titles_from_data=True)
    for series in chart.series:
        series.smooth = False
    return chart


def _steps(ws: Worksheet, spec: ChartSpec, last: int, rows: int) -> BarChart:
    """Yearly quantities as bars (one level per year, nothing drawn between years), with
    the ``cap_column`` as a dashed line over them on the same axis."""
    header = _columns(ws)
    cap = header.index(spec.cap_column) + 1 if spec.cap_column in header else None
    chart = BarChart()
    chart.type, chart.grouping, chart.gapWidth = "col", "clustered", 60
    for col in range(2, last + 1):
        if col != cap:
            data = Reference(ws, min_col=col, min_row=1, max_row=rows)
            chart.add_data(data, titles_from_data=True)
    if cap is not None:
        line = LineChart()
        line.add_data(Reference(ws, min_col=cap, min_row=1, max_row=rows), titles_from_data=True)
        stroke = line.series[0].graphicalProperties.line
        stroke.dashStyle, stroke.solidFill, stroke.width = "dash", "C00000", 28575
        line.series[0].smooth = False
        chart += line
    return chart


def draw_chart(wb: Workbook, spec: ChartSpec) -> None:
    """Draw ``spec`` from its sheet, placed to the right of the sheet's table."""
    ws = wb[spec.sheet]
    rows, cols = ws.max_row, ws.max_column
    if rows < 2 or cols < 2:
        return
    last = cols if spec.series == 0 else min(cols, 1 + spec.series)
    chart: BarChart | LineChart | ScatterChart
    if spec.kind == "spider":
        chart = _spider(ws, spec)
    elif spec.kind == "lines":
        chart = _lines(ws, spec, cols, rows)
    elif spec.kind == "steps":
        chart = _steps(ws, spec, cols, rows)
    else:
        chart = BarChart()
        chart.type = "bar" if spec.kind == "tornado" else "col"
        if spec.kind == "tornado":
            chart.grouping, chart.overlap, chart.gapWidth = "clustered", 100, 40
            chart.x_axis.tickLblPos = "low"  # input names left of the bars, never over them
        if spec.kind == "stacked":
            chart.grouping, chart.overlap = "stacked", 100
        data = Reference(ws, min_col=2, max_col=last, min_row=1, max_row=rows)
        chart.add_data(data, titles_from_data=True)
    if spec.kind != "spider":
        chart.set_categories(Reference(ws, min_col=1, max_col=1, min_row=2, max_row=rows))
    chart.title = spec.title
    chart.y_axis.title = spec.y_title
    _axis_format(chart, spec.y_title)
    if spec.y_format:
        chart.y_axis.number_format = spec.y_format
    if spec.x_title:
        chart.x_axis.title = spec.x_title
    chart.height, chart.width = CHART_HEIGHT_CM, CHART_WIDTH_CM
    chart.legend.position = "b"
    row = 2 + CHART_ROWS * len(ws._charts)  # charts of one sheet stacked, never overlapping
    ws.add_chart(chart, f"{get_column_letter(cols + 2)}{row}")


def fit_to_page(ws: Worksheet) -> None:
    """Print landscape, one page wide, the header row repeated."""
    ws.page_setup.orientation = "landscape"
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.print_title_rows = "1:1"
