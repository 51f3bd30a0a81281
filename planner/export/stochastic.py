"""The workbook of ``planner stochastic``: the two-stage plan's figures, each future's
cost (with a chart of cost by future) and the first-stage decisions.

Its inputs are plain tables (:mod:`planner.stochastic.values` makes them), so this
module reads nothing of the solve. Saved atomically, never over an input.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from openpyxl.chart import BarChart, Reference
from openpyxl.utils import get_column_letter

from planner.export import cells
from planner.export.atomic import check_workbook_target, save_workbook_atomically
from planner.export.charts import ChartSpec, style_chart
from planner.export.sheets.book import Book, Column, write_table

SHEETS = ("Two-stage plan", "Futures", "First stage")

COST_BY_FUTURE = ChartSpec(
    "cost_by_future",
    "NPV cost by future: here and now, wait and see, mean-value first stage",
    "USD",
    "clustered",
    "cost_by_future.png",
)

FIGURES: tuple[tuple[str, str, str, str | None], ...] = (
    ("expected_npv_cost_usd", "expected NPV cost", "USD, probability-weighted", cells.USD),
    (
        "expected_weighted_unserved_share",
        "expected weighted unserved share",
        "share of demand, by service_measure",
        cells.PCT_PRECISE,
    ),
    ("cvar_npv_cost_usd", "CVaR of NPV cost", "USD, mean of the worst 1 − alpha", cells.USD),
    ("cvar_alpha", "CVaR level alpha", "probability", cells.GENERAL),
    ("risk_weight", "risk weight", "lambda in E + lambda · CVaR", cells.GENERAL),
    ("worst_npv_cost_usd", "worst future's NPV cost", "USD", cells.USD),
    ("wait_and_see_npv_cost_usd", "wait and see: expected NPV cost", "USD", cells.USD),
    ("evpi_usd", "EVPI", "USD: what a perfect forecast would save", cells.USD),
    ("evpi_resolution_usd", "EVPI resolution", "USD: the plans' expected MIP gaps", cells.USD),
    (
        "evpi_unserved_share",
        "EVPI: change in expected unserved share",
        "here and now minus wait and see: a plan serving less is not cheaper",
        cells.PCT_PRECISE,
    ),
    ("mean_value_npv_cost_usd", "mean-value first stage: expected NPV cost", "USD", cells.USD),
    ("vss_usd", "VSS", "USD: what planning for the mean would lose", cells.USD),
    ("vss_resolution_usd", "VSS resolution", "USD: the plans' expected MIP gaps", cells.USD),
    (
        "vss_unserved_share",
        "VSS: change in expected unserved share",
        "mean-value first stage minus here and now",
        cells.PCT_PRECISE,
    ),
    (
        "vss_decisions_dropped",
        "mean-value first-stage decisions a future could not take",
        "most in any future: left out there (a part not yet available)",
        cells.GENERAL,
    ),
)
"""Headline figures in the order shown: key, label, unit, format."""


def write_stochastic_workbook(
    headline: Mapping[str, Any],
    futures: pd.DataFrame,
    first_stage: pd.DataFrame,
    path: str | Path,
) -> Path:
    """The workbook of a two-stage plan (module docstring), saved atomically at ``path``."""
    check_workbook_target(path)
    book = Book.new(SHEETS)
    ws = book.sheet("Two-stage plan")
    book.title_row(ws, 1, f"Two-stage plan of {headline.get('scenario')}")
    book.note(ws, 2, str(headline.get("convention", "")))
    first = headline.get("equivalent") or {}
    hedging = headline.get("hedging") or {}
    solved = (
        f"progressive hedging, bound {hedging.get('bound_usd')} USD, gap to the plans "
        f"{hedging.get('gap_to_plans')}"
        if hedging
        else f"deterministic equivalent, {first.get('status')}, gap on cost {first.get('cost_gap')}"
    )
    book.note(
        ws,
        3,
        f"{headline.get('futures')} futures; first stage through "
        f"{headline.get('first_stage_through')}: shared by every future; solved by {solved}",
    )
    row = 5
    for key, label, unit, fmt in FIGURES:
        if headline.get(key) is None:
            continue
        book.text(ws, row, 1, label)
        book.value(ws, row, 2, float(headline[key]), fmt)
        book.text(ws, row, 3, unit, track=False)
        row += 1
    book.fit_widths(ws)
    _futures(book, futures)
    sheet = book.sheet("First stage")
    columns = [Column("decision", "decision"), Column("key", "key"), Column("value", "value")]
    write_table(book, sheet, "First_stage", first_stage, columns)
    book.fit_widths(sheet)
    book.wb.active = 0
    return save_workbook_atomically(book.wb, path)


def _futures(book: Book, futures: pd.DataFrame) -> None:
    ws = book.sheet("Futures")
    money = [c for c in futures.columns if str(c).endswith("_usd")]
    columns = [
        Column(
            str(c),
            str(c),
            cells.USD if c in money else (cells.GENERAL if c != "future" else None),
        )
        for c in futures.columns
    ]
    written = write_table(book, ws, "Futures", futures, columns)
    chart = BarChart()
    chart.type = "col"
    chart.grouping = "clustered"
    cost_columns = [
        i
        for i, c in enumerate(futures.columns, start=1)
        if c in ("npv_cost_usd", "wait_and_see_npv_cost_usd", "mean_value_npv_cost_usd")
    ]
    for col in cost_columns:
        data = Reference(ws, min_col=col, min_row=1, max_row=written.last_row)
        chart.add_data(data, titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, min_row=2, max_row=written.last_row))
    style_chart(chart, COST_BY_FUTURE, "future")
    chart.width, chart.height = 18, 9
    ws.add_chart(chart, f"{get_column_letter(len(futures.columns) + 2)}2")
    book.fit_widths(ws)
