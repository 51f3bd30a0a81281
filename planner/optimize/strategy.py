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
from collections.abc import Iterable

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


def whole(value: float, up: bool) -> float:
    """An LP value made whole: up to the next unit (``up``), else down; never below 0."""
    rounded = math.ceil(value - ROUNDING_SLACK) if up else math.floor(value + ROUNDING_SLACK)
    return float(max(rounded, 0))


def chosen_clusters(work: Iterable[tuple[tuple, float]], choices: Iterable[tuple]) -> set[tuple]:
    """Each run's (run, hardware, place) that did most of its work in the LP: ``work``
    is ((r, h, s, t), units) of the training assignments, ``choices`` the (r, h, s)
    keys; the first in that order wins a tie."""
    done: dict[tuple, float] = {}
    for (r, h, s, _), units in work:
        done[(r, h, s)] = done.get((r, h, s), 0.0) + units
    for key in choices:
        done.setdefault(key, 0.0)
    best: dict[str, tuple[float, tuple]] = {}
    for (r, h, s), units in done.items():
        if units > best.get(r, (-1.0, ()))[0]:
            best[r] = (units, (r, h, s))
    return {key for _, key in best.values()}


def chosen_menu(menu: Iterable[tuple[tuple, float]], chosen: set[tuple]) -> set[tuple]:
    """For a run with a duration on a chosen cluster, the (size, start) choice the LP
    liked most: ``menu`` is ((r, h, s, u, p), value); the first wins a tie."""
    best: dict[tuple, tuple[float, tuple]] = {}
    for key, value in menu:
        if key[:3] in chosen and value > best.get(key[:3], (-1.0, ()))[0]:
            best[key[:3]] = (value, key)
    return {key for _, key in best.values()}


def round_plan(model: pyo.ConcreteModel, up: bool) -> None:
    """Turn the LP solution loaded in ``model`` into whole decisions (in place), each
    family as its rounding rule in :data:`planner.optimize.roles.ROLES` says.

    Purchases, kept existing units and datacenter blocks go up to the next whole unit
    (``up``; enough capacity, unless a power, budget or supply cap then breaks) or down
    (always within the caps; the shortfall is rented or left unmet); early sales always
    go down (a whole number of units held is then still at least the units sold). Each
    training run goes on the cluster (hardware and place) that did most of its work in
    the LP (:func:`chosen_clusters`); the others get none of it; a run with a duration
    takes the (size, start) its chosen cluster's LP liked most (:func:`chosen_menu`).
    The array model applies the same rules to a column vector
    (:func:`planner.optimize.row_problem.round_columns`).
    """
    for name, direction in (
        *((f, False) for f in families(rounding=Rounding.DOWN)),
        *((f, up) for f in families(rounding=Rounding.UP_OR_DOWN)),
    ):
        for var in getattr(model, name).values():
            if var.value is not None:
                var.set_value(whole(var.value, direction), skip_validation=True)
    assert families(rounding=Rounding.MOST_WORK) == ("y",)  # the rules below are theirs
    assert families(rounding=Rounding.LARGEST_VALUE) == ("z_train",)
    work = ((key, var.value or 0.0) for key, var in model.x_train.items())
    chosen = chosen_clusters(work, model.y.keys())
    for key, var in model.y.items():
        var.set_value(1.0 if key in chosen else 0.0, skip_validation=True)
    picked = chosen_menu(((k, v.value or 0.0) for k, v in model.z_train.items()), chosen)
    for key, var in model.z_train.items():
        var.set_value(1.0 if key in picked else 0.0, skip_validation=True)
