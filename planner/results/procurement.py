"""Plan tables of procurement: rental commitments, datacenter blocks built and kW leased.

Present only when the scenario offers commitments or a site builds or leases
(:func:`procurement_tables` returns no tables otherwise), so plans without them keep
their tables exactly. Their costs enter the costs table under
:data:`PROCUREMENT_CATEGORIES`; the residual value of built blocks joins ``residual``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pandas as pd

from planner.optimize.data import ModelData
from planner.optimize.extract import Solution
from planner.results.limits import binds
from planner.results.tables import WHEN, frame, when
from planner.units import KW_PER_MW

BINDING_MW = 1e-6
"""A built or leased site's cap binds with less than this share of it left (capacity is
chosen with the fleet, so a binding cap is one the plan filled)."""
PROCUREMENT_CATEGORIES = ("commitment", "datacenter_capex", "datacenter_om", "datacenter_lease")
"""Cost categories of procurement, after the fleet's own (planner.results.costs)."""

COMMITMENT_COLUMNS = [
    *WHEN,
    "hardware",
    "term_years",
    "start_period",
    "units",
    "accelerators",
    "usd_per_unit_year",
    "length_years",
    "cost_usd",
    "rental_max_units",
]
BUILD_COLUMNS = [
    "site",
    "power_on_period",
    "paid_period",
    "blocks",
    "mw_it",
    "lead_time_years",
    "life_years",
    "capex_usd",
    "residual_fraction",
    "residual_usd",
    "om_usd_per_year",
]
LEASE_COLUMNS = ["site", "start_period", "kw_it", "usd_per_kw_year", "term_years"]
CAPACITY_COLUMNS = [
    *WHEN,
    "site",
    "given_mw",
    "built_mw_it",
    "leased_kw_it",
    "pue",
    "capacity_mw",
    "om_usd",
    "lease_usd",
    "grid_mw_per_year",
    "lease_max_kw_it",
    "max_blocks",
]


def has_procurement(d: ModelData) -> bool:
    """True when the model has commitments, builds or leases to report."""
    return bool(d.commit_index or d.dc_build_index or d.dc_lease_index)


def commitments_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    """Committed units of each commitment, one row per period it runs and is paid."""
    rows = []
    for key, units in sol.commit.items():
        h, k, v = key
        rate = d.commit_usd_per_unit_year[key]
        for t in d.commit_periods[key]:
            rows.append(
                {
                    **when(d, t),
                    "hardware": h,
                    "term_years": k,
                    "start_period": str(v),
                    "units": units,
                    "accelerators": units * d.accelerators[h],
                    "usd_per_unit_year": rate,
                    "length_years": d.period_length[t],
                    "cost_usd": units * rate * d.period_length[t],
                    "rental_max_units": d.rent_max_units.get((h, t), float("nan")),
                }
            )
    return frame(rows, COMMITMENT_COLUMNS)


def builds_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    """Blocks built: when they power on, when their capex is paid, their residual value."""
    rows = []
    for key, blocks in sol.dc_build.items():
        s, v = key
        capex = blocks * d.dc_block_capex_usd[s]
        left = d.dc_build_residual_fraction[key]
        rows.append(
            {
                "site": s,
                "power_on_period": str(v),
                "paid_period": str(d.dc_build_paid_period[key]),
                "blocks": blocks,
                "mw_it": blocks * d.dc_block_mw_it[s],
                "lead_time_years": d.dc_lead_time_years[s],
                "life_years": d.dc_life_years[s],
                "capex_usd": capex,
                "residual_fraction": left,
                "residual_usd": capex * left,
                "om_usd_per_year": blocks * d.dc_om_usd_per_block_year[s],
            }
        )
    return frame(rows, BUILD_COLUMNS)


def leases_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    """Leases signed: kW from which period, at what rent, over how many periods."""
    rows = [
        {
            "site": key[0],
            "start_period": str(key[1]),
            "kw_it": kw,
            "usd_per_kw_year": d.dc_lease_usd_per_kw_year[key[0]],
            "term_years": d.dc_lease_term_years[key[0]],
        }
        for key, kw in sol.dc_lease.items()
    ]
    return frame(rows, LEASE_COLUMNS)


def capacity_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    """Facility capacity of each building or leasing site per period, what it costs, and
    its limits (grid MW per year, most kW under lease, most blocks; NaN: none)."""
    nan = float("nan")
    grid = {key: limit for key, (_, limit) in d.dc_grid_rows.items()}
    rows = []
    for s in d.dc_sites:
        for p in d.periods:
            t = p.label
            blocks = sum(sol.dc_build.get(k, 0.0) for k in d.dc_build_online.get((s, t), ()))
            kw = sum(sol.dc_lease.get(k, 0.0) for k in d.dc_lease_active.get((s, t), ()))
            built = blocks * d.dc_block_mw_it.get(s, 0.0)
            given = d.power_cap_mw[(s, t)]
            rows.append(
                {
                    **when(d, t),
                    "site": s,
                    "given_mw": given,
                    "built_mw_it": built,
                    "leased_kw_it": kw,
                    "pue": d.pue[s],
                    "capacity_mw": given + d.pue[s] * (built + kw / KW_PER_MW),
                    "om_usd": blocks * d.dc_om_usd_per_block_year.get(s, 0.0) * p.length_years,
                    "lease_usd": kw * d.dc_lease_usd_per_kw_year.get(s, 0.0) * p.length_years,
                    "grid_mw_per_year": grid.get((s, p.year), nan),
                    "lease_max_kw_it": d.dc_lease_max_kw.get((s, t), nan),
                    "max_blocks": d.dc_max_blocks.get(s, nan),
                }
            )
    return frame(rows, CAPACITY_COLUMNS)


def procurement_tables(d: ModelData, sol: Solution) -> dict[str, pd.DataFrame]:
    """The procurement tables of the plan (none when the model has no procurement)."""
    if not has_procurement(d):
        return {}
    return {
        "commitments": commitments_table(d, sol),
        "datacenter_builds": builds_table(d, sol),
        "datacenter_leases": leases_table(d, sol),
        "datacenter_capacity": capacity_table(d, sol),
    }


def procurement_amounts(tables: dict[str, pd.DataFrame]) -> dict[tuple[str, str], float]:
    """Undiscounted USD by (period, category) of the procurement tables; the residual
    value of built blocks under ``(None, "residual")`` (booked in the last period)."""
    amounts: dict[tuple[str, str], float] = defaultdict(float)
    if not tables:
        return amounts
    for row in tables["commitments"].itertuples(index=False):
        amounts[(row.period, "commitment")] += row.cost_usd
    for row in tables["datacenter_builds"].itertuples(index=False):
        amounts[(row.paid_period, "datacenter_capex")] += row.capex_usd
        amounts[("", "residual")] -= row.residual_usd
    for row in tables["datacenter_capacity"].itertuples(index=False):
        amounts[(row.period, "datacenter_om")] += row.om_usd
        amounts[(row.period, "datacenter_lease")] += row.lease_usd
    return amounts


def with_built_capacity(
    power: pd.DataFrame,
    capacity: pd.DataFrame | None,
    duals: dict[Any, float] | None = None,
) -> pd.DataFrame:
    """The power table with each building or leasing site's cap raised to its capacity,
    and the MW of critical IT built and leased there by then (``built_mw_it``,
    ``leased_mw_it``, 0 at a site that does neither); it binds by :func:`binds` with
    the power row's LP dual (``duals`` by (site, period))."""
    if capacity is None or capacity.empty or power.empty:
        return power
    cap = {(r.period, r.site): r.capacity_mw for r in capacity.itertuples(index=False)}
    power = power.copy()
    for column, source in (("built_mw_it", "built_mw_it"), ("leased_mw_it", "leased_kw_it")):
        got = {(r.period, r.site): getattr(r, source) for r in capacity.itertuples(index=False)}
        scale = 1.0 if column == source else 1.0 / KW_PER_MW
        keys = zip(power["period"], power["site"], strict=True)
        power[column] = [got.get(k, 0.0) * scale for k in keys]
    for i, row in power.iterrows():
        key = (row["period"], row["site"])
        if key in cap:
            power.at[i, "cap_mw"] = cap[key]
            power.at[i, "slack_mw"] = cap[key] - row["used_mw"]
            room = BINDING_MW * max(cap[key], 1.0)
            dual = next(
                (v for (s, t), v in (duals or {}).items() if s == row["site"] and str(t) == key[0]),
                None,
            )
            power.at[i, "binding"] = binds(cap[key] - row["used_mw"], room, dual)
    return power
