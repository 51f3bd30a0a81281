"""Solver strategies (``solver.strategy`` in a scenario, ``--strategy`` on the CLI).

* ``auto`` (default): ``lp-first`` for models of ``AUTO_LP_FIRST_VARIABLES`` variables
  or more solved by HiGHS, ``direct`` otherwise.
* ``direct``: hand the MILP to the solver as built.
* ``lp-first`` (HiGHS only): solve the LP relaxation of the same model first (interior
  point, then crossover), round it to a whole plan with :func:`round_plan`, and solve
  the LP left with the integers fixed, warm from the relaxation's basis. The
  relaxation's optimum is a lower bound on the MILP's, so if the rounded plan is within
  the MIP gap of it, that plan is the answer, with a proven gap; otherwise the MILP
  starts from the rounded plan, and the relaxation's bound tightens the MILP's. A
  relaxation proven infeasible ends the solve at once (``infeasible``: no whole plan
  exists either). All of it counts against the time limit.

Fleet plans buy hundreds or thousands of units per hardware, site and period, so
rounding costs little: on the generated L benchmark the rounded plan is within 0.4% of
the bound, found in a fraction of the MILP's time, and on XL (monthly periods) it is
the only way to a plan within the time limit, because the MILP's root LP alone takes
longer by dual simplex. On small scenarios, where a unit matters, the MILP decides.
See bench/README.md for the numbers.
"""

from __future__ import annotations

import math

import pyomo.environ as pyo

from planner.optimize.roles import Rounding, families

ROUNDING_SLACK = 1e-6
"""An LP value within this of a whole number counts as that number."""
AUTO_LP_FIRST_VARIABLES = 20_000
"""``auto`` rounds the LP first from this many variables (the L benchmark has ~39,000;
M ~4,700, where the MILP is as fast and a unit matters more)."""


def resolve(strategy: str, solver: str, variables: int, relax: bool) -> str:
    """The strategy to run: ``auto`` decided by the model's size; ``direct`` for LPs."""
    if relax:
        return "direct"
    if strategy == "auto":
        large = solver == "highs" and variables >= AUTO_LP_FIRST_VARIABLES
        return "lp-first" if large else "direct"
    return strategy


def round_plan(model: pyo.ConcreteModel, up: bool) -> None:
    """Turn the LP solution loaded in ``model`` into whole decisions (in place), each
    family as its rounding rule in :data:`planner.optimize.roles.ROLES` says.

    Purchases, kept existing units and datacenter blocks go up to the next whole unit
    (``up``; enough capacity, unless a power, budget or supply cap then breaks) or down
    (always within the caps; the shortfall is rented or left unmet); early sales always
    go down (a whole number of units held is then still at least the units sold). Each
    training run goes on the cluster (hardware and place) that did most of its work in
    the LP; the others get none of it; a run with a duration takes the (size, start) its
    chosen cluster's LP liked most.
    """
    for name in families(rounding=Rounding.DOWN):
        for var in getattr(model, name).values():
            if var.value is not None:
                var.set_value(
                    float(max(math.floor(var.value + ROUNDING_SLACK), 0)), skip_validation=True
                )
    for name in families(rounding=Rounding.UP_OR_DOWN):
        for var in getattr(model, name).values():
            if var.value is not None:
                whole = (
                    math.ceil(var.value - ROUNDING_SLACK)
                    if up
                    else math.floor(var.value + ROUNDING_SLACK)
                )
                var.set_value(float(max(whole, 0)), skip_validation=True)
    assert families(rounding=Rounding.MOST_WORK) == ("y",)  # the rules below are theirs
    assert families(rounding=Rounding.LARGEST_VALUE) == ("z_train",)
    work: dict[tuple, float] = {}
    for (r, h, s, _), var in model.x_train.items():
        work[(r, h, s)] = work.get((r, h, s), 0.0) + (var.value or 0.0)
    for key in model.y:
        work.setdefault(key, 0.0)
    best: dict[str, tuple[float, tuple]] = {}
    for (r, h, s), done in work.items():
        if done > best.get(r, (-1.0, ()))[0]:
            best[r] = (done, (r, h, s))
    chosen = {key for _, key in best.values()}
    for key, var in model.y.items():
        var.set_value(1.0 if key in chosen else 0.0, skip_validation=True)
    _round_menu_choices(model, chosen)


def _round_menu_choices(model: pyo.ConcreteModel, chosen: set[tuple]) -> None:
    """A run with a duration on a chosen cluster takes the (size, start) the LP liked
    most; its units per period follow from the fixed-cluster rows."""
    best: dict[tuple, tuple[float, tuple]] = {}
    for key, var in model.z_train.items():
        if key[:3] in chosen and (var.value or 0.0) > best.get(key[:3], (-1.0, ()))[0]:
            best[key[:3]] = (var.value or 0.0, key)
    picked = {key for _, key in best.values()}
    for key, var in model.z_train.items():
        var.set_value(1.0 if key in picked else 0.0, skip_validation=True)
