"""Power cap per site and period."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.economics import facility_mw_per_unit
from planner.optimize.constraints.datacenter import capacity_terms
from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_power(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Installed IT power × PUE stays within the site's facility cap (MW)::

        Σ_h installed[h,s,t] · power_kw_h · PUE_s / 1000 ≤ cap_MW[s,t]

    The cap is a level: held from the last year the scenario gives, the same in every
    period of a year. Installed units draw
    power whether busy or idle (the cap is a provisioning limit); rented capacity is
    someone else's data centre and is excluded. A site that builds or leases also has
    the facility MW built and leased by then (:mod:`constraints.datacenter`).
    """
    installed = var.installed
    rows: dict[tuple, Row] = {
        (s, t): (
            None,
            [
                (facility_mw_per_unit(d.power_kw[h], d.pue[s]), installed[(h, s, t)])
                for h in hardware
            ]
            + capacity_terms(d, var, s, t),
            d.power_cap_mw[(s, t)],
        )
        for (s, t), hardware in d.site_fleet.items()
    }
    add_rows(m, "power", rows, "installed facility MW ≤ the site's cap")


def power_contract_pv_usd(d: ModelData) -> float:
    """Present value of the take-or-pay power contracts (``power_cost: contracted``), USD::

        Σ_{s contracted, t} DF_t · L_t · cap_MW[s,t] · 1000 · contract_$/kW-year[s,t]

    The whole cap is paid whether used or not, so it is a constant of the objective
    (no variable carries it); the installed units of such a site carry no facility cost
    (``facility_usd_per_unit_year`` is 0 there: the contract replaces it).
    """
    df, length = d.discount_factor, d.period_length
    return sum(df[t] * length[t] * usd for (_, t), usd in d.contract_usd_per_year.items())
