"""Decision variables (DESIGN.md section 5), each over its sparse index from ModelData.

Units: purchases, existing units kept, rentals and assignments in units (servers or
racks); unmet inference in Mtok/day at peak; unmet training in ZFLOP.

* ``buy[h,s,v]`` integer units bought in period v (continuous when ``relax``).
* ``kept[h,s,i,t]`` whole units of the existing cohort installed in year i still in
  service in t, at most the cohort size (continuous when ``relax``).
* ``rent[h,t]`` units rented through period t (continuous: billed by the hour), at
  most ``max_accelerators / accelerators``.
* ``y[r,h,s]`` binary: run r sits on hardware h at site s (``(rented)`` for cloud).
* ``x_train[r,h,s,t]``, ``x_inf[w,role,h,s,t]`` continuous units assigned (a share of
  the period's unit-time; replicas are not rounded at fleet scale).
* ``unmet_inf[w,t]``, ``unmet_train[r]`` the slacks, bounded by the demand itself.
"""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData


def add_variables(m: pyo.ConcreteModel, d: ModelData) -> None:
    """Declare every decision variable on ``m``."""
    units = pyo.NonNegativeReals if d.relax else pyo.NonNegativeIntegers
    choice = pyo.UnitInterval if d.relax else pyo.Binary
    m.buy = pyo.Var(list(d.buy_index), domain=units)
    m.kept = pyo.Var(
        list(d.existing_index),
        domain=units,
        bounds=lambda _, h, s, i, t: (0, d.existing_units[(h, s, i)]),
    )
    m.rent = pyo.Var(
        list(d.rent_index),
        domain=pyo.NonNegativeReals,
        bounds=lambda _, h, t: (0, d.rent_max_units.get((h, t))),
    )
    m.y = pyo.Var(list(d.train_choice_index), domain=choice)
    m.x_train = pyo.Var(list(d.train_index), domain=pyo.NonNegativeReals)
    m.x_inf = pyo.Var(list(d.inf_index), domain=pyo.NonNegativeReals)
    m.unmet_inf = pyo.Var(
        list(d.demand_index),
        domain=pyo.NonNegativeReals,
        bounds=lambda _, w, t: (0, d.demand_peak[(w, t, "output")]),
    )
    m.unmet_train = pyo.Var(
        list(d.runs), domain=pyo.NonNegativeReals, bounds=lambda _, r: (0, d.train_zflop[r])
    )
