"""Solvers through Pyomo's classic ``SolverFactory`` (``cbc``, ``glpk``, ``cplex``, …):
every name neither the bulk HiGHS hand-off nor ``pyomo.contrib.solver`` knows.

The gap, time limit and threads are passed under each known solver's own option
names; for others they are not passed (with a warning). No timings of the steps.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import pyomo.environ as pyo
from pyomo.opt import SolverStatus as LegacySolverStatus
from pyomo.opt import TerminationCondition as LegacyTermination

from planner.errors import SolverError
from planner.optimize.solvers.types import (
    SolveResult,
    SolverOptions,
    SolveStatus,
    Termination,
    require_registered,
)
from planner.solver_programs import solver_executable

log = logging.getLogger("planner.optimize")

# Option names of common classic solvers: (gap, time limit, threads).
_LEGACY_OPTIONS = {
    "cbc": ("ratioGap", "seconds", "threads"),
    "glpk": ("mipgap", "tmlim", None),
    "cplex": ("mipgap", "timelimit", "threads"),
    "gurobi": ("MIPGap", "TimeLimit", "Threads"),
    "scip": ("limits/gap", "limits/time", None),
}


def solve_legacy(
    model: pyo.ConcreteModel, options: SolverOptions, duals: Sequence[str]
) -> SolveResult:
    """Solve ``model`` with the classic solver ``options.name``; SolverError if it is
    unknown or not installed."""
    require_registered(options.name)
    # The program a classic solver runs, by absolute path from PATH only (never the
    # current directory); SolverError when there is no safe one.
    program = solver_executable(options.name)
    extra = {} if program is None else {"executable": str(program)}
    available = False
    if options.name in pyo.SolverFactory:
        try:
            solver = pyo.SolverFactory(options.name, **extra)
            available = bool(solver.available(exception_flag=False))
        except Exception:
            available = False
    if not available:
        raise SolverError(
            f"solver {options.name!r} is unknown or not installed; "
            "use --solver highs (the default) or install that solver"
        )
    names = _LEGACY_OPTIONS.get(options.name)
    if names is None and (options.mip_gap or options.time_limit_s or options.threads):
        log.warning(
            "do not know %s's option names: gap, time limit, threads not passed", options.name
        )
    values = (options.mip_gap, options.time_limit_s, options.threads)
    for key, value in zip(names or (None, None, None), values, strict=True):
        if key is not None and value is not None:
            solver.options[key] = value
    if duals:
        model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    try:
        results = solver.solve(model, load_solutions=False, tee=False)
    except Exception as exc:
        raise SolverError(f"{options.name} failed: {type(exc).__name__}: {exc}") from exc
    condition = results.solver.termination_condition
    found = len(results.solution) > 0
    if condition == LegacyTermination.optimal:
        status = SolveStatus.OPTIMAL
    elif condition in (LegacyTermination.infeasible, LegacyTermination.infeasibleOrUnbounded):
        status = SolveStatus.INFEASIBLE
    elif condition == LegacyTermination.unbounded:
        status = SolveStatus.UNBOUNDED
    elif results.solver.status == LegacySolverStatus.error:
        status = SolveStatus.ERROR
    else:
        status = SolveStatus.FEASIBLE if found else SolveStatus.NO_SOLUTION
    objective = bound = None
    dual_values: dict[str, dict[Any, float]] = {}
    if status.has_solution and found:
        model.solutions.load_from(results)
        active = next(model.component_data_objects(pyo.Objective, active=True))
        objective = pyo.value(active)
        bound = objective if status == SolveStatus.OPTIMAL else None
        if duals:
            dual_values = {
                name: {
                    c.index(): float(model.dual.get(c, 0.0)) for c in getattr(model, name).values()
                }
                for name in duals
                if hasattr(model, name)
            }
    elif status.has_solution:
        status = SolveStatus.NO_SOLUTION
    return SolveResult(
        status=status,
        termination=Termination.of(str(condition)),
        objective=objective,
        bound=bound,
        seconds=0.0,
        solver=options.name,
        duals=dual_values,
    )
