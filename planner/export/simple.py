"""A plain workbook of a Plan: a Summary sheet, then one sheet per table.

The analyst-grade workbook (live formulas, charts, assumptions) is
``planner.export.excel``; this one is the quick, faithful dump ``planner run`` writes.
Text goes through :func:`planner.export.cells.write_value` (never a formula) and the
file is written to a temporary file beside the target and renamed into place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openpyxl import Workbook

from planner.export.atomic import save_workbook_atomically
from planner.export.cells import (
    add_sheet,
    autofit_columns,
    freeze_header,
    style_header_row,
    write_value,
)
from planner.results import TABLE_UNITS, Plan


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if isinstance(value, float) and value != value:  # NaN: a blank cell
        return None
    if isinstance(value, dict | list | tuple):
        return str(value)
    return value


def plan_workbook(plan: Plan) -> Workbook:
    """The workbook of ``plan`` (not yet saved)."""
    wb = Workbook()
    summary = wb.active
    summary.title = "Summary"
    rows: list[tuple[Any, Any]] = [("scenario", plan.scenario), ("status", plan.status)]
    rows += list(plan.headline.items())
    rows += [("", None), ("diagnosis", None)]
    rows += [("", sentence) for sentence in plan.diagnosis]
    write_value(summary.cell(row=1, column=1), "item")
    write_value(summary.cell(row=1, column=2), "value")
    style_header_row(summary, 1, 2)
    for i, (key, value) in enumerate(rows, start=2):
        write_value(summary.cell(row=i, column=1), _plain(key))
        write_value(summary.cell(row=i, column=2), _plain(value))
    autofit_columns(summary)
    for name, frame in plan.tables.items():
        ws = add_sheet(wb, name)
        for j, column in enumerate(frame.columns, start=1):
            write_value(ws.cell(row=1, column=j), str(column))
        style_header_row(ws, 1, max(1, len(frame.columns)))
        for i, record in enumerate(frame.itertuples(index=False), start=2):
            for j, value in enumerate(record, start=1):
                write_value(ws.cell(row=i, column=j), _plain(value))
        if name in TABLE_UNITS:
            write_value(ws.cell(row=len(frame) + 3, column=1), f"units: {TABLE_UNITS[name]}")
        freeze_header(ws)
        autofit_columns(ws)
    return wb


def write_plan_workbook(plan: Plan, path: str | Path) -> Path:
    """Write ``plan`` to ``path`` atomically; raises ExportError on failure."""
    return save_workbook_atomically(plan_workbook(plan), path)
