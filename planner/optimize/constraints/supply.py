"""Supply caps per hardware and period (release years are in the index sets)."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData


def add_supply(m: pyo.ConcreteModel, d: ModelData) -> None:
    """Units bought across all sites stay within the vendor's allocation::

        Σ_s buy[h,s,t] ≤ max_units_per_year[h,t] · length_t

    Release years need no row: ``buy[h,s,t]`` does not exist before h is released.
    """
    m.supply = pyo.Constraint(
        list(d.supply_max_units),
        rule=lambda m, h, t: (
            sum(m.buy[h, s, t] for s in d.supply_terms[(h, t)]) <= d.supply_max_units[(h, t)]
        ),
    )
