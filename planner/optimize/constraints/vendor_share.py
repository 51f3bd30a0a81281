"""Optional caps on each vendor's share of the owned fleet."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars

_THOUSAND = 1000.0


def add_vendor_share(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """A vendor's accelerators are at most a share σ_v of all owned accelerators::

        Σ_{h of v, s} a_h · installed[h,s,t] ≤ σ_v · Σ_{h,s} a_h · installed[h,s,t]

    (a_h accelerators per unit; rows in thousands of accelerators). Owned fleet only:
    the cap says what may be bought and kept; rentals are outside it.
    """
    installed = var.installed
    rows: dict[tuple, Row] = {}
    for v, share in d.vendor_share_max.items():
        for t in d.labels:
            fleet = d.period_fleet.get(t, ())
            if not any(d.vendor[h] == v for h, _ in fleet):
                continue
            # a_h/1000 · (1[vendor of h is v] − σ_v) per installed unit: mine − σ · total.
            terms = []
            for h, s in fleet:
                weight = d.accelerators[h] / _THOUSAND * ((d.vendor[h] == v) - share)
                terms.append((weight, installed[(h, s, t)]))
            rows[(v, t)] = (None, terms, 0.0)
    add_rows(m, "vendor_share", rows, "a vendor's accelerators ≤ its share of the fleet")
