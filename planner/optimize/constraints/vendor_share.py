"""Optional caps on each vendor's share of the owned fleet."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData

_THOUSAND = 1000.0


def add_vendor_share(m: pyo.ConcreteModel, d: ModelData) -> None:
    """A vendor's accelerators are at most a share σ_v of all owned accelerators::

        Σ_{h of v, s} a_h · installed[h,s,t] ≤ σ_v · Σ_{h,s} a_h · installed[h,s,t]

    (a_h accelerators per unit; rows in thousands of accelerators). Owned fleet only:
    the cap says what may be bought and kept; rentals are outside it.
    """
    keys = [
        (v, t)
        for v in d.vendor_share_max
        for t in d.labels
        if any(d.vendor[h] == v for h, _ in d.period_fleet.get(t, ()))
    ]

    def row(m: pyo.ConcreteModel, v: str, t: int) -> pyo.Expression:
        fleet = d.period_fleet[t]
        total = sum(d.accelerators[h] / _THOUSAND * m.installed[h, s, t] for h, s in fleet)
        mine = sum(
            d.accelerators[h] / _THOUSAND * m.installed[h, s, t]
            for h, s in fleet
            if d.vendor[h] == v
        )
        return mine <= d.vendor_share_max[v] * total

    m.vendor_share = pyo.Constraint(keys, rule=row)
