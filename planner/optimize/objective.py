"""Objective: net present value of the fleet's cash costs, plus penalties for unmet work.

With DF_t = (1 + wacc)^−(start_t − start of horizon) — every cash flow of a period is
booked at the period's start, so the first period is undiscounted; starts are in
fractional years, so with quarters 2027Q3 of a horizon from 2026 has DF = (1 + wacc)^−1.5
— and L_t the period length in years (running costs are per year, times L_t)::

    min  Σ_t DF_t · ( capex_t + L_t · (rent_t + energy_t + facility_t + maintenance_t) )
         − DF_end · residual
         + Σ_{w,t} DF_t · P_inf · L_t · 365.25 · unmet_inf[w,t] / p2a_w
         + Σ_r DF_{end of window r} · P_train · unmet_train[r]

* capex_t = Σ price[h,t] · buy[h,s,t], paid in the period of purchase (cash, not capital
  recovery);
* rent_t = Σ rent[h,t] · $/accelerator-hour · 8760 · accelerators;
* energy_t = Σ installed · power_kw · PUE_s · utilisation · 8760 · $/kWh(s,t);
* facility_t = Σ installed · power_kw · $/kW-year(s,t);
* maintenance_t = Σ units · fraction · (price of their vintage; catalog price for the
  existing fleet);
* residual = Σ price[h,v] · buy[h,s,v] · max(0, start_v + life_h − horizon end) / life_h:
  straight-line book value of units still inside their life when the horizon ends,
  discounted from the horizon end (DF_end). The existing fleet is sunk: no capex and no
  residual, only its running costs while kept;
* P_inf is ``penalties.unmet_inference_usd_per_mtok`` per Mtok of demand left unserved
  (the unmet share of peak capacity is charged as that share of the period's tokens:
  unmet_inf is peak Mtok/day, so /p2a gives average Mtok/day); P_train is
  ``penalties.unmet_training_usd_per_pflop`` per PFLOP not done (10⁶ PFLOP per ZFLOP).

By linearity each variable gets one present-value coefficient, and the model is built
from those, in USD millions: a purchase carries its price, its maintenance over its
life inside the horizon and minus its residual value; each installed unit-period its
energy and facility cost (whoever bought it); each kept existing unit-period its
maintenance; rentals and slacks their own cost. The per-unit rates (energy, facility,
maintenance, rent, residual fraction, discount factors) are :mod:`planner.economics`'s,
the same functions ``planner throughput`` quotes unit costs with.
"""

from __future__ import annotations

import itertools
from typing import Any

import pyomo.environ as pyo

from planner.economics import maintenance_usd_per_unit_year
from planner.optimize.data import Key, ModelData
from planner.optimize.linear import linear
from planner.optimize.variables import Vars
from planner.units import DAYS_PER_YEAR, PFLOP, USD_SCALE, ZFLOP


def present_value_coefficients(d: ModelData) -> dict[str, dict[Any, float]]:
    """Each variable's contribution to the objective per unit, present-value USD."""
    df, length = d.discount_factor, d.period_length
    # years_pv[k]: Σ DF·L over the first k periods, so a unit's life in PV-years is a
    # difference of two entries (no loop over the periods it lives in).
    years_pv = [0.0, *itertools.accumulate(df[p.label] * p.length_years for p in d.periods)]
    position = {p.label: p.index for p in d.periods}
    count = len(d.periods)
    buy: dict[Key, float] = {}
    for h, s, v in d.buy_index:
        price = d.price_usd[(h, v)]
        first = position[v]
        last = min(first + round(d.lifetime_years[h] * d.periods_per_year), count)
        buy[(h, s, v)] = (
            df[v] * price
            - d.discount_factor_end * d.residual_fraction[(h, v)] * price
            + maintenance_usd_per_unit_year(price, d.maintenance_fraction)
            * (years_pv[last] - years_pv[first])
        )
    installed = {
        (h, s, t): df[t]
        * length[t]
        * (d.energy_usd_per_unit_year[(h, s, t)] + d.facility_usd_per_unit_year[(h, s, t)])
        for h, s, t in d.fleet_index
    }
    kept = {
        (h, s, i, t): df[t]
        * length[t]
        * maintenance_usd_per_unit_year(d.existing_price_usd[(h, s, i)], d.maintenance_fraction)
        for h, s, i, t in d.existing_index
    }
    rent = {k: df[k[1]] * length[k[1]] * d.rent_usd_per_unit_year[k] for k in d.rent_index}
    unmet_inf = {
        (w, t): df[t] * length[t] * DAYS_PER_YEAR * d.penalty_usd_per_mtok / d.peak_to_average[w]
        for w, t in d.demand_index
    }
    unmet_train = {
        r: df[d.train_penalty_period[r]] * d.penalty_usd_per_pflop * ZFLOP / PFLOP for r in d.runs
    }
    return {
        "buy": buy,
        "installed": installed,
        "kept": kept,
        "rent": rent,
        "unmet_inf": unmet_inf,
        "unmet_train": unmet_train,
    }


def add_objective(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Minimise present-value cost (USD millions) as the module docstring states."""
    terms = []
    for name, by_key in present_value_coefficients(d).items():
        family = getattr(var, name)
        terms += [(c / USD_SCALE, family[key]) for key, c in by_key.items() if c]
    m.cost = pyo.Objective(expr=linear(terms), sense=pyo.minimize)
