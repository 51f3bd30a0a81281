"""Datacenter capacity as a decision: whole blocks built, kW leased, per site.

The site's power row (:mod:`constraints.power`) gains the capacity built and leased
(:func:`capacity_terms`); this module adds the grid interconnect limit per year, the
most blocks a site holds and the most kW under lease; the objective charges capex when
construction starts, fixed O&M while a block is online, a straight-line residual credit
at the horizon end, and the lease every period of its term (:func:`datacenter_coefficients`).
"""

from __future__ import annotations

from typing import Any

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import Row, Term, add_rows
from planner.optimize.variables import Vars
from planner.units import KW_PER_MW


def capacity_terms(d: ModelData, var: Vars, s: str, t: Any) -> list[Term]:
    """Facility MW built and leased at s in t, as −coefficients beside installed MW::

    PUE_s · (block_mw_it · Σ_{v online in t} dc_build[s,v] + Σ_{v active} dc_lease[s,v]/1000)
    """
    pue = d.pue[s]
    block = d.dc_block_mw_it.get(s, 0.0)
    terms = [(-pue * block, var.dc_build[k]) for k in d.dc_build_online.get((s, t), ())]
    terms += [(-pue / KW_PER_MW, var.dc_lease[k]) for k in d.dc_lease_active.get((s, t), ())]
    return terms


def add_datacenter(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Grid, site and lease limits::

    Σ_{v in year y} dc_build[s,v] · block_mw_it · PUE_s ≤ grid_mw_per_year[s,y]
    Σ_v dc_build[s,v] ≤ max_blocks[s]
    Σ_{v active in t} dc_lease[s,v] ≤ max_kw_it[s,t]
    """
    grid: dict[tuple, Row] = {
        (s, y): (None, [(d.dc_block_mw_it[s] * d.pue[s], var.dc_build[k]) for k in keys], limit)
        for (s, y), (keys, limit) in d.dc_grid_rows.items()
    }
    add_rows(m, "grid", grid, "facility MW powering on in a year ≤ the grid interconnect")
    blocks: dict[str, Row] = {
        s: (None, [(1.0, var.dc_build[k]) for k in d.dc_build_index if k[0] == s], cap)
        for s, cap in d.dc_max_blocks.items()
    }
    add_rows(m, "max_blocks", blocks, "blocks built ≤ the blocks the site holds")
    leased: dict[tuple, Row] = {}
    for (s, t), cap in d.dc_lease_max_kw.items():
        keys = d.dc_lease_active.get((s, t), ())
        if keys:
            leased[(s, t)] = (None, [(1.0, var.dc_lease[k]) for k in keys], cap)
    add_rows(m, "lease_cap", leased, "kW under lease ≤ the kW the site can lease")


def datacenter_coefficients(d: ModelData) -> dict[str, dict[Any, float]]:
    """Present-value USD per block built and per kW leased (module docstring)."""
    df, length = d.discount_factor, d.period_length
    build: dict[Any, float] = {}
    for key in d.dc_build_index:
        s = key[0]
        capex = d.dc_block_capex_usd[s]
        om = d.dc_om_usd_per_block_year[s]
        build[key] = (
            df[d.dc_build_paid_period[key]] * capex
            - d.discount_factor_end * d.dc_build_residual_fraction[key] * capex
            + om * sum(df[t] * length[t] for t in d.dc_build_periods[key])
        )
    lease = {
        key: d.dc_lease_usd_per_kw_year[key[0]]
        * sum(df[t] * length[t] for t in d.dc_lease_periods[key])
        for key in d.dc_lease_index
    }
    return {"dc_build": build, "dc_lease": lease}
