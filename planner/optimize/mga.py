"""Another objective for the same model: the hook behind near-optimal alternatives (MGA).

:class:`AlternativeObjective` is plain data — a cap on the cost in USD and a weight per
accelerator of each hardware type — that the pipeline's build step applies to the
built model (``extend=`` in :func:`planner.pipeline.build_and_solve`)::

    cost ≤ cost_cap_usd / USD_SCALE
    min  Σ_{h,s,v} w_h · acc_h · buy[h,s,v] + Σ_{h,t} w_h · acc_h · rent[h,t]

(w_h the weight of hardware h, acc_h its accelerators per unit).

The model's own ``cost`` objective is deactivated, not removed, so the solution's cost
(:attr:`planner.optimize.extract.Solution.cost_usd`) is still read from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.units import USD_SCALE

ModelHook = Callable[[pyo.ConcreteModel, ModelData], None]
"""Adds rows or another objective to a built model (called before it is solved)."""


@dataclass(frozen=True)
class AlternativeObjective:
    """Cost at most ``cost_cap_usd``; minimise the weighted accelerators bought or rented.

    ``weights``: per hardware type, the weight of one accelerator (bought or rented);
    types not named weigh nothing.
    """

    cost_cap_usd: float
    weights: Mapping[str, float] = field(default_factory=dict)

    def __call__(self, model: pyo.ConcreteModel, data: ModelData) -> None:
        model.mga_cost_cap = pyo.Constraint(expr=model.cost.expr <= self.cost_cap_usd / USD_SCALE)
        model.cost.deactivate()
        model.mga_weight = pyo.Objective(expr=self._weight(model, data), sense=pyo.minimize)

    def _weight(self, model: pyo.ConcreteModel, data: ModelData) -> object:
        terms = [
            self.weights[key[0]] * data.accelerators[key[0]] * var
            for group in (model.buy, model.rent)
            for key, var in group.items()
            if self.weights.get(key[0])
        ]
        return sum(terms) if terms else 0.0
