"""Analysis outputs: a workbook (settings, summary tables, per-run inputs and results,
native charts) and a tidy per-run table (CSV, or Parquet when pyarrow is installed).

Every analysis hands over an :class:`Analysis`: named DataFrames (the first is the
headline table the terminal shows), the per-run rows and charts to draw from some of the
frames. Cells are written through :mod:`planner.export.cells` (user text can never
become a formula) and files are saved atomically (:mod:`planner.export.atomic`).

The tidy table has one row per run: ``task_id``, ``label``, ``status``, ``error``, the
varied inputs (``input:PATH``), then the figures; per-year and per-name figures are
columns such as ``capex_usd.2027``, ``units_bought[h100-hgx]``, ``usd_per_mtok[chat]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from openpyxl import Workbook
from openpyxl.chart import BarChart, LineChart, Reference
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from planner.analysis.tasks import Row
from planner.errors import InputError, Problem
from planner.export import cells
from planner.export.atomic import save_workbook_atomically, write_atomically

SCALARS = (
    ("objective_usd", "npv_tco_usd"),
    ("npv_cost_usd", "npv_cost_usd"),
    ("penalties_usd_pv", "penalties_usd_pv"),
    ("capex_usd", "capex_usd"),
    ("peak_mw", "peak_mw"),
    ("unmet_inference_share", "unmet_inference_share"),
    ("unmet_training_flops", "unmet_training_flops"),
    ("demand_met", "demand_met"),
    ("mip_gap", "mip_gap"),
)
"""Row field → tidy column (``npv_tco_usd`` is the objective: NPV cost + penalties)."""
BY_YEAR = (("capex_by_year", "capex_usd"), ("mw_by_year", "mw"))
BY_NAME = ("usd_per_mtok", "units_bought", "capex_by_hardware", "rented_unit_years")


@dataclass(frozen=True)
class ChartSpec:
    """A native chart drawn from one frame of an analysis.

    ``kind``: ``tornado`` (horizontal bars, first column the categories),
    ``columns`` (vertical bars), ``stacked`` (stacked vertical bars) or ``lines``.
    """

    kind: str
    sheet: str
    title: str
    y_title: str = ""
    series: int = 0
    """How many columns after the categories to plot (0: all)."""


@dataclass
class Analysis:
    """Everything an analysis command reports."""

    kind: str
    scenario: str
    rows: list[Row]
    frames: dict[str, pd.DataFrame]
    """Sheet name → table; the first is the headline table."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Shown on the Summary sheet: seed, samples, executor, …"""
    charts: list[ChartSpec] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    display: dict[str, list[str]] = field(default_factory=dict)
    """Frame name → the columns a terminal shows (default: all)."""

    @property
    def headline(self) -> pd.DataFrame:
        return next(iter(self.frames.values()))

    def counts(self) -> dict[str, int]:
        """Runs by status."""
        out: dict[str, int] = {}
        for row in self.rows:
            out[row["status"]] = out.get(row["status"], 0) + 1
        return out


def runs_frame(rows: Sequence[Row]) -> pd.DataFrame:
    """The tidy per-run table (see the module docstring)."""
    records = []
    for row in rows:
        record: dict[str, Any] = {
            "task_id": row["task_id"],
            "label": row["label"],
            "status": row["status"],
            "error": row.get("error"),
        }
        for path, value in (row.get("values") or {}).items():
            record[f"input:{path}"] = value
        for source, column in SCALARS:
            record[column] = row.get(source)
        for source, prefix in BY_YEAR:
            for year, value in (row.get(source) or {}).items():
                record[f"{prefix}.{year}"] = value
        for source in BY_NAME:
            for name, value in (row.get(source) or {}).items():
                record[f"{source}[{name}]"] = value
        record["binding"] = "; ".join(row.get("binding") or [])
        record["seconds"] = (row.get("timing") or {}).get("seconds")
        records.append(record)
    frame = pd.DataFrame(records)
    units = [c for c in frame.columns if c.startswith(("units_bought[", "rented_unit_years["))]
    solved = frame["status"].isin(["optimal", "feasible"]) if len(frame) else []
    if units:
        frame.loc[solved, units] = frame.loc[solved, units].fillna(0.0)
    return frame


def inputs_frame(rows: Sequence[Row]) -> pd.DataFrame:
    """The inputs each run used (one column per varied path)."""
    records = [
        {"task_id": r["task_id"], "label": r["label"], **(r.get("values") or {})} for r in rows
    ]
    return pd.DataFrame(records)


# --- tidy file ---------------------------------------------------------------------------


def write_runs_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write the per-run table: ``.parquet`` (needs pyarrow) or CSV (anything else; text a
    spreadsheet would run as a formula neutralised, planner.export.cells.csv_safe)."""
    target = Path(path)
    if target.suffix.lower() == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise InputError(
                None,
                Problem(
                    path=str(target),
                    message="writing Parquet needs pyarrow, which is not installed",
                    hint="pip install pyarrow, or name a .csv file",
                ),
            ) from None
        return write_atomically(target, lambda temp: frame.to_parquet(temp, index=False))
    return write_atomically(target, lambda temp: cells.csv_safe(frame).to_csv(temp, index=False))


# --- workbook ----------------------------------------------------------------------------


def _write_frame(ws: Worksheet, frame: pd.DataFrame, name: str) -> None:
    for j, column in enumerate(frame.columns, start=1):
        cells.write_text(ws.cell(row=1, column=j), column)
    for i, values in enumerate(frame.itertuples(index=False), start=2):
        for j, value in enumerate(values, start=1):
            if value is not None and not isinstance(value, str | bool) and pd.isna(value):
                value = None
            cell = ws.cell(row=i, column=j)
            cells.write_value(cell, value.item() if hasattr(value, "item") else value)
            if isinstance(value, float):
                cell.number_format = _number_format(str(frame.columns[j - 1]))
    if len(frame.columns):
        cells.style_header_row(ws, 1, len(frame.columns))
        last = f"{get_column_letter(len(frame.columns))}{max(len(frame) + 1, 2)}"
        cells.add_table(ws, f"A1:{last}", name)
        cells.freeze_header(ws)
        cells.autofit_columns(ws)


def _number_format(column: str) -> str:
    if "usd_per_mtok" in column:
        return cells.USD_PER_MTOK
    if "share" in column or column == "mip_gap":
        return cells.PCT
    if "usd" in column:
        return cells.USD
    return cells.DECIMAL2


def _summary(wb: Workbook, analysis: Analysis) -> None:
    ws = wb.active
    ws.title = "Summary"
    lines: list[tuple[str, Any]] = [
        ("analysis", analysis.kind),
        ("scenario", analysis.scenario),
        *((k, v) for k, v in analysis.settings.items()),
        ("runs", len(analysis.rows)),
        *((f"runs {status}", n) for status, n in sorted(analysis.counts().items())),
    ]
    lines += [("note", n) for n in analysis.notes]
    cells.write_text(ws.cell(row=1, column=1), "item")
    cells.write_text(ws.cell(row=1, column=2), "value")
    cells.style_header_row(ws, 1, 2)
    for i, (key, value) in enumerate(lines, start=2):
        cells.write_text(ws.cell(row=i, column=1), key)
        cells.write_value(ws.cell(row=i, column=2), value)
    cells.autofit_columns(ws, max_width=100)


def _chart(wb: Workbook, spec: ChartSpec) -> None:
    ws = wb[spec.sheet]
    rows, cols = ws.max_row, ws.max_column
    if rows < 2 or cols < 2:
        return
    chart: BarChart | LineChart
    if spec.kind == "lines":
        chart = LineChart()
    else:
        chart = BarChart()
        chart.type = "bar" if spec.kind == "tornado" else "col"
        if spec.kind == "tornado":
            chart.grouping, chart.overlap = "clustered", 100
        if spec.kind == "stacked":
            chart.grouping, chart.overlap = "stacked", 100
    chart.title = spec.title
    chart.y_axis.title = spec.y_title
    chart.height, chart.width = 9 + 0.4 * min(rows, 30), 22
    last = cols if spec.series == 0 else min(cols, 1 + spec.series)
    data = Reference(ws, min_col=2, max_col=last, min_row=1, max_row=rows)
    chart.add_data(data, titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, max_col=1, min_row=2, max_row=rows))
    ws.add_chart(chart, f"{get_column_letter(cols + 2)}2")


def write_workbook(analysis: Analysis, path: str | Path) -> Path:
    """Summary, every frame of ``analysis`` on its own sheet, an Inputs sheet, charts."""
    wb = Workbook()
    _summary(wb, analysis)
    frames = dict(analysis.frames)
    frames.setdefault("Inputs", inputs_frame(analysis.rows))
    for name, frame in frames.items():
        ws = cells.add_sheet(wb, name)
        _write_frame(ws, frame, name)
    for spec in analysis.charts:
        _chart(wb, spec)
    return save_workbook_atomically(wb, path)
