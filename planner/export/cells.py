"""Writing cells safely and laying out sheets (openpyxl).

User text never becomes a formula: openpyxl turns any string starting with ``=``
into a formula (and ``#N/A``-like strings into errors), and a spreadsheet may
evaluate text starting with ``+``, ``-`` or ``@``. :func:`write_text` stores text as
a string cell and sets the cell's quote prefix when it starts with one of those
characters or with a tab, CR or LF (docs/design.md, practical notes).

CSV files have no cell types, so the same rule (:func:`formula_like`) is applied by
:func:`csv_text` and :func:`csv_safe`: such text gets a leading apostrophe, which
spreadsheets show as text and never run. Text that is a plain number (``-12.5``,
``+3``) and real numbers are left as they are.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import re
from collections.abc import Iterable
from typing import Any

import pandas as pd
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, Cell
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.styles.numbers import is_date_format
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.workbook import Workbook
from openpyxl.worksheet.table import Table, TableStyleInfo
from openpyxl.worksheet.worksheet import Worksheet

# Number formats (Excel format codes).
USD = "$#,##0"
USD_SCALED = '[>=1000000000]$#,##0.00,,,"B";[>=1000000]$#,##0.00,,"M";$#,##0.0,"K"'
"""Money totals in $K, $M or $B by size (``$3.72B``, ``$81.87M``, ``$12.5K``); the
cell keeps the exact number."""
USD_SCALED_CREDIT = '[<=-1000000000]$#,##0.00,,,"B";[<=-1000000]$#,##0.00,,"M";$#,##0.0,"K"'
"""The same for amounts that are never positive (credits such as the residual value):
the conditions of :data:`USD_SCALED` test the signed value, so a large credit would
fall to its $K section (``-$4,734,880.0K``). Used where no value is known to pick
:func:`usd_scaled_single` by: engines print the sign in the first section only
(LibreOffice showed a -$900M credit in the second as ``$900.06M``)."""


def usd_scaled_single(value: float) -> str:
    """A one-section $K/$M/$B format for the size of ``value``: with no conditions every
    engine prints a negative number's sign, so a credit keeps its minus at any size."""
    size = abs(value)
    if size >= 1e9:
        return '$#,##0.00,,,"B"'
    if size >= 1e6:
        return '$#,##0.00,,"M"'
    return '$#,##0.0,"K"'


USD_CENTS = "$#,##0.00"
USD_PRECISE = "$#,##0.00##"  # small prices such as $/kWh: 2 to 4 decimals
USD_PER_MTOK = "0.00"
PCT = "0.0%"
PCT_PRECISE = "0.0##%"
THOUSANDS = "#,##0"
DECIMAL1 = "#,##0.0"
DECIMAL2 = "0.00"
FACTOR = "0.0000"
SCIENTIFIC = "0.00E+00"
YEAR = "0"
DATE = "yyyy-mm-dd"
GENERAL = "General"

# Text that a spreadsheet could read as a formula or a command.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n")
MAX_CELL_TEXT = 32_767  # Excel's limit on characters in one cell
MAX_SHEET_TITLE = 31

_SHEET_TITLE_BAD = re.compile(r"[\[\]:*?/\\\x00-\x1f]")
_CELL_REF_LIKE = re.compile(r"^(?:[A-Za-z]{1,3}\d+|[RrCc]|[Rr]\d*[Cc]\d*)$")

HEADER_FONT = Font(bold=True)
HEADER_FILL = PatternFill("solid", fgColor="DDEBF7")
HEADER_BORDER = Border(bottom=Side(style="thin", color="7F7F7F"))
HEADER_ALIGNMENT = Alignment(wrap_text=True, vertical="top")


def formula_like(text: str) -> bool:
    """Whether a spreadsheet could run ``text`` as a formula or a command."""
    return text.startswith(FORMULA_TRIGGERS)


def _plain_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def csv_text(value: Any) -> Any:
    """``value`` for a CSV cell: formula-like text (:func:`formula_like`) that is not a
    plain number gets a leading apostrophe; anything else is returned unchanged."""
    if isinstance(value, str) and formula_like(value) and not _plain_number(value):
        return "'" + value
    return value


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names are :func:`csv_text`."""
    out = frame.copy()
    out.columns = [csv_text(c) for c in frame.columns]
    for n, dtype in enumerate(frame.dtypes):
        if not pd.api.types.is_numeric_dtype(dtype):
            out.isetitem(n, frame.iloc[:, n].map(csv_text))
    return out


def write_text(cell: Cell, value: Any) -> Cell:
    """Store ``value`` as text: never a formula, error code or number.

    Characters Excel cannot store (C0 controls other than tab, CR, LF) are dropped;
    line breaks are stored as LF (a bare CR does not survive the XML: readers turn it
    into LF, so the cell holds what any reader will see); text longer than Excel's
    32,767-character cell limit is cut there.
    """
    text = "" if value is None else str(value)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = ILLEGAL_CHARACTERS_RE.sub("", text)[:MAX_CELL_TEXT]
    cell.value = None
    cell._value = text  # bypass openpyxl's type inference ("=..." → formula)
    cell.data_type = "s"
    cell.quotePrefix = formula_like(text)
    return cell


def write_number(cell: Cell, value: Any, number_format: str | None = None) -> Cell:
    """Store a number (NaN and infinities become a blank cell: Excel cannot hold them)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"write_number needs a number, got {type(value).__name__}")
    number: int | float = int(value) if isinstance(value, numbers.Integral) else float(value)
    cell.value = number if math.isfinite(number) else None
    if number_format:
        cell.number_format = number_format
    return cell


def write_formula(cell: Cell, formula: str, number_format: str | None = None) -> Cell:
    """Store a live formula, e.g. ``=SUM(B2:B7)``."""
    if not isinstance(formula, str) or not formula.startswith("=") or len(formula) < 2:
        raise ValueError(f"a formula must start with '=': {formula!r}")
    cell.value = formula
    cell.data_type = "f"
    if number_format:
        cell.number_format = number_format
    return cell


def write_value(cell: Cell, value: Any, number_format: str | None = None) -> Cell:
    """Write any plain value: None (blank), bool, number, date or text (as text)."""
    if value is None:
        cell.value = None
    elif isinstance(value, bool):
        cell.value = value
    elif isinstance(value, numbers.Real):
        write_number(cell, value, number_format)
    elif isinstance(value, dt.date):
        cell.value = value
        cell.number_format = number_format if is_date_format(number_format) else DATE
    else:
        write_text(cell, value)
    return cell


def style_header_row(ws: Worksheet, row: int, ncols: int, first_col: int = 1) -> None:
    """Bold, shaded, wrapped header cells from ``first_col`` over ``ncols`` columns."""
    for col in range(first_col, first_col + ncols):
        cell = ws.cell(row=row, column=col)
        cell.font = HEADER_FONT
        cell.fill = HEADER_FILL
        cell.border = HEADER_BORDER
        cell.alignment = HEADER_ALIGNMENT


def _display_width(cell: Cell) -> int:
    value = cell.value
    if value is None:
        return 0
    if cell.data_type == "f":
        return 12
    if isinstance(value, bool):
        return 5
    if isinstance(value, numbers.Real):
        return len(f"{value:,.2f}") if isinstance(value, float) else len(f"{value:,}")
    if isinstance(value, dt.date):
        return 10
    return max(len(line) for line in str(value).splitlines() or [""])


def autofit_columns(ws: Worksheet, min_width: float = 8, max_width: float = 60) -> None:
    """Set each column's width from its longest displayed value, within the bounds."""
    for column in ws.iter_cols(min_row=1, max_row=max(ws.max_row, 1)):
        longest = max((_display_width(c) for c in column), default=0)
        letter = get_column_letter(column[0].column)
        ws.column_dimensions[letter].width = min(max(min_width, longest + 3), max_width)


def _taken_names(wb: Workbook | None) -> set[str]:
    if wb is None:
        return set()
    names = {n.lower() for n in wb.defined_names}
    for sheet in wb.worksheets:
        names |= {n.lower() for n in sheet.tables}
    return names


def table_name(name: str, taken: Iterable[str] = ()) -> str:
    """An Excel table name from ``name``: letters, digits, ``_`` and ``.``; unique."""
    base = re.sub(r"[^A-Za-z0-9_.]", "_", str(name))[:250] or "Table"
    if not (base[0].isalpha() or base[0] == "_") or _CELL_REF_LIKE.match(base):
        base = f"T_{base}"
    used = {t.lower() for t in taken}
    candidate, n = base, 2
    while candidate.lower() in used:
        candidate, n = f"{base}_{n}", n + 1
    return candidate


def add_table(ws: Worksheet, ref: str, name: str, style: str = "TableStyleMedium2") -> Table:
    """Make ``ref`` (header row first) a filterable Excel table named after ``name``.

    Header cells become unique, non-empty text (Excel repairs a file otherwise); a
    range of only a header row is extended by one empty row.
    """
    min_col, min_row, max_col, max_row = range_boundaries(ref)
    max_row = max(max_row, min_row + 1)
    seen: set[str] = set()
    for col in range(min_col, max_col + 1):
        cell = ws.cell(row=min_row, column=col)
        header = "" if cell.value is None else str(cell.value).strip()
        header = header or f"Column{col - min_col + 1}"
        unique, n = header, 2
        while unique.lower() in seen:
            unique, n = f"{header} ({n})", n + 1
        seen.add(unique.lower())
        write_text(cell, unique)
    ref = f"{get_column_letter(min_col)}{min_row}:{get_column_letter(max_col)}{max_row}"
    table = Table(displayName=table_name(name, _taken_names(ws.parent)), ref=ref)
    table.tableStyleInfo = TableStyleInfo(name=style, showRowStripes=True)
    ws.add_table(table)
    return table


def freeze_header(ws: Worksheet, rows: int = 1, cols: int = 0) -> None:
    """Keep the first ``rows`` rows (and ``cols`` columns) visible while scrolling."""
    ws.freeze_panes = ws.cell(row=rows + 1, column=cols + 1).coordinate


def safe_sheet_title(name: Any, existing: Iterable[str] = ()) -> str:
    """A valid sheet title from ``name``, unique (case-insensitive) among ``existing``.

    At most 31 characters, none of ``[ ] : * ? / \\``, not starting or ending with an
    apostrophe, not Excel's reserved ``History``.
    """
    title = _SHEET_TITLE_BAD.sub("_", str(name)).strip().strip("'")
    if title.lower() == "history":
        title = "History_"
    title = title[:MAX_SHEET_TITLE].strip().strip("'") or "Sheet"
    used = {t.lower() for t in existing}
    candidate, n = title, 2
    while candidate.lower() in used:
        suffix = f" ({n})"
        candidate = title[: MAX_SHEET_TITLE - len(suffix)].rstrip().rstrip("'") + suffix
        n += 1
    return candidate


def add_sheet(wb: Workbook, name: Any) -> Worksheet:
    """A new sheet at the end of ``wb`` titled :func:`safe_sheet_title` of ``name``."""
    return wb.create_sheet(title=safe_sheet_title(name, wb.sheetnames))
