"""The fleet model, wired from its parts; reads like the table of contents of section 5."""

from __future__ import annotations

from collections.abc import Callable

import pyomo.environ as pyo
from pyomo.common.gc_manager import PauseGC

from planner import deadline
from planner.optimize.constraints import (
    add_budget,
    add_capacity,
    add_commitments,
    add_datacenter,
    add_first_year_supply,
    add_fleet,
    add_inference,
    add_lost_tokens,
    add_period_start,
    add_power,
    add_sales,
    add_supply,
    add_training,
    add_training_durations,
    add_vendor_share,
)
from planner.optimize.data import ModelData
from planner.optimize.objective import add_objective
from planner.optimize.variables import Vars, add_variables

FAMILIES: tuple[tuple[str, Callable[[pyo.ConcreteModel, ModelData, Vars], None]], ...] = (
    ("fleet", add_fleet),  # installed stock: bought − retired + kept existing cohorts
    ("sales", add_sales),  # units sold early ≤ units held (finance.sell_early)
    ("capacity", add_capacity),  # assigned ≤ availability · installed + rented
    ("period start", add_period_start),  # the same at a delivered-through period's start
    ("training", add_training),  # completion in window, one cluster per run
    ("training durations", add_training_durations),  # fixed cluster, size and start chosen
    ("inference", add_inference),  # peak demand served (colocated or prefill/decode)
    ("lost tokens", add_lost_tokens),  # lost average demand ≥ ℓ(peak shortfall), the load shape
    ("power", add_power),  # installed kW · PUE ≤ site cap (+ built and leased)
    ("datacenter", add_datacenter),  # grid interconnect, blocks per site, lease caps
    ("commitments", add_commitments),  # on-demand + committed rentals ≤ rental cap
    ("budget", add_budget),  # capex per period ≤ budget
    ("supply", add_supply),  # purchases ≤ vendor allocation
    ("first-year supply", add_first_year_supply),  # launch-year deliveries ≤ cap
    ("vendor share", add_vendor_share),  # vendor accelerators ≤ share of fleet
    ("objective", add_objective),  # NPV of cash costs − residual + penalties
)
"""The model's parts after its variables, in build order."""


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


def build_model(data: ModelData) -> pyo.ConcreteModel:
    """A Pyomo model of ``data``, built inside PauseGC (halves build time on big models).

    Every family computes its rows from ModelData's sparse lookups and declares them as
    flat linear expressions (planner.optimize.linear): no rule scans a collection and
    no row holds a nested expression for the hand-off to re-walk. Between families
    the run's deadline is checked (planner.deadline).
    """
    with PauseGC():
        m = pyo.ConcreteModel(name=data.scenario_name)
        var = add_variables(m, data)  # buy, kept, installed, rent, y, x_train, x_inf, slacks
        for family, add in FAMILIES:
            deadline.check(f"the model build ({family} rows)")
            add(m, data, var)
    return m
