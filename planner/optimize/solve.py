"""The solver boundary: the only module that names HiGHS or any other solver.

HiGHS runs through Pyomo's ``pyomo.contrib.solver`` interface (the older
``appsi_highs`` silently drops time limits). It is called with
``raise_exception_on_nonoptimal_result=False, load_solutions=False`` and the outcome is
read from the termination condition and the solution status, then turned into our own
:class:`SolveResult`. Any other Pyomo solver name is accepted: names the new interface
knows (``gurobi_direct``, ``scip_direct``, …) go through it; anything else
(``cbc``, ``glpk``, ``cplex``, …) through the classic ``SolverFactory``.

HiGHS gives no duals for a MILP; ask for duals only on a model built with ``relax``
(see DESIGN.md section 5). HiGHS quirks handled here: the thread pool is per process
(reset before a solve that sets ``threads``).
"""

from __future__ import annotations

import enum
import logging
import math
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyomo.environ as pyo
from pyomo.contrib.solver.common.factory import SolverFactory as ContribSolverFactory
from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition
from pyomo.opt import SolverStatus as LegacySolverStatus
from pyomo.opt import TerminationCondition as LegacyTermination

from planner.errors import SolverError

log = logging.getLogger("planner.optimize")

DEFAULT_SOLVER = "highs"


class SolveStatus(enum.Enum):
    """What a solve produced, in our words."""

    OPTIMAL = "optimal"
    """Proven optimal within the MIP gap."""
    FEASIBLE = "feasible"
    """Stopped early (time or iteration limit) with an incumbent; see the gap."""
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    NO_SOLUTION = "no solution"
    """Stopped early without any feasible plan."""
    ERROR = "error"

    @property
    def has_solution(self) -> bool:
        return self in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)


@dataclass(frozen=True)
class SolverOptions:
    """Solver, relative MIP gap, wall-clock limit (s) and threads (None: solver default)."""

    name: str = DEFAULT_SOLVER
    mip_gap: float | None = None
    time_limit_s: float | None = None
    threads: int | None = None


@dataclass(frozen=True)
class SolveResult:
    """The outcome of one solve; objective and bound in model units (USD millions)."""

    status: SolveStatus
    termination: str
    """The solver's own termination condition, for the log and the curious."""
    objective: float | None
    bound: float | None
    seconds: float
    solver: str
    duals: dict[str, dict[Any, float]] = field(default_factory=dict)
    """Constraint name → index → dual (LP solves with duals requested only)."""

    @property
    def gap(self) -> float | None:
        """Relative gap |objective − bound| / |objective| (0 when proven optimal)."""
        if self.objective is None or self.bound is None:
            return None
        if self.objective == self.bound:
            return 0.0
        return abs(self.objective - self.bound) / max(abs(self.objective), 1e-9)


def solve(
    model: pyo.ConcreteModel, options: SolverOptions, *, duals: Sequence[str] = ()
) -> SolveResult:
    """Solve ``model``; load the primal solution into it when there is one.

    ``duals`` names constraint components whose duals to return (LP models only).
    Raises SolverError when the solver is unknown or not installed.
    """
    if next(model.component_data_objects(pyo.Var, active=True), None) is None:
        # Nothing to decide (no demand, no fleet): solvers report empty models oddly.
        constant = float(pyo.value(model.cost.expr))
        return SolveResult(SolveStatus.OPTIMAL, "emptyModel", constant, constant, 0.0, options.name)
    contrib = _contrib_solver(options.name)
    started = time.perf_counter()
    if contrib is not None:
        result = _solve_contrib(contrib, model, options, duals)
    else:
        result = _solve_legacy(model, options, duals)
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
    return SolveResult(
        status=result.status,
        termination=result.termination,
        objective=result.objective,
        bound=result.bound,
        seconds=seconds,
        solver=options.name,
        duals=result.duals,
    )


def _contrib_solver(name: str) -> Any:
    try:
        return ContribSolverFactory(name)
    except Exception:  # an unknown name: fall back to the classic factory
        return None


_CONTRIB_STATUS = {
    TerminationCondition.convergenceCriteriaSatisfied: SolveStatus.OPTIMAL,
    TerminationCondition.provenInfeasible: SolveStatus.INFEASIBLE,
    TerminationCondition.locallyInfeasible: SolveStatus.INFEASIBLE,
    TerminationCondition.infeasibleOrUnbounded: SolveStatus.INFEASIBLE,
    TerminationCondition.unbounded: SolveStatus.UNBOUNDED,
}


def _solve_contrib(
    solver: Any, model: pyo.ConcreteModel, options: SolverOptions, duals: Sequence[str]
) -> SolveResult:
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
    if options.threads is not None and options.name == "highs":
        _reset_highs_scheduler()
    try:
        results = solver.solve(model, **config)
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
    return SolveResult(
        status=status,
        termination=results.termination_condition.name,
        objective=objective,
        bound=None if bound is None or not math.isfinite(bound) else bound,
        seconds=0.0,
        solver=options.name,
        duals=dual_values,
    )


def _reset_highs_scheduler() -> None:
    """HiGHS keeps one thread pool per process, sized by the first solve; asking a later
    solve for another thread count ends it with status "unknown". Resetting the pool
    first lets every solve pick its own ``threads``."""
    import highspy

    highspy.Highs.resetGlobalScheduler(True)


def _contrib_duals(model: pyo.ConcreteModel, results: Any, names: Sequence[str]) -> dict:
    rows = {
        name: list(getattr(model, name).values())
        for name in names
        if hasattr(model, name) and len(getattr(model, name)) > 0
    }
    every = [c for cons in rows.values() for c in cons]
    if not every:
        return {}
    values = results.solution_loader.get_duals(every)
    return {name: {c.index(): float(values[c]) for c in cons} for name, cons in rows.items()}


# Option names of common classic solvers: (gap, time limit, threads).
_LEGACY_OPTIONS = {
    "cbc": ("ratioGap", "seconds", "threads"),
    "glpk": ("mipgap", "tmlim", None),
    "cplex": ("mipgap", "timelimit", "threads"),
    "gurobi": ("MIPGap", "TimeLimit", "Threads"),
    "scip": ("limits/gap", "limits/time", None),
}


def _solve_legacy(
    model: pyo.ConcreteModel, options: SolverOptions, duals: Sequence[str]
) -> SolveResult:
    available = False
    # An unregistered name would be tried as an AMPL executable: only if one exists.
    if options.name in pyo.SolverFactory or shutil.which(options.name):
        try:
            solver = pyo.SolverFactory(options.name)
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
        objective = pyo.value(model.cost)
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
        termination=str(condition),
        objective=objective,
        bound=bound,
        seconds=0.0,
        solver=options.name,
        duals=dual_values,
    )
