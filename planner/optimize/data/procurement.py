"""Procurement data: rental commitments and datacenter build and lease, per period.

* A commitment ``(h, k, v)`` reserves rented units of h for k years from period v at
  the price of v, paid every period of its term whether used or not.
* A build ``(s, v)`` is a number of whole blocks that power on at the start of period
  v; construction starts ``lead_time_years`` earlier (inside the horizon), when its
  capex is paid; each block then serves ``facility_life_years`` and costs its fixed O&M
  every period it is online.
* A lease ``(s, v)`` contracts kW of critical IT from period v for ``term_years``,
  take-or-pay.

Payments due after the horizon ends are left out, as the owned fleet's capex beyond
the horizon is netted by its residual value: what is paid after the horizon buys
capacity used after it. Built blocks still inside their life at the horizon end are
credited their straight-line book value, as purchases are.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TypedDict

from planner.economics import rent_usd_per_unit_year, residual_fraction
from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key
from planner.scenario.periods import Period, PeriodLabel, level_at, periods_alive, rate_at
from planner.scenario.procurement import rent_only as max_units_rent_only
from planner.scenario.schema import HardwareChoice, Site
from planner.units import KW_PER_MW

MONTHS_PER_YEAR = 12
"""Lease rents are quoted per month."""


class Commitments(TypedDict):
    commit_index: tuple[Key, ...]
    commit_usd_per_unit_year: dict[Key, float]
    commit_periods: dict[Key, tuple[PeriodLabel, ...]]
    commit_active: dict[Key, tuple[Key, ...]]


class Datacenter(TypedDict):
    dc_build_index: tuple[Key, ...]
    dc_block_mw_it: dict[str, float]
    dc_block_capex_usd: dict[str, float]
    dc_build_paid_period: dict[Key, PeriodLabel]
    dc_build_residual_fraction: dict[Key, float]
    dc_om_usd_per_block_year: dict[str, float]
    dc_lead_time_years: dict[str, int]
    dc_life_years: dict[str, int]
    dc_lease_term_years: dict[str, int]
    dc_build_online: dict[Key, tuple[Key, ...]]
    dc_build_periods: dict[Key, tuple[PeriodLabel, ...]]
    dc_grid_rows: dict[Key, tuple[tuple[Key, ...], float]]
    dc_max_blocks: dict[str, int]
    dc_lease_index: tuple[Key, ...]
    dc_lease_usd_per_kw_year: dict[str, float]
    dc_lease_periods: dict[Key, tuple[PeriodLabel, ...]]
    dc_lease_active: dict[Key, tuple[Key, ...]]
    dc_lease_max_kw: dict[Key, float]
    dc_sites: tuple[str, ...]


def given_cap_mw(site: Site, period: Period) -> float:
    """The facility MW a site has without building or leasing (0 when none is given)."""
    return 0.0 if site.power_cap_mw is None else level_at(site.power_cap_mw, period)


def rent_only(choice: HardwareChoice) -> bool:
    """True when the scenario allows no purchase of ``choice`` (see
    :func:`planner.scenario.procurement.rent_only`)."""
    return max_units_rent_only(choice.max_units_per_year)


def _alive(ctx: Context, first: int, years: float) -> tuple[PeriodLabel, ...]:
    span = periods_alive(first, years, ctx.per_year, len(ctx.periods))
    return tuple(ctx.periods[k].label for k in span)


def commitments(ctx: Context, rent_index: tuple[Key, ...]) -> Commitments:
    """Commitment keys of every offered term, from each period the rental is offered."""
    offered = set(rent_index)
    position = {p.label: p.index for p in ctx.periods}
    index: list[Key] = []
    cost: dict[Key, float] = {}
    periods: dict[Key, tuple[PeriodLabel, ...]] = {}
    active: dict[Key, list[Key]] = defaultdict(list)
    for offer in ctx.scenario.rental:
        h = offer.hardware
        for c in offer.commitments:
            if c.usd_per_accelerator_hour is None:
                continue
            for p in ctx.periods:
                if (h, p.label) not in offered:
                    continue
                key = (h, c.term_years, p.label)
                index.append(key)
                rate = rate_at(c.usd_per_accelerator_hour, p)
                cost[key] = rent_usd_per_unit_year(rate, ctx.specs[h].accelerators)
                periods[key] = _alive(ctx, position[p.label], c.term_years)
                for t in periods[key]:
                    active[(h, t)].append(key)
    return {
        "commit_index": tuple(index),
        "commit_usd_per_unit_year": cost,
        "commit_periods": periods,
        "commit_active": {k: tuple(v) for k, v in active.items()},
    }


def datacenter(ctx: Context) -> Datacenter:
    """Build and lease keys of every site with ``build`` or ``lease`` (module docstring)."""
    horizon_end = ctx.periods[-1].end
    out: Datacenter = {
        "dc_build_index": (),
        "dc_block_mw_it": {},
        "dc_block_capex_usd": {},
        "dc_build_paid_period": {},
        "dc_build_residual_fraction": {},
        "dc_om_usd_per_block_year": {},
        "dc_lead_time_years": {},
        "dc_life_years": {},
        "dc_lease_term_years": {},
        "dc_build_online": {},
        "dc_build_periods": {},
        "dc_grid_rows": {},
        "dc_max_blocks": {},
        "dc_lease_index": (),
        "dc_lease_usd_per_kw_year": {},
        "dc_lease_periods": {},
        "dc_lease_active": {},
        "dc_lease_max_kw": {},
        "dc_sites": (),
    }
    builds: list[Key] = []
    leases: list[Key] = []
    online: dict[Key, list[Key]] = defaultdict(list)
    active: dict[Key, list[Key]] = defaultdict(list)
    sites: list[str] = []
    for site in ctx.scenario.sites:
        s = site.name
        if site.builds_or_leases:
            sites.append(s)
        build, lease = site.build, site.lease
        if build is not None:
            out["dc_block_mw_it"][s] = build.block_mw_it
            out["dc_block_capex_usd"][s] = build.capex_usd_per_mw_it * build.block_mw_it
            out["dc_om_usd_per_block_year"][s] = (
                build.fixed_om_usd_per_kw_year * build.block_mw_it * KW_PER_MW
            )
            out["dc_lead_time_years"][s] = build.lead_time_years
            out["dc_life_years"][s] = build.facility_life_years
            if build.max_blocks is not None:
                out["dc_max_blocks"][s] = build.max_blocks
            lead = round(build.lead_time_years * ctx.per_year)
            per_year: dict[int, list[Key]] = defaultdict(list)
            for p in ctx.periods[lead:]:
                key = (s, p.label)
                builds.append(key)
                out["dc_build_paid_period"][key] = ctx.periods[p.index - lead].label
                out["dc_build_residual_fraction"][key] = residual_fraction(
                    p.start, build.facility_life_years, horizon_end
                )
                out["dc_build_periods"][key] = _alive(ctx, p.index, build.facility_life_years)
                for t in out["dc_build_periods"][key]:
                    online[(s, t)].append(key)
                per_year[p.year].append(key)
            if build.grid_mw_per_year is not None:
                for year, keys in per_year.items():
                    limit = level_at(build.grid_mw_per_year, _first_of(ctx, year))
                    out["dc_grid_rows"][(s, year)] = (tuple(keys), limit)
        if lease is not None:
            out["dc_lease_usd_per_kw_year"][s] = lease.usd_per_kw_month * MONTHS_PER_YEAR
            out["dc_lease_term_years"][s] = lease.term_years
            for p in ctx.periods:
                key = (s, p.label)
                leases.append(key)
                out["dc_lease_periods"][key] = _alive(ctx, p.index, lease.term_years)
                for t in out["dc_lease_periods"][key]:
                    active[(s, t)].append(key)
                if lease.max_kw_it is not None:
                    out["dc_lease_max_kw"][key] = level_at(lease.max_kw_it, p)
    out["dc_build_index"] = tuple(builds)
    out["dc_lease_index"] = tuple(leases)
    out["dc_build_online"] = {k: tuple(v) for k, v in online.items()}
    out["dc_lease_active"] = {k: tuple(v) for k, v in active.items()}
    out["dc_sites"] = tuple(sites)
    return out


def _first_of(ctx: Context, year: int) -> Period:
    return next(p for p in ctx.periods if p.year == year)
