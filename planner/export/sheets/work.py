"""``Assignment training``, ``Assignment inference`` and ``Utilisation``: who does what.

Work done is a formula of the units assigned and their rate: ``units × FLOP/s per
unit × seconds`` for training, ``units × tokens/s per unit × 86,400`` for serving.
Units available are ``units × availability`` for owned units (rented units are all
available); utilisation is assigned over available.

Each inference row also carries the annualised cost of its units, which the realised
$/Mtok divides by the tokens served: owned units ``units ÷ availability`` (their share
of spares) × the place's average annualised cost per unit-year on Fleet × the period
length; rented units ``units`` × the rent per unit-year × the period length. A rented
pool with commitments running is charged as paid (its on-demand rent and commitments
over the units assigned from it, :mod:`planner.results.rented`): its rate is the
plan's value, not the on-demand formula.
"""

from __future__ import annotations

import pandas as pd

from planner.economics import rent_usd_per_unit_year, rental_usd_per_accelerator_hour
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
from planner.export.sheets.fleet import fleet_frame
from planner.results import Plan
from planner.results.rented import rented_usd_per_unit_year
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.units import RENTED, SECONDS_PER_DAY


def write_assignment(book: Book, plan: Plan, scenario: Scenario) -> None:
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

    inference = _inference_frame(plan, scenario)
    as_paid = set(inference.attrs["as_paid"])
    fleet = book.tables["Fleet"]
    ws = book.sheet("Assignment inference")

    def rate(r: Row) -> str | None:
        if r["site"] == RENTED and (r["hardware"], str(r[label])) in as_paid:
            return None  # charged as paid: the plan's rate (on-demand and committed)
        if r["site"] == RENTED:
            accelerators = book.ref(("hw", "accelerators", r["hardware"]))
            rent = book.ref(("rent_rate", r["hardware"], r[label]))
            return f"={rent}*hours_per_year*{accelerators}"
        place = [
            (fleet.range("hardware"), r.at("hardware"), False),
            (fleet.range("site"), r.at("site"), False),
            (fleet.range(label), r.at(label), criterion(r[label])),
        ]
        units = sum_where(fleet.range("units"), place)[1:]
        annual = sum_where(fleet.range("annualised_usd_per_year"), place)[1:]
        return f"=IF({units}>0,{annual}/({units}),0)"

    def cost(r: Row) -> str:
        share = "" if r["site"] == RENTED else "/availability"
        return f"={r.at('units')}{share}*{r.at('usd_per_unit_year')}*{r.at('length_years')}"

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
        Column("usd_per_unit_year", "annualised cost (USD per unit-year)", cells.USD, rate),
        Column("length_years", "period length (years)", cells.GENERAL),
        Column("cost_usd", "annualised cost of the units (USD)", cells.USD_SCALED, cost),
    ]
    write_table(book, ws, "Assignment_inference", inference, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)


def _inference_frame(plan: Plan, scenario: Scenario) -> pd.DataFrame:
    """The inference assignments plus the cost rates their cost formulas reproduce
    (as :func:`planner.results.costs.usd_per_mtok_table` charges them)."""
    frame = table(plan, "assignment_inference")
    periods = table(plan, "periods")
    length = dict(zip(periods[PERIOD], periods["length_years"].astype(float), strict=True))
    start = dict(zip(periods[PERIOD], periods["start_year"].astype(float), strict=True))
    fleet = fleet_frame(plan, scenario)
    grouped = fleet.groupby(["hardware", "site", PERIOD])[
        ["annualised_usd_per_year", "units"]
    ].sum()
    owned = (grouped["annualised_usd_per_year"] / grouped["units"]).to_dict()
    specs = hardware_specs(scenario)
    availability = float(plan.parameters["availability"])
    tables = plan.tables
    paid = rented_usd_per_unit_year(
        tables["rentals"],
        tables.get("commitments"),
        tables["assignment_training"],
        tables["assignment_inference"],
        {str(k): v for k, v in length.items()},
    )
    commitments = tables.get("commitments")
    committed = set() if commitments is None else set(_pools(commitments))
    rates, shares = [], []
    as_paid: set[tuple[str, str]] = set()
    for h, s, t in zip(frame["hardware"], frame["site"], frame[PERIOD], strict=True):
        hourly = rental_usd_per_accelerator_hour(scenario, h, start[t]) if s == RENTED else 0.0
        on_demand = rent_usd_per_unit_year(hourly, specs[h].accelerators)
        pool = (h, str(t))
        # A pool with commitments, or one rented beyond the units assigned from it,
        # costs each assigned unit more than the on-demand rate: the plan's rate.
        if s == RENTED and (pool in committed or abs(paid[pool] - on_demand) > 1e-9 * on_demand):
            as_paid.add(pool)
            rates.append(paid[pool])
            shares.append(1.0)
        elif s == RENTED:
            rates.append(on_demand)
            shares.append(1.0)
        else:
            rates.append(owned.get((h, s, t), 0.0))
            shares.append(1.0 / availability)
    rate = pd.Series(rates, index=frame.index, dtype=float)
    years = frame[PERIOD].map(length).astype(float)
    share = pd.Series(shares, index=frame.index, dtype=float)
    out = frame.assign(
        usd_per_unit_year=rate,
        length_years=years,
        cost_usd=frame["units"] * share * rate * years,
    )
    out.attrs["as_paid"] = sorted(as_paid)
    return out


def _pools(commitments: pd.DataFrame) -> list[tuple[str, str]]:
    """(hardware, period) of the rented pools with commitments running."""
    return [
        (str(h), str(t))
        for h, t in zip(commitments["hardware"], commitments["period"], strict=True)
    ]


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
