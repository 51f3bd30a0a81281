"""``Demand vs served``, ``Training runs`` and ``Cost per Mtok``: the work asked and done.

Peak demand is ``average × peak-to-average`` under ``demand_within_period: start``
(under ``peak_average`` the plan's value: the highest rate inside the period). Unmet
tokens follow the linear load-duration curve that peak-to-average implies
(:mod:`planner.economics.load_shape`): with P the peak, a the peak-to-average and u the
shortfall at peak, the curve falls by s = 2P(1 − 1/a) over a day (a ≤ 2; P·a/2 above),
and the average tokens/day lost are the planner's piecewise-linear ℓ(u) — chords of
u²/(2s) over 0 ≤ u ≤ min(s, P), then u − s/2 — times days per year × length, priced at
the penalty on Assumptions. A run's work done sums its rows on Assignment training;
unmet work is priced at the training penalty per PFLOP.
"""

from __future__ import annotations

import pandas as pd

from planner.economics.load_shape import CHORDS, lost_charged, span
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
from planner.results import Plan
from planner.units import MTOK, PFLOP


def span_formula(r: Row) -> str:
    """s of the load-duration curve: ``2P(1 − 1/a)`` for a ≤ 2, ``P·a/2`` above."""
    peak, a = r.at("peak_tokens_per_day"), r.at("peak_to_average")
    return f"=IF({a}<=2,2*{peak}*(1-1/{a}),{peak}*{a}/2)"


def lost_formula(r: Row) -> str:
    """The planner's ℓ(u): on chord k = min(K − 1, ⌊u/h⌋) of width h = min(s, P)/K,
    ``h/(2s) · ((2k + 1)·u − k(k + 1)·h)``; above min(s, P), ``u − s/2``."""
    u, peak = r.at("unmet_peak_tokens_per_day"), r.at("peak_tokens_per_day")
    s = r.at("load_span_tokens_per_day")
    end = f"MIN({s},{peak})"
    h = f"{end}/{CHORDS}"
    k = f"MIN({CHORDS - 1},INT({u}/({h})))"
    chord = f"({h})/(2*{s})*((2*{k}+1)*{u}-{k}*({k}+1)*({h}))"
    return f"=IF({u}<=0,0,IF({u}>{end},{u}-{s}/2,{chord}))"


def write_served(book: Book, plan: Plan) -> None:
    frame = table(plan, "served")
    label = PERIOD
    lost = [
        lost_charged(u, peak, a)
        for u, peak, a in zip(
            frame["unmet_peak_tokens_per_day"],
            frame["peak_tokens_per_day"],
            frame["peak_to_average"],
            strict=True,
        )
    ]
    frame = frame.assign(
        load_span_tokens_per_day=[
            span(peak, a)
            for peak, a in zip(frame["peak_tokens_per_day"], frame["peak_to_average"], strict=True)
        ],
        unmet_tokens_per_day=lost,
        served_tokens_per_day=frame["tokens_per_day"] - pd.Series(lost, index=frame.index),
    )
    ws = book.sheet("Demand vs served")

    def unmet_share(r: Row) -> str | None:
        peak = r.at("peak_tokens_per_day")
        return f"=IF({peak}>0,{r.at('unmet_peak_tokens_per_day')}/{peak},0)"

    # Under peak_average the peak is the highest rate inside the period, not the
    # average × peak-to-average: it is the plan's value then.
    by_average = not plan.parameters.get("deliveries_through_period")

    def peak(r: Row) -> str | None:
        if not by_average:
            return None
        return f"={r.at('tokens_per_day')}*{r.at('peak_to_average')}"

    columns = [
        Column(label, label, cells.YEAR),
        Column("workload", "workload"),
        Column("tokens_per_day", "demand (output tokens/day, average)", cells.THOUSANDS),
        Column("peak_to_average", "peak / average", cells.DECIMAL2),
        Column(
            "peak_tokens_per_day",
            "peak demand (tokens/day)",
            cells.THOUSANDS,
            peak,
        ),
        Column("capacity_tokens_per_day", "capacity at peak (tokens/day)", cells.THOUSANDS),
        Column(
            "prefill_tokens_per_output_token",
            "uncached input per output token",
            cells.DECIMAL2,
        ),
        Column("prefill_capacity_tokens_per_day", "prefill capacity (tokens/day)", cells.THOUSANDS),
        Column("unmet_peak_tokens_per_day", "unmet at peak (tokens/day)", cells.THOUSANDS),
        Column("unmet_share", "unmet (share of peak)", cells.PCT, unmet_share),
        Column(
            "load_span_tokens_per_day",
            "load-duration curve's fall over a day (tokens/day)",
            cells.THOUSANDS,
            span_formula,
        ),
        Column(
            "unmet_tokens_per_day",
            "unmet (output tokens/day, average, linear load-duration curve)",
            cells.THOUSANDS,
            lost_formula,
        ),
        Column(
            "served_tokens_per_day",
            "served (output tokens/day, average)",
            cells.THOUSANDS,
            lambda r: f"={r.at('tokens_per_day')}-{r.at('unmet_tokens_per_day')}",
        ),
        Column(
            "served_tokens",
            "served in the period (tokens)",
            cells.SCIENTIFIC,
            lambda r: f"={r.at('served_tokens_per_day')}*days_per_year*{r.at('length_years')}",
        ),
        Column("length_years", "period length (years)", cells.GENERAL),
        Column(
            "unmet_tokens",
            "unmet in the period (tokens)",
            cells.SCIENTIFIC,
            lambda r: f"={r.at('unmet_tokens_per_day')}*days_per_year*{r.at('length_years')}",
        ),
        Column(
            "penalty_usd",
            "penalty (USD)",
            cells.USD_SCALED,
            lambda r: f"={r.at('unmet_tokens')}/{MTOK:.0f}*penalty_usd_per_mtok",
        ),
    ]
    write_table(book, ws, "Demand_vs_served", frame, columns)
    cells.freeze_header(ws, 1, 2)
    book.fit_widths(ws)


def write_training(book: Book, plan: Plan) -> None:
    frame = table(plan, "training")
    work = book.tables["Assignment_training"]
    ws = book.sheet("Training runs")

    def done(r: Row) -> str:
        return sum_where(work.range("flops"), [(work.range("run"), r.at("run"), False)])

    def completion(r: Row) -> str:
        need = r.at("flops_required")
        return f"=IF({need}>0,1-{r.at('unmet_flops')}/{need},1)"

    columns = [
        Column("run", "run"),
        Column("window_start", "window from (year)", cells.YEAR),
        Column("window_end", "window to (year)", cells.YEAR),
        Column("flops_required", "work required (FLOP)", cells.SCIENTIFIC),
        Column("flops_done", "work done (FLOP)", cells.SCIENTIFIC, done),
        Column("unmet_flops", "work left undone (FLOP)", cells.SCIENTIFIC),
        Column("completion", "completion (share)", cells.PCT, completion),
        Column("hardware", "hardware"),
        Column("site", "site"),
        Column("first_period", "first period worked", cells.YEAR),
        Column("finish_period", "last period worked", cells.YEAR),
        Column("start_date", "start (date)"),
        Column("end_date", "end (date)"),
        Column("cluster_accelerators", "cluster (accelerators, most used)", cells.THOUSANDS),
        Column("accelerator_hours", "accelerator-hours", cells.THOUSANDS),
        Column("penalty_period", "penalty booked in (period)", cells.YEAR),
        Column(
            "penalty_usd",
            "penalty (USD)",
            cells.USD_SCALED,
            lambda r: f"={r.at('unmet_flops')}/{PFLOP:.0f}*penalty_usd_per_pflop",
        ),
    ]
    write_table(book, ws, "Training_runs", frame, columns)
    cells.freeze_header(ws, 1, 1)
    book.fit_widths(ws)


def write_usd_per_mtok(book: Book, plan: Plan) -> None:
    """Realised $/Mtok: the annualised cost of the units serving a workload (summed from
    Assignment inference) over the tokens it served (from Demand vs served)."""
    frame: pd.DataFrame = table(plan, "usd_per_mtok")
    label = PERIOD
    ws = book.sheet("Cost per Mtok")
    served = book.tables["Demand_vs_served"]
    work = book.tables["Assignment_inference"]

    def where(source, r: Row) -> list[tuple[str, str, bool]]:
        return [
            (source.range("workload"), r.at("workload"), False),
            (source.range(label), r.at(label), criterion(r[label])),
        ]

    def served_mtok(r: Row) -> str:
        return sum_where(served.range("served_tokens"), where(served, r)) + f"/{MTOK:.0f}"

    def cost(r: Row) -> str:
        return sum_where(work.range("cost_usd"), where(work, r))

    def ratio(r: Row) -> str | None:
        if not r["served_mtok"] > 0:
            return None
        return f"={r.at('cost_usd')}/{r.at('served_mtok')}"

    columns = [
        Column(label, label, cells.YEAR),
        Column("workload", "workload"),
        Column("served_mtok", "served (million output tokens)", cells.THOUSANDS, served_mtok),
        Column("cost_usd", "annualised cost of its units (USD)", cells.USD_SCALED, cost),
        Column("usd_per_mtok", "realised cost (USD per Mtok)", cells.USD_PER_MTOK, ratio),
    ]
    written = write_table(
        book,
        ws,
        "Cost_per_Mtok",
        frame,
        columns,
        remember=lambda r: ("usd_per_mtok", r["workload"], r[label]),
    )
    book.note(
        ws,
        written.last_row + 2,
        "Units assigned to a workload (÷ availability for spares) carry capital recovery of "
        "their price at the WACC over their lifetime plus energy, facility and maintenance; "
        "rented units what the plan pays for them: on-demand rent and commitments (at the "
        "committed rate, paid whether used or not) shared over the units assigned from the "
        "pool (Assignment inference). Divided by the tokens actually served.",
    )
    cells.freeze_header(ws)
    book.fit_widths(ws)
