"""Supply caps per hardware and period, and launch-year caps (availability dates are in
the index sets)."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_supply(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Units bought across all sites stay within the vendor's allocation::

        Σ_s buy[h,s,t] ≤ max_units_per_year[h,t] · length_t

    The yearly cap is a flow like the budget: held from the last year given, each
    period getting its share.

    Release years need no row: ``buy[h,s,t]`` does not exist before h is released.
    """
    buy = var.buy
    rows: dict[tuple, Row] = {
        (h, t): (None, [(1.0, buy[(h, s, t)]) for s in d.supply_terms[(h, t)]], cap)
        for (h, t), cap in d.supply_max_units.items()
    }
    add_rows(m, "supply", rows, "units bought in the period ≤ the vendor's allocation")


def add_first_year_supply(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """A launch allocation: units of h delivered in the 12 months from its
    ``available_from`` A, all sites, stay within ``first_year_max_units``::

        Σ_{s, v: A ≤ start_v < A + 1} buy[h,s,v] ≤ first_year_max_units[h]

    One row per hardware with the cap (none without it).
    """
    if not d.first_year_rows:  # no component at all: the model is as it was
        return
    buy = var.buy
    rows: dict[str, Row] = {}
    for h, (periods, cap) in d.first_year_rows.items():
        terms = [(1.0, buy[(h, s, t)]) for t in periods for s in d.supply_terms[(h, t)]]
        rows[h] = (None, terms, cap)
    add_rows(m, "first_year_supply", rows, "units delivered in the launch year ≤ the cap")
