"""``objective: max_profit``: serve demand only where it pays at the workload prices.

The revenue of a plan is a constant (all demand served, at its prices) minus the
revenue its slacks forgo, so maximising revenue − cost is minimising::

    NPV cost + Σ_{w,t priced} DF_t · L_t · 365.25 · rev[w,t] · lost_inf[w,t]
             + Σ_{r valued} DF_{end of window r} · value_r / F_r · unmet_train[r]

(``rev`` USD per output Mtok, :mod:`planner.economics.revenue`; ``lost_inf`` the
average Mtok/day the peak shortfall loses under the load shape, convex in it, see
:mod:`planner.optimize.constraints.lost_tokens`; ``F_r`` the run's ZFLOP). That is the
min_cost objective with each workload's own price in place of the penalty.

Work without a price (a workload without one, a run's rollouts, a run without
``value_usd`` or with ``must_finish``) is must-serve: it is served first, as much as
the limits allow (the priority-weighted unserved share of that work alone, as in
``min_cost``'s service stage), and held while profit is maximised. A scenario whose
work all has a price solves once, for profit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import linear
from planner.optimize.objective import (
    SERVICE_ABSOLUTE,
    SERVICE_TOLERANCE,
    _terms,
    npv_cost,
    present_value_coefficients,
    service_coefficients,
)
from planner.units import DAYS_PER_YEAR, USD_SCALE


def lost_revenue_coefficients(d: ModelData) -> dict[str, dict[Any, float]]:
    """Each slack's revenue forgone per unit, present-value USD (priced work only)."""
    df, length = d.discount_factor, d.period_length
    lost_inf = {
        (w, t): df[t] * length[t] * DAYS_PER_YEAR * d.revenue_usd_per_mtok[(w, t)]
        for w, t in d.demand_index
        if (w, t) in d.revenue_usd_per_mtok and w not in d.must_serve_workloads
    }
    unmet_train = {
        r: df[d.train_penalty_period[r]] * value / d.train_zflop[r]
        for r, value in d.run_value_usd.items()
        if r not in d.must_finish_runs and d.train_zflop.get(r, 0.0) > 0
    }
    return {"lost_inf": lost_inf, "unmet_train": unmet_train}


def must_serve_coefficients(d: ModelData) -> dict[str, dict[Any, float]]:
    """The service stage's weights (:func:`service_coefficients`) of the must-serve work."""
    weights = service_coefficients(d)
    return {
        "lost_inf": {
            k: c for k, c in weights["lost_inf"].items() if k[0] in d.must_serve_workloads
        },
        "unmet_train": {k: c for k, c in weights["unmet_train"].items() if k in d.must_finish_runs},
    }


def has_must_serve(d: ModelData) -> bool:
    """Whether some work is served whatever it costs (then max_profit solves twice)."""
    return any(must_serve_coefficients(d).values())


def must_serve_scale(d: ModelData) -> float:
    """The must-serve share's multiplier for the solver: its smallest weight becomes 1."""
    weights = [c for by_key in must_serve_coefficients(d).values() for c in by_key.values() if c]
    return 1.0 / min(weights) if weights else 1.0


def must_serve_unserved(model: pyo.ConcreteModel, d: ModelData) -> Any:
    """The must-serve work's priority-weighted unserved share, times the scale."""
    scale = must_serve_scale(d)
    coefficients = {
        name: {k: c * scale for k, c in by_key.items()}
        for name, by_key in must_serve_coefficients(d).items()
    }
    return linear(_terms(d, model, coefficients))


def cost_and_lost_revenue(model: pyo.ConcreteModel, d: ModelData) -> Any:
    """NPV cost + PV of revenue forgone, USD millions: max_profit's objective."""
    lost = {
        name: {k: c / USD_SCALE for k, c in by_key.items()}
        for name, by_key in lost_revenue_coefficients(d).items()
    }
    return npv_cost(model, d) + linear(_terms(d, model, lost))


@dataclass(frozen=True)
class MustServeFirst:
    """Stage 1 of ``max_profit``: minimise the must-serve work's unserved share."""

    def __call__(self, model: pyo.ConcreteModel, data: ModelData) -> None:
        model.cost.deactivate()
        model.service = pyo.Objective(expr=must_serve_unserved(model, data), sense=pyo.minimize)


@dataclass(frozen=True)
class ProfitWithServiceHeld:
    """Stage 2 of ``max_profit``: minimise NPV cost + lost revenue, with the must-serve
    share held at stage 1's value (``unserved``, scaled by :func:`must_serve_scale`; the
    slacks of must-serve work fixed to 0 when it served everything). ``unserved`` None:
    there is no must-serve work, nothing is held."""

    unserved: float | None = None

    @property
    def cap(self) -> float:
        return (self.unserved or 0.0) * (1 + SERVICE_TOLERANCE) + SERVICE_ABSOLUTE

    def __call__(self, model: pyo.ConcreteModel, data: ModelData) -> None:
        if self.unserved is not None and self.unserved <= SERVICE_ABSOLUTE:
            weights = must_serve_coefficients(data)
            for name, by_key in weights.items():
                family = getattr(model, name)
                for key in by_key:
                    family[key].setub(0.0)
            for key in weights["lost_inf"]:  # and the shortfall that would lose them
                model.unmet_inf[key].setub(0.0)
        elif self.unserved is not None:
            model.service_held = pyo.Constraint(expr=must_serve_unserved(model, data) <= self.cap)
        model.cost.deactivate()
        model.profit = pyo.Objective(expr=cost_and_lost_revenue(model, data), sense=pyo.minimize)


def objective_headline(d: ModelData, service: Any) -> dict[str, Any]:
    """The headline's words on a ``max_profit`` objective (nothing for ``min_cost``):
    what ``objective_usd`` is, and the must-serve stage's share (``service`` is its
    :class:`planner.optimize.SolveResult`; None when there is no must-serve work)."""
    if d.objective != "max_profit":
        return {}
    share = None
    if has_must_serve(d) and service.objective is not None:
        share = service.objective / must_serve_scale(d)
    return {
        "objective": "max_profit",
        "objective_usd_is": (
            "NPV cost + PV of revenue forgone on unserved priced work (penalties excluded); "
            "must-serve work held at its maximum"
        ),
        "weighted_unserved_share": share,
        "must_serve_work": has_must_serve(d),
    }


@dataclass(frozen=True)
class PricedAtRevenue:
    """The LP relaxation's objective under ``max_profit`` (for its shadow prices): NPV
    cost + revenue forgone on priced work + the penalties on must-serve work only
    (which has no price). A build hook: deactivates ``cost``."""

    def __call__(self, model: pyo.ConcreteModel, data: ModelData) -> None:
        weights = must_serve_coefficients(data)
        penalty = {
            name: {k: c / USD_SCALE for k, c in by_key.items() if k in weights[name]}
            for name, by_key in present_value_coefficients(data).items()
            if name in weights
        }
        model.cost.deactivate()
        expr = cost_and_lost_revenue(model, data) + linear(_terms(data, model, penalty))
        model.priced = pyo.Objective(expr=expr, sense=pyo.minimize)
