"""``Assignment training``, ``Assignment inference`` and ``Utilisation``: who does what.

Work done is a formula of the units assigned and their rate: ``units × FLOP/s per
unit × seconds`` for training, ``units × tokens/s per unit × 86,400`` for serving.
Units available are ``units × availability`` for owned units (rented units are all
available); utilisation is assigned over available.
"""

from __future__ import annotations

from planner.export import cells
from planner.export.sheets.book import PERIOD, Book, Column, Row, table, write_table
from planner.results import Plan
from planner.units import RENTED, SECONDS_PER_DAY


def write_assignment(book: Book, plan: Plan) -> None:
    train = table(plan, "assignment_training")
    label = PERIOD
    ws = book.sheet("Assignment training")
    columns = [
        Column(label, label, cells.YEAR),
        Column("run", "run"),
        Column("hardware", "hardware"),
        Column("site", "site"),
        Column("units", "units assigned", cells.DECIMAL1),
        Column("flops_per_s_per_unit", "rate (FLOP/s per unit, goodput)", cells.SCIENTIFIC),
        Column("seconds", "time (s)", cells.THOUSANDS),
        Column(
            "flops",
            "work done (FLOP)",
            cells.SCIENTIFIC,
            lambda r: f"={r.at('units')}*{r.at('flops_per_s_per_unit')}*{r.at('seconds')}",
        ),
    ]
    write_table(book, ws, "Assignment_training", train, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)

    inference = table(plan, "assignment_inference")
    ws = book.sheet("Assignment inference")
    columns = [
        Column(label, label, cells.YEAR),
        Column("workload", "workload"),
        Column("role", "role"),
        Column("hardware", "hardware"),
        Column("site", "site"),
        Column("units", "units assigned", cells.DECIMAL1),
        Column("tokens_per_s_per_unit", "rate (tokens/s per unit)", cells.THOUSANDS),
        Column(
            "tokens_per_day",
            "capacity (tokens/day)",
            cells.THOUSANDS,
            lambda r: f"={r.at('units')}*{r.at('tokens_per_s_per_unit')}*{SECONDS_PER_DAY:g}",
        ),
    ]
    write_table(book, ws, "Assignment_inference", inference, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)


def write_utilisation(book: Book, plan: Plan) -> None:
    frame = table(plan, "utilisation")
    label = PERIOD
    ws = book.sheet("Utilisation")

    def available(r: Row) -> str:
        if r["site"] == RENTED:
            return f"={r.at('units')}"
        return f"={r.at('units')}*availability"

    def share(r: Row) -> str:
        avail = r.at("available_units")
        return f"=IF({avail}>0,{r.at('assigned_units')}/{avail},0)"

    columns = [
        Column(label, label, cells.YEAR),
        Column("hardware", "hardware"),
        Column("site", "site"),
        Column("units", "units", cells.DECIMAL1),
        Column("available_units", "units available", cells.DECIMAL1, available),
        Column("assigned_units", "units assigned", cells.DECIMAL1),
        Column("utilisation", "utilisation (share of available)", cells.PCT, share),
    ]
    write_table(book, ws, "Utilisation", frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)
