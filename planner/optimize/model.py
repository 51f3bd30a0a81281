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
    """A Pyomo model of ``data``, built inside PauseGC (halves build time on big models).

    Every family computes its rows from ModelData's sparse lookups and declares them as
    flat linear expressions (planner.optimize.linear): no rule scans a collection and
    no row holds a nested expression for the hand-off to re-walk.
    """
    with PauseGC():
        m = pyo.ConcreteModel(name=data.scenario_name)
        var = add_variables(m, data)  # buy, kept, installed, rent, y, x_train, x_inf, slacks
        add_fleet(m, data, var)  # installed stock: bought − retired + kept existing cohorts
        add_capacity(m, data, var)  # assigned ≤ availability · installed + rented
        add_training(m, data, var)  # completion in window, one cluster per run
        add_inference(m, data, var)  # peak demand served (colocated or prefill/decode)
        add_power(m, data, var)  # installed kW · PUE ≤ site cap
        add_budget(m, data, var)  # capex per period ≤ budget
        add_supply(m, data, var)  # purchases ≤ vendor allocation
        add_vendor_share(m, data, var)  # vendor accelerators ≤ share of fleet
        add_objective(m, data, var)  # NPV of cash costs − residual + penalties
    return m


def model_size(m: pyo.ConcreteModel) -> dict[str, int]:
    """Variables (and how many are integer or binary) and constraints of ``m``."""
    variables = integer = 0
    whole: dict[int, bool] = {}  # domains are shared objects: ask each once
    for var in m.component_data_objects(pyo.Var, active=True):
        variables += 1
        domain = var.domain
        kind = whole.get(id(domain))
        if kind is None:
            kind = whole[id(domain)] = not var.is_continuous()
        integer += kind
    return {
        "variables": variables,
        "integer_variables": integer,
        "constraints": sum(1 for _ in m.component_data_objects(pyo.Constraint, active=True)),
    }
