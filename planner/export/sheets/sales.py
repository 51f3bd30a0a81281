"""``Sales``: units sold early (``finance.sell_early``) and their proceeds, when any were.

Proceeds are live formulas: ``units × price × resale share`` (the share read off the
resale curve at the unit's age, written as a value) and their present value
``proceeds × (1 + wacc)^−(period start − horizon_start)``. The Costs sheet's
``resale_proceeds`` line sums this sheet's proceeds by period, as a credit.
"""

from __future__ import annotations

from planner.export import cells
from planner.export.sheets.book import PERIOD, Book, Column, has_rows, table, write_table
from planner.results import Plan

TITLE = "Sales"


def has_sales(plan: Plan) -> bool:
    """The plan sold something early (the workbook then has a Sales sheet)."""
    return has_rows(plan, "sales")


def write_sales(book: Book, plan: Plan) -> None:
    ws = book.sheet(TITLE)
    frame = table(plan, "sales")
    periods = table(plan, "periods")
    start = dict(zip(periods[PERIOD], periods["start_year"].astype(float), strict=True))
    frame = frame.assign(start_year=frame[PERIOD].map(start))
    columns = [
        Column(PERIOD, "period sold (at its start)", cells.YEAR),
        Column("start_year", "period start (year)", cells.GENERAL),
        Column("hardware", "hardware"),
        Column("site", "site"),
        Column("origin", "origin (purchased or existing)"),
        Column("vintage", "vintage (purchase period or install year)", cells.YEAR),
        Column("units", "units sold", cells.THOUSANDS),
        Column("price_usd", "price (USD per unit)", cells.USD),
        Column("lifetime_years", "lifetime (years)", cells.GENERAL),
        Column("age_years", "age at sale (years)", cells.GENERAL),
        Column("resale_share", "resale share of price (curve at age)", cells.PCT),
        Column(
            "proceeds_usd",
            "proceeds (USD)",
            cells.USD_SCALED,
            lambda r: f"={r.at('units')}*{r.at('price_usd')}*{r.at('resale_share')}",
        ),
        Column(
            "discount_factor",
            "discount factor",
            cells.FACTOR,
            lambda r: f"=(1+wacc)^-({r.at('start_year')}-horizon_start)",
        ),
        Column(
            "proceeds_pv_usd",
            "proceeds, present value (USD)",
            cells.USD_SCALED,
            lambda r: f"={r.at('proceeds_usd')}*{r.at('discount_factor')}",
        ),
    ]
    write_table(book, ws, TITLE, frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)
