"""``Datacenter``: the datacenter blocks the plan builds, when it builds any.

One row per build: the site, the period its blocks power on and the period their capex
is paid (construction start, a lead time earlier), blocks and MW of critical IT, the
plan's capex, and the residual credited at the horizon end as a live formula
``capex × residual share`` (the share of the block's life left, written as a value).
The Budget sheet adds this sheet's capex to the purchases' in the period it is paid,
and the Costs sheet's residual line adds its residual to the Purchases sheet's.
"""

from __future__ import annotations

from planner.export import cells
from planner.export.sheets.book import (
    Book,
    Column,
    as_period,
    criterion,
    has_rows,
    sum_where,
    table,
    write_table,
)
from planner.results import Plan

TITLE = "Datacenter"
TABLE = "Datacenter_builds"


def has_builds(plan: Plan) -> bool:
    """The plan builds datacenter capacity (the workbook then has a Datacenter sheet)."""
    return has_rows(plan, "datacenter_builds")


def write_datacenter(book: Book, plan: Plan) -> None:
    ws = book.sheet(TITLE)
    frame = table(plan, "datacenter_builds")
    frame = frame.assign(  # as the other sheets show periods, so SUMIFS can match them
        power_on_period=frame["power_on_period"].map(as_period).astype(object),
        paid_period=frame["paid_period"].map(as_period).astype(object),
    )
    columns = [
        Column("site", "site"),
        Column("power_on_period", "powered on (period)", cells.YEAR),
        Column("paid_period", "capex paid (period)", cells.YEAR),
        Column("blocks", "blocks", cells.THOUSANDS),
        Column("mw_it", "critical IT (MW)", cells.DECIMAL2),
        Column("life_years", "life (years)", cells.GENERAL),
        Column("capex_usd", "capex (USD, the plan's)", cells.USD_SCALED),
        Column("residual_fraction", "residual share at the horizon end", cells.PCT),
        Column(
            "residual_usd",
            "residual value (USD)",
            cells.USD_SCALED,
            lambda r: f"={r.at('capex_usd')}*{r.at('residual_fraction')}",
        ),
        Column("om_usd_per_year", "O&M (USD per year)", cells.USD),
    ]
    write_table(book, ws, TABLE, frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)


def datacenter_capex_formula(book: Book, cell: str, period: object) -> str:
    """``+`` the Datacenter sheet's capex paid in the period in ``cell`` (empty text
    when the workbook has no Datacenter sheet)."""
    if TABLE not in book.tables:
        return ""
    source = book.tables[TABLE]
    paid = [(source.range("paid_period"), cell, criterion(period))]
    return "+" + sum_where(source.range("capex_usd"), paid)[1:]
