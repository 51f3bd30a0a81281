"""Read a solved Pyomo model back into plain dicts (the last step that touches Pyomo)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyomo.environ as pyo

from planner.economics.load_shape import lost_charged
from planner.optimize.data import ModelData
from planner.units import USD_SCALE

ZERO = 1e-7
"""Values smaller than this (in their own unit) are solver noise and reported as zero."""


@dataclass(frozen=True)
class Solution:
    """Variable values by index, zeros dropped; units as in :mod:`variables`."""

    buy: dict[Any, float]
    kept: dict[Any, float]
    rent: dict[Any, float]
    y: dict[Any, float]
    x_train: dict[Any, float]
    z_train: dict[Any, float]
    """(r, h, s, u, p) → 1 for the chosen cluster size and start of a run with a duration."""
    x_inf: dict[Any, float]
    unmet_inf: dict[Any, float]
    lost_inf: dict[Any, float]
    """(w, t) → average Mtok/day the shortfall ``unmet_inf`` loses: the load shape's
    charged ℓ of it (:func:`planner.economics.load_shape.lost_charged`), not the
    variable's value, which only an objective that weighs it holds on the curve."""
    unmet_train: dict[Any, float]
    commit: dict[Any, float]
    dc_build: dict[Any, float]
    dc_lease: dict[Any, float]
    cost_usd: float
    """The model's ``cost`` (NPV cost plus penalties, USD) at this solution, also when
    another objective was solved for (see :mod:`planner.optimize.mga`)."""
    sell: dict[Any, float] = field(default_factory=dict)
    """(h, s, v, p) → purchased units sold at the start of p (``finance.sell_early``)."""
    sell_existing: dict[Any, float] = field(default_factory=dict)
    """(h, s, i, p) → existing units sold at the start of p."""


def _values(var: pyo.Var, integer: bool) -> dict[Any, float]:
    out: dict[Any, float] = {}
    for key, v in var.items():
        value = v.value
        if value is None or abs(value) < ZERO:
            continue
        out[key] = float(round(value)) if integer else float(value)
    return out


def lost_inference(
    model: pyo.ConcreteModel, data: ModelData, unmet: dict[Any, float]
) -> dict[Any, float]:
    """ℓ of each shortfall, set on ``model.lost_inf`` too: a stage that only caps the
    weighted lost share (the cost stage of ``min_cost``, an MGA alternative) may leave
    the variable above the curve, and the cost read back must charge the curve."""
    lost: dict[Any, float] = {}
    for key, var in model.lost_inf.items():
        u = unmet.get(key, 0.0)
        value = lost_charged(u, data.demand_peak[(*key, "output")], data.peak_to_average[key[0]])
        var.set_value(value, skip_validation=True)
        if value >= ZERO:
            lost[key] = value
    return lost


def extract(model: pyo.ConcreteModel, data: ModelData) -> Solution:
    """The solution loaded in ``model``; purchases rounded to whole units unless relaxed."""
    whole = not data.relax
    unmet_inf = _values(model.unmet_inf, False)
    lost_inf = lost_inference(model, data, unmet_inf)
    return Solution(
        buy=_values(model.buy, whole),
        kept=_values(model.kept, whole),
        rent=_values(model.rent, False),
        y=_values(model.y, whole),
        x_train=_values(model.x_train, False),
        z_train=_values(model.z_train, whole),
        x_inf=_values(model.x_inf, False),
        unmet_inf=unmet_inf,
        lost_inf=lost_inf,
        unmet_train=_values(model.unmet_train, False),
        commit=_values(model.commit, False),
        dc_build=_values(model.dc_build, whole),
        dc_lease=_values(model.dc_lease, False),
        cost_usd=float(pyo.value(model.cost.expr)) * USD_SCALE,
        sell=_values(model.sell, whole),
        sell_existing=_values(model.sell_existing, whole),
    )
