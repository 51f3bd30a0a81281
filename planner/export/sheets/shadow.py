"""``Shadow prices`` (and ``Marginals`` when asked for): what each limit is worth.

LP-relaxation duals in business terms, and exact MILP finite differences from
``planner run --marginal``; ``value`` is present-value USD, ``value_in_year_usd``
the same in that period's money.
"""

from __future__ import annotations

from planner.export import cells
from planner.export.sheets.book import PERIOD, Book, Column, table, write_table
from planner.results import Plan


def _columns(label: str) -> list[Column]:
    return [
        Column("limit", "limit"),
        Column(label, label, cells.YEAR),
        Column("subject", "subject"),
        Column("value", "value (present-value USD per unit of the limit)", cells.USD_CENTS),
        Column("unit", "unit"),
        Column("value_in_year_usd", "value in that period's USD", cells.USD_CENTS),
        Column("method", "method"),
        Column("meaning", "meaning"),
    ]


def write_shadow_prices(book: Book, plan: Plan) -> None:
    frame = table(plan, "shadow_prices")
    ws = book.sheet("Shadow prices")
    write_table(book, ws, "Shadow_prices", frame, _columns(PERIOD))
    cells.freeze_header(ws)
    book.fit_widths(ws)
    ws.column_dimensions["H"].width = 80


def write_marginals(book: Book, plan: Plan) -> None:
    frame = table(plan, "marginals")
    ws = book.sheet("Marginals")
    columns = [Column(str(c), str(c)) for c in frame.columns]
    write_table(book, ws, "Marginals", frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)
