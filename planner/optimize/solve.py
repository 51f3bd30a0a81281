"""The solver boundary: the only place above the back-ends that picks a solver.

``highs`` (the default) is handed over in bulk and solved by ``highspy``
(planner.optimize.solvers.highs_direct; also the ``lp-first`` strategy).
``highs-pyomo`` runs HiGHS through Pyomo's ``pyomo.contrib.solver`` interface; the
other registered names (planner.units.SOLVER_NAMES) that interface knows
(``gurobi_direct``, ``scip_direct``, …) go through it (planner.optimize.solvers.contrib),
the rest (``cbc``, ``glpk``, ``cplex``, …) through the classic ``SolverFactory``
(planner.optimize.solvers.legacy). Any other name — a path, an executable — is refused
with an InputError before anything runs.

Every result times its steps separately: ``handoff_seconds`` (Pyomo model → the
solver's own model), ``solver_seconds`` (the solver's run) and ``load_seconds``
(solution back into Pyomo).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace

import pyomo.environ as pyo

from planner.errors import SolverError
from planner.optimize.solvers.contrib import contrib_solver, solve_contrib
from planner.optimize.solvers.handoff import highs_model
from planner.optimize.solvers.highs import new_highs
from planner.optimize.solvers.highs_direct import solve_highs
from planner.optimize.solvers.legacy import solve_legacy
from planner.optimize.solvers.types import (
    DEFAULT_SOLVER,
    PYOMO_HIGHS,
    STRATEGIES,
    Rounding,
    SolveResult,
    SolverOptions,
    SolveStatus,
    Termination,
    require_registered,
)

log = logging.getLogger("planner.optimize")

__all__ = [
    "DEFAULT_SOLVER",
    "PYOMO_HIGHS",
    "STRATEGIES",
    "Rounding",
    "SolveResult",
    "SolveStatus",
    "SolverOptions",
    "highs_model",
    "new_highs",
    "require_registered",
    "solve",
]


def solve(
    model: pyo.ConcreteModel,
    options: SolverOptions,
    *,
    duals: Sequence[str] = (),
    rounding: Rounding | None = None,
) -> SolveResult:
    """Solve ``model``; load the primal solution into it when there is one.

    ``duals`` names constraint components whose duals to return (LP models only).
    ``rounding`` is what the ``lp-first`` strategy rounds an LP solution with (HiGHS
    only; without it, ``lp-first`` solves the MILP directly).
    Raises InputError when the solver is not a registered name (planner.units.SOLVER_NAMES)
    and SolverError when it is not installed.
    """
    require_registered(options.name)
    if next(model.component_data_objects(pyo.Var, active=True), None) is None:
        # Nothing to decide (no demand, no fleet): solvers report empty models oddly.
        constant = float(pyo.value(model.cost.expr))
        return SolveResult(
            SolveStatus.OPTIMAL, Termination.EMPTY_MODEL, constant, constant, 0.0, options.name
        )
    if options.strategy == "lp-first" and options.name != DEFAULT_SOLVER:
        raise SolverError(
            f"solver strategy {options.strategy!r} needs --solver {DEFAULT_SOLVER}, "
            f"not {options.name!r}; use --strategy direct"
        )
    started = time.perf_counter()
    if options.name == DEFAULT_SOLVER:
        result = solve_highs(model, options, duals, rounding)
    else:
        contrib = contrib_solver(options.name)
        if contrib is not None:
            result = solve_contrib(contrib, model, options, duals)
        else:
            result = solve_legacy(model, options, duals)
    seconds = time.perf_counter() - started
    gap = result.gap
    log.info(
        "solved with %s in %.2f s: %s, objective %s, gap %s",
        options.name,
        seconds,
        result.status.value,
        "n/a" if result.objective is None else f"{result.objective:,.3f} USD M",
        "n/a" if gap is None else f"{gap:.4%}",
    )
    return replace(result, seconds=seconds, solver=options.name)
