"""Open an assumptions workbook within bounds of time and memory.

A workbook is a zip of XML parts; a hostile one can be small on disk and huge
unpacked (a zip bomb), or hold one cell at ``XFD1048576`` so that a reader that
fills in the blanks builds billions of cells. So:

* the file is read through :func:`planner.safe_io.read_bytes` (a regular file of at
  most ``MAX_BYTES``);
* before openpyxl sees it, the zip's members are checked: at most ``MAX_MEMBERS``,
  declared sizes summing to at most ``MAX_UNPACKED`` bytes, the parts openpyxl reads
  whole (styles, shared strings) within ``PART_LIMITS``, no member (over 1 MB)
  inflating more than ``MAX_RATIO`` times, and every member inflated in full once
  (with the running total capped) so the declared sizes cannot lie;
* openpyxl reads in read-only (streaming) mode, only the sheets the layout names,
  and :func:`bounded_rows` stops at ``MAX_ROWS`` rows, ``MAX_COLUMNS`` columns or
  ``MAX_CELLS`` cells in the whole workbook, naming the sheet and the limit.
"""

from __future__ import annotations

import io
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from planner import safe_io
from planner.errors import InputError, Problem
from planner.scenario.workbook_layout import MAX_BYTES

MAX_MEMBERS = 1_000
"""Parts in the zip; a workbook of our layout has a few dozen."""
MAX_UNPACKED = 100_000_000
"""Bytes of all parts unpacked."""
MAX_RATIO = 100
PART_LIMITS = {"xl/styles.xml": 1_000_000, "xl/sharedStrings.xml": 5_000_000}
"""Parts openpyxl parses whole even when streaming, unpacked bytes: a 2.5 MB workbook
whose styles and shared strings filled the general limit took 69 s and 1.6 GB to
read. A workbook `planner template` writes holds 4 KB of styles and no shared strings;
one saved by Excel or LibreOffice some tens of KB."""
"""How many times a part (over 1 MB unpacked) may inflate."""
MAX_ROWS = 100_000
"""Rows of one sheet (the last row with a value)."""
MAX_COLUMNS = 1_000
"""Columns of one sheet (the last column with a value)."""
MAX_CELLS = 2_000_000
"""Cells read in the whole workbook (each row counted to its last value)."""

_HINT = "save it as an Excel workbook (.xlsx), or write one with `planner template`"


def _refuse(file: str, message: str, hint: str = _HINT, place: str | None = None) -> InputError:
    return InputError(file, Problem(path="", message=message, hint=hint, where=place))


def check_zip(raw: bytes, file: str) -> None:
    """Refuse a zip that would inflate beyond the limits (see the module docstring)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, OSError):
        raise _refuse(file, "not a readable .xlsx workbook: not a zip archive") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise _refuse(file, f"the workbook has {len(members):,} parts; at most {MAX_MEMBERS:,}")
        declared = sum(m.file_size for m in members)
        if declared > MAX_UNPACKED:
            raise _refuse(
                file,
                f"the workbook unpacks to {declared:,} bytes; at most {MAX_UNPACKED:,}",
                "remove unused sheets, images and formatting, or write a fresh workbook "
                "with `planner template`",
            )
        for member in members:
            limit = PART_LIMITS.get(member.filename)
            if limit is not None and member.file_size > limit:
                raise _refuse(
                    file,
                    f"part {member.filename} unpacks to {member.file_size:,} bytes; at most "
                    f"{limit:,} (it is read whole)",
                    "remove unused cell styles and text, or write a fresh workbook with "
                    "`planner template`",
                )
        total = 0
        for member in members:
            ratio = member.file_size // max(member.compress_size, 1)
            if member.file_size > 1_000_000 and ratio > MAX_RATIO:
                raise _refuse(
                    file,
                    f"part {member.filename[:80]!r} inflates {ratio:,} times; at most "
                    f"{MAX_RATIO} (a zip bomb?)",
                )
            limit = PART_LIMITS.get(member.filename)
            try:
                with archive.open(member) as part:
                    size = 0
                    while chunk := part.read(1 << 16):
                        total += len(chunk)
                        size += len(chunk)
                        if limit is not None and size > limit:  # it declared less
                            raise _refuse(
                                file,
                                f"part {member.filename} unpacks to more than {limit:,} bytes",
                            )
                        if total > MAX_UNPACKED:
                            raise _refuse(
                                file, f"the workbook unpacks to more than {MAX_UNPACKED:,} bytes"
                            )
            except InputError:
                raise
            except Exception as exc:  # bad CRC, unsupported compression, encrypted part
                reason = str(exc) or type(exc).__name__
                raise _refuse(file, f"not a readable .xlsx workbook: {reason}") from None


def open_workbooks(path: Path) -> tuple[Any, Any]:
    """The workbook twice, read-only: cell values (as last computed) and formulas."""
    file = str(path)
    raw = safe_io.read_bytes(path, limit=MAX_BYTES, what="workbook")
    check_zip(raw, file)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about features it drops
            values = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
            formulas = load_workbook(io.BytesIO(raw), read_only=True, data_only=False)
    except Exception as exc:  # missing parts, bad XML: all "not a workbook"
        reason = str(exc) or type(exc).__name__
        raise _refuse(file, f"not a readable .xlsx workbook: {reason[:200]}") from None
    return values, formulas


class CellBudget:
    """Cells left to read in one workbook (``MAX_CELLS`` at the start)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.left = MAX_CELLS


def bounded_rows(sheet: Any, title: str, budget: CellBudget) -> Iterator[tuple[Any, ...]]:
    """The rows of a read-only sheet, each up to its last value; raises InputError past a limit.

    The dimension the file declares is ignored (it may claim a million rows); rows
    between those with values come as empty tuples.
    """
    sheet.reset_dimensions()
    try:
        for r, row in enumerate(sheet.iter_rows(values_only=True), start=1):
            if r > MAX_ROWS:
                raise _refuse(
                    budget.file,
                    f"sheet {title!r} has values beyond row {MAX_ROWS:,}, the most a sheet "
                    "may have",
                    "delete the far rows (select them, Delete Rows) and save",
                    place=f"sheet {title!r}",
                )
            if len(row) > MAX_COLUMNS:
                raise _refuse(
                    budget.file,
                    f"sheet {title!r} has a value in column {get_column_letter(len(row))} "
                    f"({len(row):,}); a sheet may have at most {MAX_COLUMNS:,} columns",
                    "delete the far columns (select them, Delete Columns) and save",
                    place=f"sheet {title!r}, row {r}",
                )
            budget.left -= max(len(row), 1)
            if budget.left < 0:
                raise _refuse(
                    budget.file,
                    f"the workbook has more than {MAX_CELLS:,} cells (reached on sheet "
                    f"{title!r}, row {r:,})",
                    "delete unused rows and columns, or split the scenario",
                    place=f"sheet {title!r}",
                )
            yield row
    except InputError:
        raise
    except Exception as exc:  # bad XML in a sheet part
        reason = str(exc) or type(exc).__name__
        message = f"sheet {title!r} is not readable: {reason[:200]}"
        raise _refuse(budget.file, message, place=f"sheet {title!r}") from None
