"""Capex budget per period."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import USD_SCALE, ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_budget(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Purchases in a period cost at most the period's capex budget (USD millions)::

        Σ_{h,s} price[h,t] · buy[h,s,t] ≤ budget[t] · length_t

    The yearly budget is a flow: held from the last year given, and each period gets
    its share (a quarter a quarter of the year's); absent = no row. Rentals and
    running costs are opex and sit outside this budget.
    """
    buy = var.buy
    rows: dict[object, Row] = {
        t: (
            None,
            [(d.price_usd[(h, t)] / USD_SCALE, buy[(h, s, t)]) for h, s in d.period_buys[t]],
            d.budget_usd[t] / USD_SCALE,
        )
        for t in d.budget_usd
        if t in d.period_buys
    }
    add_rows(m, "budget", rows, "capex in the period ≤ its budget (USD millions)")
