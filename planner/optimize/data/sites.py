"""Places: site running costs and power caps, rentals, and where each hardware can work."""

from __future__ import annotations

from collections import defaultdict
from typing import TypedDict

from planner.economics import (
    contract_usd_per_kw_year,
    energy_usd_per_unit_year,
    facility_usd_per_unit_year,
    power_contract_usd_per_year,
    rent_usd_per_unit_year,
    site_pue,
    site_rates,
)
from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key
from planner.optimize.data.procurement import given_cap_mw
from planner.scenario.periods import level_at, rate_at
from planner.units import RENTED


class SiteEconomics(TypedDict):
    pue: dict[str, float]
    energy_usd_per_unit_year: dict[Key, float]
    facility_usd_per_unit_year: dict[Key, float]
    power_cap_mw: dict[Key, float]
    contract_usd_per_kw_year: dict[Key, float]
    contract_usd_per_year: dict[Key, float]


class Rentals(TypedDict):
    rent_index: tuple[Key, ...]
    rent_usd_per_unit_year: dict[Key, float]
    rent_max_units: dict[Key, float]


class Places(TypedDict):
    places: dict[Key, tuple[str, ...]]


def site_economics(ctx: Context, fleet_index: tuple[Key, ...]) -> SiteEconomics:
    """Energy and facility cost per unit-year, PUE and power caps, per site and period."""
    utilisation = ctx.scenario.finance.utilisation
    rows = {s.name: s for s in ctx.scenario.sites}
    pue = {s: site_pue(ctx.scenario, rows[s]) for s in ctx.sites}
    period = {p.label: p for p in ctx.periods}
    energy: dict[Key, float] = {}
    facility: dict[Key, float] = {}
    for h, s, t in fleet_index:
        rates = site_rates(ctx.scenario, rows[s], period[t].start)
        kw = ctx.specs[h].power_kw
        energy[(h, s, t)] = energy_usd_per_unit_year(
            kw, rates.pue, utilisation, rates.electricity_usd_per_kwh
        )
        # A site that builds, leases or contracts its power pays for its capacity, not
        # for installed kW.
        per_kw = 0.0 if rows[s].pays_for_capacity else rates.facility_usd_per_kw_year
        facility[(h, s, t)] = facility_usd_per_unit_year(kw, per_kw)
    cap = {(s, p.label): given_cap_mw(rows[s], p) for s in ctx.sites for p in ctx.periods}
    rate = {
        (s, p.label): contract_usd_per_kw_year(ctx.scenario, rows[s], p.start)
        for s in ctx.sites
        if rows[s].contracted
        for p in ctx.periods
    }
    return {
        "pue": pue,
        "energy_usd_per_unit_year": energy,
        "facility_usd_per_unit_year": facility,
        "power_cap_mw": cap,
        "contract_usd_per_kw_year": rate,
        "contract_usd_per_year": {
            key: power_contract_usd_per_year(cap[key], usd) for key, usd in rate.items()
        },
    }


def rentals(ctx: Context, useful: set[str]) -> Rentals:
    """Rental offers of useful, released hardware: cost per unit-year and unit caps."""
    index: list[Key] = []
    cost: dict[Key, float] = {}
    cap: dict[Key, float] = {}
    for offer in ctx.scenario.rental:
        h = offer.hardware
        if h not in useful:
            continue
        acc = ctx.specs[h].accelerators
        for p in ctx.periods:
            if not ctx.released(h, p):
                continue
            index.append((h, p.label))
            rate = rate_at(offer.usd_per_accelerator_hour, p)
            cost[(h, p.label)] = rent_usd_per_unit_year(rate, acc)
            if offer.max_accelerators is not None:
                cap[(h, p.label)] = level_at(offer.max_accelerators, p) / acc
    return {"rent_index": tuple(index), "rent_usd_per_unit_year": cost, "rent_max_units": cap}


def places(ctx: Context, fleet_index: tuple[Key, ...], rent_index: tuple[Key, ...]) -> Places:
    """Where units of each hardware can work in each period: sites with owned units
    (in site order), then ``RENTED`` where rentals are offered."""
    found: dict[Key, list[str]] = defaultdict(list)
    order = {s: i for i, s in enumerate(ctx.sites)}
    for h, s, t in sorted(fleet_index, key=lambda k: order[k[1]]):
        found[(h, t)].append(s)
    for h, t in rent_index:
        found[(h, t)].append(RENTED)
    return {"places": {k: tuple(v) for k, v in found.items()}}
