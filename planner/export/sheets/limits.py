"""``Power``, ``Budget``, ``Supply`` and ``Vendor share``: use of each limit, and slack.

Power used sums the Fleet sheet's facility MW at the site in the period; the cap is
the Assumptions cell, plus ``PUE × (MW of IT built + leased)`` at a site that builds or
leases (the plan's capacity, :func:`planner.results.procurement.with_built_capacity`).
Capex sums the Purchases sheet in the period, plus the Datacenter sheet's build capex
paid then. A limit *binds*
when less than one more unit (or 0.1 % of the limit) of room is left.
"""

from __future__ import annotations

import math

from planner.export import cells
from planner.export.sheets.book import (
    PERIOD,
    Book,
    Column,
    Row,
    criterion,
    sum_where,
    table,
    write_table,
)
from planner.export.sheets.costs import capex_paid_formula
from planner.export.sheets.datacenter import datacenter_capex_formula
from planner.results import Plan


def _by_period(book: Book, table: str, values: str, r: Row, label: str, extra=()) -> str:
    t = book.tables[table]
    conditions = [(t.range(label), r.at(label), criterion(r[label]))]
    conditions += [(t.range(k), r.at(k), False) for k in extra]
    return sum_where(t.range(values), conditions)


def write_power(book: Book, plan: Plan) -> None:
    frame = table(plan, "power")
    label = PERIOD
    ws = book.sheet("Power")

    built = "built_mw_it" in frame

    def cap(r: Row) -> str | None:
        key = ("power_cap", r["site"], r[label])
        if key not in book.refs:
            return None
        if not built:
            return f"={book.ref(key)}"
        pue = book.ref(("pue", r["site"], r[label]))
        return f"={book.ref(key)}+{pue}*({r.at('built_mw_it')}+{r.at('leased_mw_it')})"

    columns = [
        Column(label, label, cells.YEAR),
        Column("site", "site"),
        Column(
            "used_mw",
            "facility power used (MW)",
            cells.DECIMAL2,
            lambda r: _by_period(book, "Fleet", "facility_mw", r, label, ("site",)),
        ),
        Column("cap_mw", "cap (MW)", cells.DECIMAL2, cap),
        Column(
            "slack_mw",
            "room left (MW)",
            cells.DECIMAL2,
            lambda r: f"={r.at('cap_mw')}-{r.at('used_mw')}",
        ),
        Column("binding", "binding"),
    ]
    if built:  # a site that builds or leases: its capacity beside the load
        columns[2:2] = [
            Column("built_mw_it", "built (MW of IT)", cells.DECIMAL2),
            Column("leased_mw_it", "leased (MW of IT)", cells.DECIMAL2),
        ]
    write_table(book, ws, "Power", frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)


def write_budget(book: Book, plan: Plan) -> None:
    frame = table(plan, "budget")
    label = PERIOD
    periods = table(plan, "periods")
    length = dict(zip(periods[PERIOD], periods["length_years"], strict=True))
    ws = book.sheet("Budget")

    def limit(r: Row) -> str | None:
        key = ("budget", "", r[label])
        if key not in book.refs or not math.isfinite(r["budget_usd"]):
            return None
        years = length[r[label]]
        return f"={book.ref(key)}" if years == 1 else f"={book.ref(key)}*{years!r}"

    def slack(r: Row) -> str | None:
        if not math.isfinite(r["budget_usd"]):
            return None
        return f"={r.at('budget_usd')}-{r.at('capex_usd')}"

    def capex(r: Row) -> str:
        paid = capex_paid_formula(book, r.at(label), r[label])
        return paid + datacenter_capex_formula(book, r.at(label), r[label])

    columns = [
        Column(label, label, cells.YEAR),
        Column("capex_usd", "capex (USD)", cells.USD, capex),
        Column("budget_usd", "budget (USD; blank = unlimited)", cells.USD, limit),
        Column("slack_usd", "room left (USD)", cells.USD, slack),
        Column("binding", "binding"),
    ]
    write_table(book, ws, "Budget", frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)


def write_supply(book: Book, plan: Plan) -> None:
    frame = table(plan, "supply")
    label = PERIOD
    ws = book.sheet("Supply")
    columns = [
        Column(label, label, cells.YEAR),
        Column("hardware", "hardware"),
        Column(
            "units_bought",
            "units bought",
            cells.THOUSANDS,
            lambda r: _by_period(book, "Purchases", "units", r, label, ("hardware",)),
        ),
        Column("max_units", "supply cap (units)", cells.THOUSANDS),
        Column("binding", "binding"),
    ]
    write_table(book, ws, "Supply", frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)

    frame = table(plan, "vendor_share")
    ws = book.sheet("Vendor share")

    def share(r: Row) -> str:
        total = r.at("fleet_accelerators")
        return f"=IF({total}>0,{r.at('accelerators')}/{total},0)"

    columns = [
        Column(label, label, cells.YEAR),
        Column("vendor", "vendor"),
        Column("accelerators", "vendor's accelerators", cells.THOUSANDS),
        Column("fleet_accelerators", "fleet accelerators", cells.THOUSANDS),
        Column("share", "share of owned accelerators", cells.PCT, share),
        Column("max_share", "cap (share)", cells.PCT),
        Column("binding", "binding"),
    ]
    write_table(book, ws, "Vendor_share", frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)
