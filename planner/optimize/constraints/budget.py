"""Capex budget per period."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import USD_SCALE, ModelData


def add_budget(m: pyo.ConcreteModel, d: ModelData) -> None:
    """Purchases in a period cost at most the period's capex budget (USD millions)::

        Σ_{h,s} price[h,t] · buy[h,s,t] ≤ budget[t] · length_t

    The yearly budget holds from the last year given; absent = no row. Rentals and
    running costs are opex and sit outside this budget.
    """
    keys = [t for t in d.budget_usd if t in d.period_buys]
    m.budget = pyo.Constraint(
        keys,
        rule=lambda m, t: (
            sum(d.price_usd[(h, t)] / USD_SCALE * m.buy[h, s, t] for h, s in d.period_buys[t])
            <= d.budget_usd[t] / USD_SCALE
        ),
    )
