"""Plan tables of the fleet: periods, purchases, installed units by vintage, rentals."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import pandas as pd

from planner.economics import (
    facility_mw_per_unit,
    maintenance_usd_per_unit_year,
)
from planner.optimize.data import Key, ModelData, PeriodLabel
from planner.optimize.data.deliveries import ARRIVAL_SHARE
from planner.optimize.extract import Solution
from planner.results.sales import purchased_units_held, sold_by_purchase
from planner.results.tables import WHEN, frame, vintage_label, when


def periods_table(d: ModelData) -> pd.DataFrame:
    """One row per period: its start, length and discount factor (at its start), and
    ``capex_paid_at_year``, the instant its capex payments are discounted at (its
    middle when its purchases arrive through it, else its start)."""
    return frame(
        [
            {
                "period": p.name,
                "year": p.year,
                "start_year": p.start,
                "length_years": p.length_years,
                "discount_factor": d.discount_factor[p.label],
                "capex_paid_at_year": p.start
                + (ARRIVAL_SHARE * p.length_years if p.label in d.ramp_periods else 0.0),
            }
            for p in d.periods
        ],
        [*WHEN, "start_year", "length_years", "discount_factor", "capex_paid_at_year"],
    )


def capex_prices_held(d: ModelData, sol: Solution) -> float:
    """The plan's purchases at prices held (``ModelData.price_held_usd``: catalog list
    prices with no decline), USD: what the same fleet costs if prices do not fall."""
    return float(
        sum(units * d.price_held_usd.get((h, v), 0.0) for (h, _s, v), units in sol.buy.items())
    )


def purchases_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    """Purchases by delivery ``period``: the ``order_period`` (a lead time earlier, or
    the same), capex, the part of it paid at order (``finance.capex_payment``; the rest
    is paid at delivery) and the horizon-end credit, on the units not sold early:
    ``residual_usd = (units − units_sold) × price × residual_fraction``."""
    rows = []
    position = {p.label: p.index for p in d.periods}
    sold = sold_by_purchase(sol)
    for (h, s, v), units in sorted(sol.buy.items(), key=lambda kv: (position[kv[0][2]], kv[0][0])):
        price = d.price_usd[(h, v)]
        fraction = d.residual_fraction[(h, v)]
        gone = sold.get((h, s, v), 0.0)
        order = d.order_period(h, v)
        at_order = sum(share for t, share in d.payments(h, v) if t == order and order != v)
        rows.append(
            {
                **when(d, v),
                "hardware": h,
                "site": s,
                "order_period": str(order),
                "units": units,
                "price_usd": price,
                "capex_usd": units * price,
                "capex_at_order_usd": units * price * at_order,
                "lifetime_years": d.lifetime_years[h],
                "residual_fraction": fraction,
                "units_sold": gone,
                "residual_usd": (units - gone) * price * fraction,
            }
        )
    return frame(
        rows,
        [
            *WHEN,
            "hardware",
            "site",
            "order_period",
            "units",
            "price_usd",
            "capex_usd",
            "capex_at_order_usd",
            "lifetime_years",
            "residual_fraction",
            "units_sold",
            "residual_usd",
        ],
    )


FLEET_COLUMNS = [
    *WHEN,
    "hardware",
    "site",
    "origin",
    "vintage",
    "units",
    "units_in_service",
    "accelerators",
    "power_kw_per_unit",
    "pue",
    "facility_mw",
    "energy_usd_per_unit_year",
    "facility_usd_per_unit_year",
    "maintenance_usd_per_unit_year",
    "length_years",
    "energy_usd",
    "facility_usd",
    "maintenance_usd",
]


def fleet_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    """Owned units by period and vintage (purchase period, or install year of existing),
    net of early sales.

    ``units`` are held at the period's end (what its constraints see);
    ``units_in_service`` are the average over the period, which its running costs are
    charged on. They differ only with deliveries through the period
    (planner.optimize.data.deliveries), where every cohort changes linearly inside a
    period and ``units_in_service`` is the mean of the units held at its start and
    end: a purchase arriving through v serves half of v, units sold or switched off
    at t leave through t, and a cohort leaving through its departure period (or sold
    or switched off whole) has a row there with 0 units and half of what it held.
    """
    rows = []
    held = purchased_units_held(d, sol)
    previous = {b.label: a.label for a, b in itertools.pairwise(d.periods)}

    def row(
        h: str,
        s: str,
        t: PeriodLabel,
        origin: str,
        vintage: Any,
        units: float,
        base: float,
        in_service: float | None = None,
    ):
        in_service = units if in_service is None else in_service
        length = d.period_length[t]
        energy = d.energy_usd_per_unit_year[(h, s, t)]
        facility = d.facility_usd_per_unit_year[(h, s, t)]
        maintenance = maintenance_usd_per_unit_year(base, d.maintenance_fraction)
        rows.append(
            {
                **when(d, t),
                "hardware": h,
                "site": s,
                "origin": origin,
                "vintage": vintage_label(d, vintage),
                "units": units,
                "units_in_service": in_service,
                "accelerators": units * d.accelerators[h],
                "power_kw_per_unit": d.power_kw[h],
                "pue": d.pue[s],
                "facility_mw": units * facility_mw_per_unit(d.power_kw[h], d.pue[s]),
                "energy_usd_per_unit_year": energy,
                "facility_usd_per_unit_year": facility,
                "maintenance_usd_per_unit_year": maintenance,
                "length_years": length,
                "energy_usd": in_service * energy * length,
                "facility_usd": in_service * facility * length,
                "maintenance_usd": in_service * maintenance * length,
            }
        )

    leaving: dict[Key, list[PeriodLabel]] = defaultdict(list)
    for (h, s, v), t in d.departure_period.items():
        leaving[(h, s, t)].append(v)
    position = {p.label: p.index for p in d.periods}
    keys = sorted(set(d.fleet_index) | set(leaving), key=lambda k: (position[k[2]], k[0], k[1]))
    ramp = d.deliveries_through_period
    existing = set(d.existing_index)
    for h, s, t in keys:
        before = previous.get(t)
        for v in d.vintages_alive.get((h, s, t), ()):
            units = held.get((h, s, v, t), 0.0)
            if t == v:  # 0 at its start when it arrives through v
                start = units if v not in d.ramp_periods else 0.0
            else:  # sold through t under deliveries through the period
                start = held.get((h, s, v, before), 0.0) if ramp else units
            if units or start:
                row(h, s, t, "purchased", v, units, d.price_usd[(h, v)], 0.5 * (start + units))
        for v in leaving.get((h, s, t), ()):
            units = held.get((h, s, v, previous[t]), 0.0)
            if units:  # leaving through t: half of what it held at t's start
                row(h, s, t, "purchased", v, 0.0, d.price_usd[(h, v)], 0.5 * units)
        for i in d.cohorts_alive.get((h, s, t), ()):
            units = sol.kept.get((h, s, i, t), 0.0)
            start = units  # switched off through t under deliveries through the period
            if ramp and (h, s, i, before) in existing:
                start = sol.kept.get((h, s, i, before), 0.0)
            if units or start:
                price = d.existing_price_usd[(h, s, i)]
                row(h, s, t, "existing", i, units, price, 0.5 * (start + units))
    return frame(rows, FLEET_COLUMNS)


def rentals_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    rows = [
        {
            **when(d, t),
            "hardware": h,
            "units": units,
            "accelerators": units * d.accelerators[h],
            "usd_per_unit_year": d.rent_usd_per_unit_year[(h, t)],
            "max_units": d.rent_max_units.get((h, t), float("nan")),
            "length_years": d.period_length[t],
            "cost_usd": units * d.rent_usd_per_unit_year[(h, t)] * d.period_length[t],
        }
        for (h, t), units in sol.rent.items()
    ]
    columns = [*WHEN, "hardware", "units", "accelerators", "usd_per_unit_year"]
    return frame(rows, [*columns, "max_units", "length_years", "cost_usd"])


def fleet_by_year(
    fleet: pd.DataFrame, periods: pd.DataFrame, keys: tuple[str, ...] = ("hardware",)
) -> pd.DataFrame:
    """Units owned at each year's end (in its last period), per ``keys``: long format
    with columns ``year``, the keys and ``units``. A stock, so it is read, not summed;
    ``periods`` is the plan's periods table (which period ends each year)."""
    columns = ["year", *keys, "units"]
    year_end = set(periods.groupby("year")["period"].last())
    at_end = fleet[fleet["period"].isin(year_end)]
    if at_end.empty:
        return pd.DataFrame(columns=columns)
    return at_end.groupby(["year", *keys], as_index=False)["units"].sum()[columns]


def capex_by_payment_period(purchases: pd.DataFrame) -> dict[str, float]:
    """Purchase capex by the period it is paid: the at-order part in ``order_period``,
    the rest in the delivery ``period`` (USD)."""
    out: dict[str, float] = {}
    for row in purchases.itertuples(index=False):
        at_order = float(row.capex_at_order_usd)
        out[row.order_period] = out.get(row.order_period, 0.0) + at_order
        out[row.period] = out.get(row.period, 0.0) + float(row.capex_usd) - at_order
    return out
