"""Capacity: work assigned to units never exceeds the units available."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import RENTED, ModelData


def add_capacity(m: pyo.ConcreteModel, d: ModelData) -> None:
    """Assigned units ≤ available units, for owned and for rented capacity.

    Owned units of h at site s in period t (availability α, e.g. 0.95, covers
    maintenance and spares)::

        Σ_r x_train[r,h,s,t] + Σ_{w,role} x_inf[w,role,h,s,t] ≤ α · installed[h,s,t]

    Rented capacity sits at the virtual site ``(rented)``: no power cap, no facility,
    energy or maintenance (all in the hourly price), fully available::

        Σ_r x_train[r,h,(rented),t] + Σ_{w,role} x_inf[w,role,h,(rented),t] ≤ rent[h,t]
    """

    def assigned(m: pyo.ConcreteModel, h: str, s: str, t: int) -> pyo.Expression:
        return sum(m.x_train[r, h, s, t] for r in d.train_at_unit.get((h, s, t), ())) + sum(
            m.x_inf[w, role, h, s, t] for w, role in d.inf_at_unit.get((h, s, t), ())
        )

    owned = [k for k in d.fleet_index if k in d.train_at_unit or k in d.inf_at_unit]
    m.capacity = pyo.Constraint(
        owned, rule=lambda m, h, s, t: assigned(m, h, s, t) <= d.availability * m.installed[h, s, t]
    )
    rented = [
        (h, t)
        for h, t in d.rent_index
        if (h, RENTED, t) in d.train_at_unit or (h, RENTED, t) in d.inf_at_unit
    ]
    m.rented_capacity = pyo.Constraint(
        rented, rule=lambda m, h, t: assigned(m, h, RENTED, t) <= m.rent[h, t]
    )
