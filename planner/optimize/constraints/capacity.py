"""Capacity: work assigned to units never exceeds the units available."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.constraints.commitments import committed_terms
from planner.optimize.data import RENTED, ModelData
from planner.optimize.linear import Row, Term, add_rows
from planner.optimize.variables import Vars


def add_capacity(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Assigned units ≤ available units: pooled per hardware, and per place for training.

    Owned units of h at site s in period t are available at α (availability, e.g.
    0.95: maintenance and spares); rented units (the virtual site ``(rented)``: no
    power cap, facility, energy or maintenance — all in the hourly price) fully.
    Inference may use h anywhere, so its capacity row pools every place::

        Σ_{r,s} x_train[r,h,s,t] + Σ_{w,role} x_inf[w,role,h,t]
            ≤ α · Σ_s installed[h,s,t] + rent[h,t]

    A training run is one cluster at one place, so where h works in more than one
    place each place also bounds its training::

        Σ_r x_train[r,h,s,t] ≤ α · installed[h,s,t]        (owned site s)
        Σ_r x_train[r,h,(rented),t] ≤ rent[h,t] + committed units of h running in t

    Together these are exactly the per-site capacity rows with inference placed
    freely: any pooled plan splits into sites by giving each site's spare units
    (after training) to inference.
    """
    x_train, x_inf = var.x_train, var.x_inf

    def available(h: str, s: str, t: object) -> list[Term]:
        return place_available(d, var, h, s, t)

    pooled: dict[tuple, Row] = {}
    for h, t in d.pool_index:
        terms = [(1.0, x_train[(r, h, s, t)]) for r, s in d.pool_train.get((h, t), ())]
        terms += [(1.0, x_inf[(w, role, h, t)]) for w, role in d.pool_inf.get((h, t), ())]
        terms += [term for s in d.places[(h, t)] for term in available(h, s, t)]
        pooled[(h, t)] = (None, terms, 0.0)
    add_rows(m, "capacity", pooled, "assigned units ≤ available units of h in t")
    per_place: dict[tuple, Row] = {}
    for h, s, t in d.site_train_index:
        terms = [(1.0, x_train[(r, h, s, t)]) for r in d.train_at_unit[(h, s, t)]]
        per_place[(h, s, t)] = (None, [*terms, *available(h, s, t)], 0.0)
    add_rows(m, "training_capacity", per_place, "training units ≤ available units at a place")


def place_available(d: ModelData, var: Vars, h: str, s: str, t: object) -> list[Term]:
    """−(units of h available at place s in t) as row terms: α · installed when owned;
    on demand plus committed rentals (constraints.commitments) at ``(rented)``."""
    if s == RENTED:
        return [(-1.0, var.rent[(h, t)]), *committed_terms(d, var, h, t)]
    return [(-d.availability, var.installed[(h, s, t)])]
