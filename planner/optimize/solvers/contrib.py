"""Solvers through Pyomo's ``pyomo.contrib.solver`` interface.

``highs-pyomo`` runs HiGHS this way instead of the bulk hand-off; any other name that
interface knows (``gurobi_direct``, ``scip_direct``, …) too. Called with
``raise_exception_on_nonoptimal_result=False, load_solutions=False`` (the older
``appsi_highs`` silently drops time limits). Its timer gives the hand-off
(``set_instance``), the solver's run and the load separately.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyomo.environ as pyo
from pyomo.common.timing import HierarchicalTimer
from pyomo.contrib.solver.common.factory import SolverFactory as ContribSolverFactory
from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition
from pyomo.contrib.solver.common.util import NoDualsError

from planner.errors import SolverError
from planner.optimize.solvers.highs import reset_scheduler
from planner.optimize.solvers.types import (
    PYOMO_HIGHS,
    SolveResult,
    SolverOptions,
    SolveStatus,
    Termination,
    finite,
    require_registered,
)
from planner.solver_programs import EXECUTABLES

_CONTRIB_STATUS = {
    TerminationCondition.convergenceCriteriaSatisfied: SolveStatus.OPTIMAL,
    TerminationCondition.provenInfeasible: SolveStatus.INFEASIBLE,
    TerminationCondition.locallyInfeasible: SolveStatus.INFEASIBLE,
    TerminationCondition.infeasibleOrUnbounded: SolveStatus.INFEASIBLE,
    TerminationCondition.unbounded: SolveStatus.UNBOUNDED,
}


def contrib_solver(name: str) -> Any:
    """The interface's solver of that name, or None when it knows no such solver."""
    require_registered(name)
    if name in EXECUTABLES:  # runs a program: only by the absolute path legacy resolves
        return None
    try:
        return ContribSolverFactory("highs" if name == PYOMO_HIGHS else name)
    except Exception:  # an unknown name: the caller falls back to the classic factory
        return None


def solve_contrib(
    solver: Any, model: pyo.ConcreteModel, options: SolverOptions, duals: Sequence[str]
) -> SolveResult:
    """Solve ``model`` with ``solver`` (from :func:`contrib_solver`)."""
    if not solver.available():
        raise SolverError(
            f"solver {options.name!r} is not available on this machine; "
            "install it or use --solver highs"
        )
    config: dict[str, Any] = {
        "load_solutions": False,
        "raise_exception_on_nonoptimal_result": False,
    }
    if options.mip_gap is not None:
        config["rel_gap"] = options.mip_gap
    if options.time_limit_s is not None:
        config["time_limit"] = options.time_limit_s
    if options.threads is not None:
        config["threads"] = options.threads
    if options.threads is not None and options.name == PYOMO_HIGHS:
        reset_scheduler()
    timer = HierarchicalTimer()
    try:
        results = solver.solve(model, timer=timer, **config)
    except Exception as exc:  # solver crashes become our error, not a traceback
        raise SolverError(f"{options.name} failed: {type(exc).__name__}: {exc}") from exc
    found = results.solution_status in (SolutionStatus.feasible, SolutionStatus.optimal)
    status = _CONTRIB_STATUS.get(results.termination_condition)
    if status is None:
        status = SolveStatus.FEASIBLE if found else SolveStatus.NO_SOLUTION
        if results.termination_condition == TerminationCondition.error:
            status = SolveStatus.ERROR
    if status == SolveStatus.OPTIMAL and not found:
        status = SolveStatus.NO_SOLUTION
    dual_values: dict[str, dict[Any, float]] = {}
    if status.has_solution:
        results.solution_loader.load_vars()
        if duals:
            dual_values = _contrib_duals(model, results, duals)
    objective = results.incumbent_objective if status.has_solution else None
    bound = results.objective_bound
    if status == SolveStatus.OPTIMAL and bound is None:
        bound = objective
    timings = {name: timer.get_total_time(name) for name in timer.get_timers()}
    return SolveResult(
        status=status,
        termination=Termination.of(results.termination_condition.name),
        objective=objective,
        bound=finite(bound),
        seconds=0.0,
        solver=options.name,
        duals=dual_values,
        handoff_seconds=timings.get("set_instance"),
        solver_seconds=timings.get("optimize"),
        load_seconds=timings.get("load solution"),
    )


def _contrib_duals(model: pyo.ConcreteModel, results: Any, names: Sequence[str]) -> dict:
    rows = {
        name: list(getattr(model, name).values())
        for name in names
        if hasattr(model, name) and len(getattr(model, name)) > 0
    }
    every = [c for cons in rows.values() for c in cons]
    if not every:
        return {}
    try:
        values = results.solution_loader.get_duals(every)
    except NoDualsError:  # a MILP: no duals (the caller solves the LP relaxation)
        return {}
    return {name: {c.index(): float(values[c]) for c in cons} for name, cons in rows.items()}
