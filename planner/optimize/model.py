"""The fleet model, wired from its parts; reads like the table of contents of section 5."""

from __future__ import annotations

import pyomo.environ as pyo
from pyomo.common.gc_manager import PauseGC

from planner.optimize.constraints import (
    add_budget,
    add_capacity,
    add_fleet,
    add_inference,
    add_power,
    add_supply,
    add_training,
    add_vendor_share,
)
from planner.optimize.data import ModelData
from planner.optimize.objective import add_objective
from planner.optimize.variables import add_variables


def build_model(data: ModelData) -> pyo.ConcreteModel:
    """A Pyomo model of ``data``, built inside PauseGC (halves build time on big models)."""
    with PauseGC():
        m = pyo.ConcreteModel(name=data.scenario_name)
        add_variables(m, data)  # buy, kept, rent, y, x_train, x_inf, unmet slacks
        add_fleet(m, data)  # installed = alive vintages + kept existing cohorts
        add_capacity(m, data)  # assigned ≤ availability · installed (+ rented)
        add_training(m, data)  # completion in window, one cluster per run
        add_inference(m, data)  # peak demand served (colocated or prefill/decode)
        add_power(m, data)  # installed kW · PUE ≤ site cap
        add_budget(m, data)  # capex per period ≤ budget
        add_supply(m, data)  # purchases ≤ vendor allocation
        add_vendor_share(m, data)  # vendor accelerators ≤ share of fleet
        add_objective(m, data)  # NPV of cash costs − residual + penalties
    return m


def model_size(m: pyo.ConcreteModel) -> dict[str, int]:
    """Variables (and how many are integer or binary) and constraints of ``m``."""
    variables = list(m.component_data_objects(pyo.Var, active=True))
    return {
        "variables": len(variables),
        "integer_variables": sum(1 for v in variables if not v.is_continuous()),
        "constraints": sum(1 for _ in m.component_data_objects(pyo.Constraint, active=True)),
    }
