"""Installed fleet: purchase vintages retire at end of life; existing cohorts never return."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData


def add_fleet(m: pyo.ConcreteModel, d: ModelData) -> None:
    """Installed units by vintage, and early decommissioning of the existing fleet.

    Installed units of hardware h at site s in period t (an expression, not a variable)::

        installed[h,s,t] = Σ_{v : start_v ≤ start_t < start_v + life_h} buy[h,s,v]
                         + Σ_{i : i ≤ start_t < i + life_h} kept[h,s,i,t]

    A unit bought in period v works from v's start until ``life_h`` years later, then
    retires (no resale: its residual value is only counted for units alive at the
    horizon end, see the objective). Existing cohorts (installed in year i) count
    likewise; the optimiser may switch some off early (to free power or meet a vendor
    share) but never back on::

        kept[h,s,i,t] ≤ kept[h,s,i,t−1]      for t after the first period alive
    """
    m.installed = pyo.Expression(
        list(d.fleet_index),
        rule=lambda m, h, s, t: (
            sum(m.buy[h, s, v] for v in d.vintages_alive.get((h, s, t), ()))
            + sum(m.kept[h, s, i, t] for i in d.cohorts_alive.get((h, s, t), ()))
        ),
    )
    keys = [
        (h, s, i, t)
        for (h, s, i, t) in d.existing_index
        if t in d.previous_period and (h, s, i, d.previous_period[t]) in m.kept
    ]
    m.existing_no_return = pyo.Constraint(
        keys,
        rule=lambda m, h, s, i, t: m.kept[h, s, i, t] <= m.kept[h, s, i, d.previous_period[t]],
    )
