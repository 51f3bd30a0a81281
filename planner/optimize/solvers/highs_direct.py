"""The default back-end ``highs``: the bulk hand-off (planner.optimize.solvers.handoff),
a ``highspy`` run, and the primal values (and requested duals) loaded back into the
Pyomo variables; and the ``lp-first`` strategy (planner.optimize.strategy).

Statuses and termination names follow Pyomo's interfaces (``maxTimeLimit``, …; see
planner.optimize.solvers.highs). HiGHS gives no duals for a MILP; ask for duals on a
model built with ``relax`` (docs/concepts/optimiser.md), or solve with ``lp-first``, which
returns its LP relaxation's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pyomo.environ as pyo

from planner.optimize.solvers import highs as hs
from planner.optimize.solvers.handoff import highs_model
from planner.optimize.solvers.types import (
    Rounding,
    SolveResult,
    SolverOptions,
    SolveStatus,
    Termination,
    finite,
    status_by_gap,
)

log = logging.getLogger("planner.optimize")


def solve_highs(
    model: pyo.ConcreteModel,
    options: SolverOptions,
    duals: Sequence[str],
    rounding: Rounding | None,
) -> SolveResult:
    """Hand ``model`` to HiGHS in bulk and solve it (``lp-first`` when asked and
    ``rounding`` is given); times the hand-off, the runs and the load separately."""
    started = time.perf_counter()
    bridge = highs_model(model)
    highs = bridge.highs
    handoff = time.perf_counter() - started
    if options.threads is not None:
        hs.reset_scheduler()
        highs.setOptionValue("threads", options.threads)
    start = _mip_start(bridge)
    started = time.perf_counter()
    deadline = None if options.time_limit_s is None else started + options.time_limit_s
    lp_first = options.strategy == "lp-first" and rounding is not None and len(bridge.integers) > 0
    bound_floor = None
    relaxation_duals: dict[str, dict[Any, float]] = {}
    if lp_first:
        assert rounding is not None
        early, bound_floor, relaxation_duals, rounded = _round_the_lp(
            model, bridge, options, rounding, deadline, duals
        )
        if early is not None:
            return replace(early, handoff_seconds=handoff, nonzeros=bridge.nonzeros)
        if start is not None and not rounded:
            highs.setSolution(*start)  # no rounded plan to start from: the given one
    hs.run(bridge, options, deadline)
    solver_seconds = time.perf_counter() - started
    started = time.perf_counter()
    status, termination = hs.status(bridge)
    info = highs.getInfo()
    objective = bound = None
    dual_values: dict[str, dict[Any, float]] = relaxation_duals
    if status.has_solution:
        solution = highs.getSolution()
        hs.load(bridge, solution.col_value)
        objective = info.objective_function_value
        bound = info.mip_dual_bound if info.mip_node_count >= 0 else None
        if status == SolveStatus.OPTIMAL and bound is None:
            bound = objective
        if duals and solution.dual_valid:
            dual_values = hs.duals(model, bridge, duals)
    if bound_floor is not None:  # the LP relaxation's bound holds for the MILP too
        known = finite(bound) is not None
        bound = max(bound_floor, bound) if bound is not None and known else bound_floor
    status = status_by_gap(status, objective, finite(bound), options.mip_gap)
    return SolveResult(
        status=status,
        termination=termination,
        objective=objective,
        bound=finite(bound),
        seconds=0.0,
        solver=options.name,
        duals=dual_values,
        handoff_seconds=handoff,
        solver_seconds=solver_seconds,
        load_seconds=time.perf_counter() - started,
        nonzeros=bridge.nonzeros,
    )


def _mip_start(bridge: hs.HighsModel) -> tuple[int, np.ndarray, np.ndarray] | None:
    """Integer columns whose variables hold a value when the model is handed over (a
    build hook set them, e.g. the cost stage from the service stage's plan) are a MIP
    start: HiGHS completes the continuous columns and keeps the plan if it is feasible.
    Returned (as ``setSolution``'s arguments) to set again after ``lp-first``'s runs."""
    chosen = [(j, bridge.columns[j].value) for j in bridge.integers]
    chosen = [(j, x) for j, x in chosen if x is not None]
    if not chosen:
        return None
    index = np.array([j for j, _ in chosen], dtype=np.int32)
    value = np.array([x for _, x in chosen], dtype=np.double)
    bridge.highs.setSolution(len(chosen), index, value)
    return len(chosen), index, value


def _round_the_lp(
    model: pyo.ConcreteModel,
    bridge: hs.HighsModel,
    options: SolverOptions,
    rounding: Rounding,
    deadline: float | None,
    duals: Sequence[str],
) -> tuple[SolveResult | None, float | None, dict[str, dict[Any, float]], bool]:
    """The ``lp-first`` strategy: solve the LP relaxation (interior point, then
    crossover), round its integers up — or, if that breaks a cap, down — and solve the
    LP left with them fixed, warm from the relaxation's basis. A whole plan within the
    MIP gap of the relaxation's bound is the answer (returned), as is a relaxation
    proven infeasible (the MILP is then infeasible too); otherwise the MILP
    starts from it, and the relaxation's bound is returned to tighten the MILP's. The
    relaxation's duals of the ``duals`` components come back too (a MILP has none), and
    whether a rounded plan was found (it is then the MIP's start)."""
    highspy = hs.highspy()
    highs = bridge.highs
    started = time.perf_counter()
    hs.set_integrality(bridge, False)
    highs.setOptionValue("solver", "ipm")
    hs.run(bridge, options, deadline)
    highs.setOptionValue("solver", "choose")
    if highs.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
        # No fractional plan, so no whole one: the MILP would only prove it again.
        log.info("lp-first: the LP relaxation is infeasible, so the MILP is too")
        status, termination = hs.status(bridge)
        solver_seconds = time.perf_counter() - started
        infeasible = SolveResult(status, termination, None, None, 0.0, options.name)
        return replace(infeasible, solver_seconds=solver_seconds), None, {}, False
    if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        log.info("lp-first: the LP relaxation ended %s; solving the MILP", highs.getModelStatus())
        hs.set_integrality(bridge, True)
        return None, None, {}, False
    bound = highs.getInfo().objective_function_value
    relaxation_duals = hs.duals(model, bridge, duals) if duals else {}
    hs.load(bridge, highs.getSolution().col_value)
    relaxation = [v.value for v in bridge.columns]
    ints, count = bridge.integers, len(bridge.integers)
    plan = None
    for up in (True, False):
        rounding(model, up)
        whole = np.array([bridge.columns[j].value for j in ints], dtype=np.double)
        highs.changeColsBounds(count, ints, whole, whole)
        hs.run(bridge, options, deadline)
        if highs.getModelStatus() == highspy.HighsModelStatus.kOptimal:
            plan = (highs.getInfo().objective_function_value, list(highs.getSolution().col_value))
            break
        hs.load(bridge, relaxation)  # back to the relaxation before rounding the other way
    highs.changeColsBounds(count, ints, bridge.lower[ints], bridge.upper[ints])
    hs.set_integrality(bridge, True)
    if plan is None:
        log.info("lp-first: no rounding of the LP relaxation is feasible; solving the MILP")
        return None, bound, relaxation_duals, False
    objective, values = plan
    gap = abs(objective - bound) / max(abs(objective), 1e-9)
    log.info("lp-first: rounded plan %.6g, LP bound %.6g, gap %.4f%%", objective, bound, gap * 100)
    if gap <= (options.mip_gap or 0.0):
        solver_seconds = time.perf_counter() - started
        started = time.perf_counter()
        hs.load(bridge, values)
        return (
            SolveResult(
                status=SolveStatus.OPTIMAL,
                termination=Termination.OPTIMAL,
                objective=objective,
                bound=bound,
                seconds=0.0,
                solver=options.name,
                duals=relaxation_duals,
                solver_seconds=solver_seconds,
                load_seconds=time.perf_counter() - started,
            ),
            bound,
            relaxation_duals,
            True,
        )
    start = highspy.HighsSolution()
    start.col_value = values
    highs.setSolution(start)
    return None, bound, relaxation_duals, True
