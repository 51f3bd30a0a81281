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
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from planner.analysis.charts import ChartSpec, draw_chart, fit_to_page
from planner.analysis.figures import shortfall
from planner.analysis.formats import number_format
from planner.analysis.rows import Row
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
    ("cost_band_usd", "cost_band_usd"),
    ("unmet_inference_tokens", "unmet_inference_tokens"),
    ("lost_revenue_usd", "lost_revenue_usd"),
)
"""Row field → tidy column. ``npv_cost_usd`` is the real cost (NPV of cash costs);
``npv_tco_usd`` the solver's objective (the same under ``min_cost``); penalties,
unmet demand and lost revenue (None without workload prices) stand apart."""
BY_YEAR = (("capex_by_year", "capex_usd"), ("mw_by_year", "mw"))
BY_NAME = ("usd_per_mtok", "units_bought", "capex_by_hardware", "rented_unit_years")
__all__ = ["Analysis", "ChartSpec", "inputs_frame", "runs_frame", "write_runs_table"]


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
            "follow_ups_skipped": "; ".join(row.get("follow_ups_skipped") or []),
            "shortfall": shortfall(row),
            "error": row.get("error"),
        }
        for path, value in (row.get("values") or {}).items():
            record[f"input:{path}"] = value
        for source, column in SCALARS:
            record[column] = row.get(source)
        for source, prefix in BY_YEAR:
            for year, value in (row.get(source) or {}).items():
                record[f"{prefix}.{year}"] = value
        for year, bought in (row.get("units_by_year") or {}).items():
            for name, value in bought.items():
                record[f"units_bought.{year}[{name}]"] = value
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
            if isinstance(value, float | int) and not isinstance(value, bool):
                column = str(frame.columns[j - 1])
                cell.number_format = frame.attrs.get("formats", {}).get(column) or number_format(
                    column
                )
    if len(frame.columns):
        cells.style_header_row(ws, 1, len(frame.columns))
        last = f"{get_column_letter(len(frame.columns))}{max(len(frame) + 1, 2)}"
        cells.add_table(ws, f"A1:{last}", name)
        cells.freeze_header(ws)
        cells.autofit_columns(ws)


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
        ws.cell(row=i, column=2).alignment = Alignment(wrap_text=True, vertical="top")
    cells.autofit_columns(ws, max_width=100)
    fit_to_page(ws)


def write_workbook(analysis: Analysis, path: str | Path) -> Path:
    """Summary, every frame of ``analysis`` on its own sheet, an Inputs sheet, charts."""
    wb = Workbook()
    _summary(wb, analysis)
    frames = dict(analysis.frames)
    frames.setdefault("Inputs", inputs_frame(analysis.rows))
    for name, frame in frames.items():
        ws = cells.add_sheet(wb, name)
        _write_frame(ws, frame, name)
        fit_to_page(ws)
    for spec in analysis.charts:
        draw_chart(wb, spec)
    return save_workbook_atomically(wb, path)
