"""Page setup: every sheet prints landscape, fitted to the page width, as a memo page.

* landscape, fitted to one page wide (as many pages tall as it needs), the header
  row repeated on every page (row 1, unless the sheet set its own, as ``Curves`` does),
  the print area the cells written (charts included); a page break before each chart
  but the first;
* the page header names the sheet and the footer numbers the pages, so a printed
  page says where it comes from;
* ``Summary`` is fitted to one page both ways; ``Charts`` puts each chart (with its
  data block) on a page of its own by a row break between the chart slots.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from openpyxl.chart._chart import ChartBase
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import column_index_from_string, coordinate_from_string
from openpyxl.worksheet.pagebreak import Break, RowBreak
from openpyxl.worksheet.worksheet import Worksheet

HEADER_ROWS = {"Summary": 1, "Charts": 0}
"""Rows repeated at the top of each printed page (default 1: the table header)."""
CHART_ROWS_PER_CM = 1 / 0.53  # default row height 15 pt ≈ 0.53 cm
CHART_COLS_PER_CM = 1 / 1.9  # a column of width 10 ≈ 1.9 cm


def chart_anchor(chart: ChartBase) -> tuple[int, int]:
    """(row, column), 1-based, of a chart's top-left cell."""
    anchor = chart.anchor
    if isinstance(anchor, str):
        col, row = coordinate_from_string(anchor)
        return row, column_index_from_string(col)
    return anchor._from.row + 1, anchor._from.col + 1


def chart_box(chart: ChartBase) -> tuple[int, int, int, int]:
    """(first row, first column, last row, last column) a chart covers, roughly."""
    row, col = chart_anchor(chart)
    last_row = row + math.ceil(chart.height * CHART_ROWS_PER_CM)
    return row, col, last_row, col + math.ceil(chart.width * CHART_COLS_PER_CM)


def chart_extent(ws: Worksheet) -> tuple[int, int]:
    """(last row, last column) the sheet's charts reach, from their anchors and sizes."""
    boxes = [chart_box(chart) for chart in ws._charts]
    return max((b[2] for b in boxes), default=0), max((b[3] for b in boxes), default=0)


def set_up_page(ws: Worksheet, *, one_page: bool = False, breaks: Iterable[int] = ()) -> None:
    """Landscape, fit to width, header rows repeated, print area = the used cells."""
    setup = ws.page_setup
    setup.orientation = "landscape"
    setup.paperSize = ws.PAPERSIZE_A4
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    setup.fitToWidth = 1
    setup.fitToHeight = 1 if one_page else 0
    ws.print_options.gridLines = False
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.6
    ws.oddHeader.center.text = "&A"
    ws.oddFooter.center.text = "page &P of &N"
    header = HEADER_ROWS.get(ws.title, 1)
    if header and ws.max_row > header and not ws.print_title_rows:  # a sheet may set its own
        ws.print_title_rows = f"1:{header}"
    chart_rows, chart_cols = chart_extent(ws)
    last_row, last_col = max(ws.max_row, chart_rows), max(ws.max_column, chart_cols)
    ws.print_area = f"A1:{get_column_letter(last_col)}{last_row}"
    rows = RowBreak()
    for row in breaks:
        rows.append(Break(id=row))
    ws.row_breaks = rows
