"""HiGHS itself: the one module that knows highspy's quirks and status names.

* Its banner is printed once per process on the first ``Highs()``: swallowed
  (:func:`new_highs`).
* It keeps one thread pool per process, sized by the first solve; a later solve asking
  for another thread count ends with status "unknown" unless the pool is reset first
  (:func:`reset_scheduler`, also needed by Pyomo's own HiGHS interface).
* Its model statuses map onto our :class:`SolveStatus` and onto the termination names
  Pyomo's interfaces use (``maxTimeLimit``, …), so every back-end reports alike.
* HiGHS gives no duals for a MILP; the ``lp-first`` strategy hands back its LP
  relaxation's (planner.optimize.solvers.highs_direct).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyomo.environ as pyo

from planner.errors import SolverError
from planner.optimize.solvers.types import SolverOptions, SolveStatus, Termination

_TERMINATION = {
    "kOptimal": Termination.OPTIMAL,
    "kInfeasible": Termination.INFEASIBLE,
    "kUnboundedOrInfeasible": Termination.INFEASIBLE_OR_UNBOUNDED,
    "kUnbounded": Termination.UNBOUNDED,
    "kObjectiveBound": Termination.OBJECTIVE_LIMIT,
    "kObjectiveTarget": Termination.OBJECTIVE_LIMIT,
    "kTimeLimit": Termination.TIME_LIMIT,
    "kIterationLimit": Termination.ITERATION_LIMIT,
    "kSolutionLimit": Termination.ITERATION_LIMIT,
    "kInterrupt": Termination.INTERRUPTED,
    "kHighsInterrupt": Termination.INTERRUPTED,
    "kMemoryLimit": Termination.ERROR,
    "kLoadError": Termination.ERROR,
    "kModelError": Termination.ERROR,
    "kPresolveError": Termination.ERROR,
    "kSolveError": Termination.ERROR,
    "kPostsolveError": Termination.ERROR,
}
"""HiGHS model status → our termination."""
_HIGHS_STATUS = {
    "kOptimal": SolveStatus.OPTIMAL,
    "kInfeasible": SolveStatus.INFEASIBLE,
    "kUnboundedOrInfeasible": SolveStatus.INFEASIBLE,
    "kUnbounded": SolveStatus.UNBOUNDED,
}


@dataclass
class HighsModel:
    """A Pyomo model as HiGHS arrays: which variable is which column, which row which."""

    highs: Any
    columns: list[Any]
    rows: dict[int, int]
    """id(ConstraintData) → row."""
    integers: np.ndarray
    """Columns that are integer (or binary)."""
    nonzeros: int
    lower: np.ndarray
    """Column lower bounds as handed over."""
    upper: np.ndarray


def highspy() -> Any:
    """The highspy module (imported on first use: it is only needed to solve)."""
    import highspy as module

    return module


def new_highs() -> Any:
    """A silent ``highspy.Highs`` (its banner, printed once per process, is swallowed)."""
    from pyomo.common.tee import capture_output

    with capture_output(capture_fd=True):
        highs = highspy().Highs()
    highs.setOptionValue("output_flag", False)
    return highs


def reset_scheduler() -> None:
    """HiGHS keeps one thread pool per process, sized by the first solve; asking a later
    solve for another thread count ends it with status "unknown". Resetting the pool
    first lets every solve pick its own ``threads``."""
    highspy().Highs.resetGlobalScheduler(True)


def set_integrality(bridge: HighsModel, integer: bool) -> None:
    """Make the model's integer columns integer again, or continuous (its relaxation)."""
    module = highspy()
    kind = module.HighsVarType.kInteger if integer else module.HighsVarType.kContinuous
    count = len(bridge.integers)
    kinds = np.full(count, int(kind), dtype=np.uint8)
    bridge.highs.changeColsIntegrality(count, bridge.integers, kinds)


def run(bridge: HighsModel, options: SolverOptions, deadline: float | None) -> None:
    """One HiGHS run with the options and whatever time is left before ``deadline``."""
    highs = bridge.highs
    if deadline is not None:
        highs.setOptionValue("time_limit", max(0.0, deadline - time.perf_counter()))
    if options.mip_gap is not None:
        highs.setOptionValue("mip_rel_gap", float(options.mip_gap))
    try:
        highs.run()
    except Exception as exc:  # solver crashes become our error, not a traceback
        raise SolverError(f"highs failed: {type(exc).__name__}: {exc}") from exc


def status(bridge: HighsModel) -> tuple[SolveStatus, Termination]:
    """Our status and termination for HiGHS's last run."""
    name = bridge.highs.getModelStatus().name
    found = bridge.highs.getInfo().primal_solution_status == 2  # 0 none, 1 infeasible, 2 yes
    ours = _HIGHS_STATUS.get(name)
    if ours is None:
        ours = SolveStatus.FEASIBLE if found else SolveStatus.NO_SOLUTION
        if _TERMINATION.get(name) == Termination.ERROR:
            ours = SolveStatus.ERROR
    if ours == SolveStatus.OPTIMAL and not found:
        ours = SolveStatus.NO_SOLUTION
    return ours, _TERMINATION.get(name, Termination.OTHER)


def load(bridge: HighsModel, values: Any) -> None:
    """Column values into the Pyomo variables they came from."""
    set_values(bridge.columns, values)


def set_values(variables: Sequence[Any], values: Any) -> None:
    """``values`` into the Pyomo ``variables``, one each, in order."""
    from pyomo.core.staleflag import StaleFlagManager

    for var, x in zip(variables, values, strict=True):
        var.set_value(float(x), skip_validation=True)
    StaleFlagManager.mark_all_as_stale(delayed=True)


def duals(
    model: pyo.ConcreteModel, bridge: HighsModel, names: Sequence[str]
) -> dict[str, dict[Any, float]]:
    """Row duals of the last solve for the named constraint components, by index."""
    row_dual = bridge.highs.getSolution().row_dual
    out: dict[str, dict[Any, float]] = {}
    for component in (getattr(model, n, None) for n in names):
        if component is None or not len(component):
            continue
        out[component.local_name] = {
            c.index(): float(row_dual[bridge.rows[id(c)]])
            for c in component.values()
            if id(c) in bridge.rows
        }
    return out
