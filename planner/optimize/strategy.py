"""Solver strategies (``solver.strategy`` in a scenario, ``--strategy`` on the CLI).

* ``direct`` (default): hand the MILP to the solver as built.
* ``lp-first``: solve the LP relaxation of the same model first, round it to a whole
  plan — purchases and kept existing units rounded *up*, each training run on the
  cluster that did most of its work in the LP — and hand that to the MILP as a starting
  plan. HiGHS fixes the start's integers and solves for the rest; a start that breaks a
  cap (rounding up can exceed power, budget or supply) is dropped and the MILP runs as
  usual. The LP's time counts against the time limit. HiGHS only.

On the generated benchmarks HiGHS's own heuristics find incumbents as good as the
rounded LP, so ``direct`` stays the default (see bench/README.md for the numbers).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.solve import SolveResult, SolverOptions, solve

ROUNDING_SLACK = 1e-6
"""An LP value within this of a whole number counts as that number."""


def round_up_purchases(model: pyo.ConcreteModel, data: ModelData) -> None:
    """Turn the LP relaxation loaded in ``model`` into a whole starting plan (in place)."""
    for group in (model.buy, model.kept):
        for var in group.values():
            if var.value is not None:
                var.set_value(float(math.ceil(var.value - ROUNDING_SLACK)), skip_validation=True)
    work: dict[tuple, float] = {}
    for (r, h, s, _), var in model.x_train.items():
        work[(r, h, s)] = work.get((r, h, s), 0.0) + (var.value or 0.0)
    best: dict[str, tuple[float, tuple]] = {}
    for (r, h, s), done in work.items():
        if done > best.get(r, (-1.0, ()))[0]:
            best[r] = (done, (r, h, s))
    chosen = {key for _, key in best.values()}
    for key, var in model.y.items():
        var.set_value(1.0 if key in chosen else 0.0, skip_validation=True)
    for (r, h, s, _), var in model.x_train.items():
        if (r, h, s) not in chosen:
            var.set_value(0.0, skip_validation=True)


def solve_lp_first(
    model: pyo.ConcreteModel, data: ModelData, options: SolverOptions
) -> tuple[SolveResult, SolveResult]:
    """The LP relaxation, then the MILP started from its rounding: (LP result, MILP result)."""
    started = time.perf_counter()
    lp = solve(model, replace(options, mip_gap=None), relax_integrality=True)
    if not lp.status.has_solution:
        return lp, solve(model, options)
    round_up_purchases(model, data)
    left = options.time_limit_s
    if left is not None:
        left = max(1.0, left - (time.perf_counter() - started))
    return lp, solve(model, replace(options, time_limit_s=left), warm_start=True)
