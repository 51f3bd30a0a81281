"""The workbook being built: sheets, named cells, tables, formulas and what they must show.

Every sheet module writes through a :class:`Book`. A formula is written together with
the number the planner computed for that cell (``Book.expected``), so a test can
recalculate the workbook in a spreadsheet engine and check every formula against
the plan. Cells other sheets refer to are recorded under a key in ``Book.refs``
(``("electricity", site, period)`` → ``'Assumptions'!$E$17``); scalars also get an
Excel defined name (``wacc``) so formulas read like the maths.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from openpyxl import Workbook
from openpyxl.cell.cell import Cell
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.worksheet import Worksheet

from planner.export import cells, money

TITLE_FONT = Font(bold=True, size=12)
SECTION_FONT = Font(bold=True)
NOTE_FONT = Font(italic=True, color="595959")
MIN_WIDTH, MAX_WIDTH = 8.0, 50.0


def quoted(title: str) -> str:
    """A sheet title as a formula prefix: ``'Demand vs served'!``."""
    return "'" + title.replace("'", "''") + "'!"


def absolute(title: str, row: int, col: int) -> str:
    """``'Sheet'!$C$5``."""
    return f"{quoted(title)}${get_column_letter(col)}${row}"


def relative(row: int, col: int) -> str:
    """``C5``."""
    return f"{get_column_letter(col)}{row}"


def plain(value: Any) -> Any:
    """A cell-ready Python value: numpy scalars unwrapped, NaN and NA as None."""
    if value is None or value is pd.NA:
        return None
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict | list | tuple):
        return ", ".join(str(v) for v in value) if not isinstance(value, dict) else str(value)
    return value


def display_width(value: Any, fmt: str | None) -> int:
    """Roughly how many characters ``value`` shows in format ``fmt``."""
    value = plain(value)
    if value is None:
        return 0
    if isinstance(value, bool):
        return 5
    if isinstance(value, numbers.Real):
        v = float(value)
        if fmt in (cells.USD,):
            return len(f"${v:,.0f}")
        if fmt in (cells.USD_SCALED, cells.USD_SCALED_CREDIT):
            return 9
        if money.is_usd_format(fmt):
            return len(money.usd_text(v))
        if fmt in (cells.USD_CENTS, cells.USD_PRECISE):
            return len(f"${v:,.4f}")
        if fmt in (cells.PCT, cells.PCT_PRECISE):
            return len(f"{v:.3%}")
        if fmt in (cells.THOUSANDS, cells.YEAR):
            return len(f"{v:,.0f}")
        if fmt in (cells.DECIMAL1, cells.DECIMAL2, cells.USD_PER_MTOK, cells.FACTOR):
            return len(f"{v:,.4f}")
        if fmt == cells.SCIENTIFIC:
            return 9
        return len(f"{v:.6g}")
    return max((len(line) for line in str(value).splitlines()), default=0)


@dataclass
class Book:
    """An openpyxl workbook plus what the builders know about its cells."""

    wb: Workbook
    expected: dict[str, float] = field(default_factory=dict)
    """``'Sheet'!$C$5`` → the number the planner computed for that formula cell."""
    refs: dict[Hashable, str] = field(default_factory=dict)
    """Key → absolute address of a cell other sheets refer to."""
    tables: dict[str, TableRef] = field(default_factory=dict)
    rows: dict[Hashable, int] = field(default_factory=dict)
    """Key → row number of a table row other sheets refer to."""
    _widths: dict[tuple[str, int], int] = field(default_factory=dict)

    @classmethod
    def new(cls, titles: Sequence[str]) -> Book:
        """A workbook whose sheets are ``titles``, in that (display) order."""
        wb = Workbook()
        wb.remove(wb.active)
        for title in titles:
            cells.add_sheet(wb, title)
        return cls(wb)

    def sheet(self, title: str) -> Worksheet:
        return self.wb[title]

    def _track(self, ws: Worksheet, col: int, width: int) -> None:
        key = (ws.title, col)
        self._widths[key] = max(self._widths.get(key, 0), width)

    def value(self, ws: Worksheet, row: int, col: int, value: Any, fmt: str | None = None) -> Cell:
        """Any plain value (text is always text, never a formula)."""
        cell = ws.cell(row=row, column=col)
        cells.write_value(cell, plain(value), fmt)
        self._track(ws, col, display_width(value, fmt))
        return cell

    def text(self, ws: Worksheet, row: int, col: int, text: Any, track: bool = True) -> Cell:
        cell = cells.write_text(ws.cell(row=row, column=col), text)
        if track:
            self._track(ws, col, display_width(text, None))
        return cell

    def formula(
        self,
        ws: Worksheet,
        row: int,
        col: int,
        formula: str,
        expected: float | None,
        fmt: str | None = None,
    ) -> Cell:
        """A live formula and the number the planner has for it (None: not checked)."""
        cell = cells.write_formula(ws.cell(row=row, column=col), formula, fmt)
        if expected is not None:
            expected = float(expected)
            if not math.isfinite(expected):
                raise ValueError(f"{ws.title}!{cell.coordinate}: expected value {expected}")
            self.expected[absolute(ws.title, row, col)] = expected
        self._track(ws, col, display_width(expected, fmt) + 1)
        return cell

    def remember(self, key: Hashable, ws: Worksheet, row: int, col: int) -> str:
        address = absolute(ws.title, row, col)
        self.refs[key] = address
        return address

    def define(self, name: str, ws: Worksheet, row: int, col: int) -> str:
        """Give a cell a workbook-level defined name (and remember it under ``name``)."""
        address = self.remember(name, ws, row, col)
        self.wb.defined_names[name] = DefinedName(name, attr_text=address)
        return address

    def ref(self, key: Hashable) -> str:
        return self.refs[key]

    def title_row(self, ws: Worksheet, row: int, text: str, col: int = 1) -> None:
        cell = self.text(ws, row, col, text, track=False)
        cell.font = TITLE_FONT

    def note(self, ws: Worksheet, row: int, text: str, col: int = 1) -> None:
        cell = self.text(ws, row, col, text, track=False)
        cell.font = NOTE_FONT
        cell.alignment = Alignment(wrap_text=False)

    def fit_widths(self, ws: Worksheet) -> None:
        """Column widths from the widest value written in each column (headers wrap)."""
        for (title, col), width in self._widths.items():
            if title == ws.title:
                letter = get_column_letter(col)
                ws.column_dimensions[letter].width = min(max(MIN_WIDTH, width + 2), MAX_WIDTH)


@dataclass(frozen=True)
class Row:
    """One data row being written: its record and where its cells sit."""

    book: Book
    ws: Worksheet
    row: int
    record: dict[str, Any]
    columns: dict[str, int]

    def at(self, key: str) -> str:
        """Relative address of this row's ``key`` cell (``G5``)."""
        return relative(self.row, self.columns[key])

    def __getitem__(self, key: str) -> Any:
        return self.record[key]


Formula = Callable[[Row], str | None]


@dataclass(frozen=True)
class Column:
    """How one column is written: header (with unit), format, and maybe a formula.

    ``formula(row)`` returns the formula text (or None to write the plain value); the
    record's ``key`` value is then the number the formula must reproduce.
    """

    key: str
    header: str
    fmt: str | None = None
    formula: Formula | None = None


@dataclass(frozen=True)
class TableRef:
    """Where a written table sits: its sheet, header row, data rows and columns."""

    title: str
    header_row: int
    first_row: int
    last_row: int
    columns: dict[str, int]
    rows: int

    def range(self, key: str) -> str:
        """Absolute range of a column's data cells (``'Fleet'!$G$2:$G$27``)."""
        letter = get_column_letter(self.columns[key])
        return f"{quoted(self.title)}${letter}${self.first_row}:${letter}${self.last_row}"

    def cell(self, key: str, index: int) -> str:
        """Absolute address of the ``index``-th (0-based) data row's ``key`` cell."""
        return absolute(self.title, self.first_row + index, self.columns[key])


def write_table(
    book: Book,
    ws: Worksheet,
    name: str,
    frame: pd.DataFrame,
    columns: Sequence[Column],
    *,
    header_row: int = 1,
    first_col: int = 1,
    excel_table: bool = True,
    remember: Callable[[Row], Hashable] | None = None,
) -> TableRef:
    """Write ``frame`` as a header row and one row per record, formulas where given.

    The block becomes a filterable Excel table named after ``name`` (an empty frame
    keeps one empty data row, so ranges over it stay valid). ``remember(row)`` keys
    each row in ``book.rows`` (key → row number) for other sheets.
    """
    index = {c.key: first_col + j for j, c in enumerate(columns)}
    for c in columns:
        book.text(ws, header_row, index[c.key], c.header, track=False)
        longest_word = max((len(w) for w in c.header.split()), default=0)
        book._track(ws, index[c.key], longest_word + 1)
    cells.style_header_row(ws, header_row, len(columns), first_col)
    records = frame.to_dict(orient="records")
    for i, record in enumerate(records):
        r = header_row + 1 + i
        here = Row(book, ws, r, record, index)
        for c in columns:
            text = c.formula(here) if c.formula is not None else None
            if text is None:
                book.value(ws, r, index[c.key], record.get(c.key), c.fmt)
            else:
                book.formula(ws, r, index[c.key], text, plain(record.get(c.key)), c.fmt)
        if remember is not None:
            book.rows[remember(here)] = r
    last_row = header_row + max(len(records), 1)
    for c in columns:  # formats on the empty row of an empty table too
        if not records and c.fmt:
            ws.cell(row=last_row, column=index[c.key]).number_format = c.fmt
    ref = TableRef(ws.title, header_row, header_row + 1, last_row, index, len(records))
    if excel_table:
        end = get_column_letter(first_col + len(columns) - 1)
        cells.add_table(ws, f"{get_column_letter(first_col)}{header_row}:{end}{last_row}", name)
    book.tables[name] = ref
    return ref


PERIOD = "period"
TIME_COLUMNS = (
    "period",
    "order_period",
    "vintage",
    "first_period",
    "finish_period",
    "penalty_period",
)


def as_period(label: Any) -> Any:
    """A period label as the workbook shows it: the year (a number) for yearly plans
    (so SUMIFS can match it), else its text (``2027Q3``)."""
    label = plain(label)
    if label is None:
        return None
    text = str(label)
    return int(text) if text.isdigit() else text


def has_rows(plan: Any, name: str) -> bool:
    """The plan has table ``name`` and it is not empty (an optional sheet is written)."""
    frame = plan.tables.get(name)
    return frame is not None and not frame.empty


def table(plan: Any, name: str) -> pd.DataFrame:
    """``plan.tables[name]`` with its period columns as :func:`as_period` shows them.

    Tables without a ``period`` column (plans from before sub-year periods) get one
    from ``year``; the training table's ``*_year`` columns likewise.
    """
    frame = plan.tables[name].copy()
    if PERIOD not in frame.columns and "year" in frame.columns:
        frame.insert(0, PERIOD, frame["year"])
    for which in ("first", "finish", "penalty"):
        if f"{which}_period" not in frame.columns and f"{which}_year" in frame.columns:
            frame[f"{which}_period"] = frame[f"{which}_year"]
    for column in TIME_COLUMNS:
        if column in frame.columns:
            frame[column] = frame[column].map(as_period).astype(object)
    return frame


def criterion(value: Any) -> bool:
    """True when ``value`` can be matched with SUMIFS (a number, not text)."""
    return isinstance(plain(value), numbers.Real) and not isinstance(plain(value), bool)


def sum_where(values: str, conditions: Sequence[tuple[str, str, bool]]) -> str:
    """A formula summing ``values`` where every (range, cell, numeric) condition holds.

    Numeric keys use ``SUMIFS``; text keys (site or workload names a user typed) use
    ``SUMPRODUCT`` with ``EXACT``, because SUMIFS reads a criterion such as ``=chat``
    or ``a*`` as a comparison or a wildcard, not as the literal name.
    """
    if all(numeric for _, _, numeric in conditions):
        pairs = ",".join(f"{rng},{cell}" for rng, cell, _ in conditions)
        return f"=SUMIFS({values},{pairs})"
    tests = "*".join(
        f"({rng}={cell})" if numeric else f"EXACT({rng},{cell})"
        for rng, cell, numeric in conditions
    )
    return f"=SUMPRODUCT({tests}*{values})"
