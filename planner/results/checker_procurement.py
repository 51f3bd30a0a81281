"""Independent checks of the procurement tables of a Plan (commitments, builds, leases).

Like :mod:`planner.results.checker`, reads only the plan's tables: commitments run
exactly their term from their start, blocks power on a lead time after their capex is
paid and serve their life, leases run their term; each site's capacity is what was
built and leased by then, within the grid and lease limits; and the procurement cost
categories are recomputed, to be added to the objective's present value.
"""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from planner.economics import residual_fraction
from planner.results.plan import Plan
from planner.units import KW_PER_MW

REL = 1e-5
EPS_YEARS = 1e-9


def _close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= REL * max(abs(a), abs(b), scale)


def _alive(start: float, first: float, years: float) -> bool:
    return first - EPS_YEARS <= start < first + years - EPS_YEARS


def committed_units(plan: Plan) -> dict[tuple, float]:
    """(period, hardware) → committed units running (0 without commitments)."""
    table = plan.tables.get("commitments")
    if table is None or table.empty:
        return {}
    grouped = table.groupby(["period", "hardware"])["units"].sum()
    return {k: float(v) for k, v in grouped.items()}


def check_procurement(plan: Plan) -> tuple[list[str], dict[tuple[str, str], float]]:
    """Violations in the procurement tables, and their costs by (period, category)
    (the residual credit of built blocks under the last period's ``residual``)."""
    t = plan.tables
    if "datacenter_capacity" not in t:
        return [], {}
    periods = t["periods"].set_index("period")
    start = periods["start_year"].to_dict()
    length = periods["length_years"].to_dict()
    last = periods.index[-1]
    end = start[last] + length[last]
    out: list[str] = []
    amounts: dict[tuple[str, str], float] = defaultdict(float)
    by_start: dict[tuple, list[str]] = defaultdict(list)
    for row in t["commitments"].itertuples(index=False):
        by_start[(row.hardware, row.term_years, row.start_period)].append(row.period)
        amounts[(row.period, "commitment")] += (
            row.units * row.usd_per_unit_year * length[row.period]
        )
    for (h, k, v), runs in by_start.items():
        due = [p for p in periods.index if _alive(start[p], start[v], k)]
        if sorted(runs, key=start.get) != due:
            out.append(f"{k}-year commitment of {h} from {v} runs in {runs}, its term is {due}")
    built: dict[tuple, float] = defaultdict(float)
    for row in t["datacenter_builds"].itertuples(index=False):
        on = start[row.power_on_period]
        if not _close(start[row.paid_period] + row.lead_time_years, on):
            out.append(
                f"block at {row.site} powers on {row.power_on_period}, paid {row.paid_period}"
            )
        if abs(row.blocks - round(row.blocks)) > 1e-6 and not plan.parameters["relax"]:
            out.append(f"{row.blocks} blocks built at {row.site} is not whole")
        amounts[(row.paid_period, "datacenter_capex")] += row.capex_usd
        left = residual_fraction(on, row.life_years, end)
        amounts[(last, "residual")] -= row.capex_usd * left
        for p in periods.index:
            if _alive(start[p], on, row.life_years):
                built[(p, row.site)] += row.mw_it
                amounts[(p, "datacenter_om")] += row.om_usd_per_year * length[p]
    leased: dict[tuple, float] = defaultdict(float)
    for row in t["datacenter_leases"].itertuples(index=False):
        for p in periods.index:
            if _alive(start[p], start[row.start_period], row.term_years):
                leased[(p, row.site)] += row.kw_it
                amounts[(p, "datacenter_lease")] += row.kw_it * row.usd_per_kw_year * length[p]
    for row in t["datacenter_capacity"].itertuples(index=False):
        key = (row.period, row.site)
        if not _close(row.built_mw_it, built.get(key, 0.0)):
            out.append(f"{key}: capacity table built {row.built_mw_it} MW, builds {built[key]}")
        if not _close(row.leased_kw_it, leased.get(key, 0.0), KW_PER_MW):
            out.append(f"{key}: capacity table leased {row.leased_kw_it} kW, leases {leased[key]}")
        capacity = row.given_mw + row.pue * (built[key] + leased[key] / KW_PER_MW)
        if not _close(row.capacity_mw, capacity):
            out.append(f"{key}: capacity {row.capacity_mw} MW, recomputed {capacity}")
    out += _limits(t, leased)
    power = t["power"].set_index(["period", "site"])["cap_mw"].to_dict()
    for row in t["datacenter_capacity"].itertuples(index=False):
        cap = power.get((row.period, row.site))
        if cap is not None and not _close(cap, row.capacity_mw):
            out.append(f"{row.period}: power cap at {row.site} {cap} ≠ capacity {row.capacity_mw}")
    return out, dict(amounts)


def _limits(t: dict[str, pd.DataFrame], leased: dict[tuple, float]) -> list[str]:
    """Grid MW per year, most blocks per site, most kW under lease, rental caps."""
    out = []
    capacity = t["datacenter_capacity"]
    builds = t["datacenter_builds"]
    pue = {r.site: r.pue for r in capacity.itertuples(index=False)}
    year_of = dict(zip(capacity["period"], capacity["year"], strict=False))
    powering_on: dict[tuple, float] = defaultdict(float)
    blocks: dict[str, float] = defaultdict(float)
    for row in builds.itertuples(index=False):
        powering_on[(row.site, year_of[row.power_on_period])] += row.mw_it * pue[row.site]
        blocks[row.site] += row.blocks
    for row in capacity.itertuples(index=False):
        grid = powering_on.get((row.site, row.year), 0.0)
        if pd.notna(row.grid_mw_per_year) and grid > row.grid_mw_per_year * (1 + REL) + REL:
            out.append(
                f"{row.year}: {grid:.6g} MW power on at {row.site}, grid limit "
                f"{row.grid_mw_per_year:.6g}"
            )
        if pd.notna(row.max_blocks) and blocks[row.site] > row.max_blocks + REL:
            out.append(f"{blocks[row.site]} blocks built at {row.site}, at most {row.max_blocks}")
        kw = leased.get((row.period, row.site), 0.0)
        if pd.notna(row.lease_max_kw_it) and kw > row.lease_max_kw_it * (1 + REL) + REL:
            out.append(f"{row.period}: {kw:.6g} kW leased at {row.site}, cap {row.lease_max_kw_it}")
    rented: dict[tuple, float] = defaultdict(float)
    cap: dict[tuple, float] = {}
    for name, column in (("rentals", "max_units"), ("commitments", "rental_max_units")):
        for row in t[name].itertuples(index=False):
            rented[(row.period, row.hardware)] += row.units
            if pd.notna(getattr(row, column)):
                cap[(row.period, row.hardware)] = getattr(row, column)
    for (period, h), limit in cap.items():
        if rented[(period, h)] > limit * (1 + REL) + REL:
            out.append(f"{period}: {rented[(period, h)]:.6g} {h} rented and committed, cap {limit}")
    return out


def rented_with_commitments(rentals: pd.DataFrame, plan: Plan) -> dict[tuple, float]:
    """(period, hardware) → on-demand plus committed units."""
    rented: dict[tuple, float] = defaultdict(float)
    if not rentals.empty:
        for key, units in rentals.groupby(["period", "hardware"])["units"].sum().items():
            rented[key] += float(units)
    for key, units in committed_units(plan).items():
        rented[key] += units
    return dict(rented)
