"""``min_cost``'s lexicographic solve under ``lp-first``, in one HiGHS instance.

The two stages of :func:`planner.pipeline.min_cost` each build, hand over and solve
an LP relaxation from scratch; on the XL benchmark each such LP takes minutes, so the
two (and the attempt at serving everything before them) do not fit in its limit. Here
the model is handed over once, with the service objective s (the priority-weighted
unserved share) active, and solved in place:

1. **Service LP** (interior point, then crossover): s* = min s over the relaxation,
   a lower bound on the unserved share of every whole plan. s* = 0 says everything
   can be served; s* > 0 says no plan serves everything, so no attempt at serving
   everything is needed.
2. **Cost LP**, from the service LP's basis: one row ``s ≤ cap(s*)`` (``cap`` adds
   :data:`SERVICE_TOLERANCE` and :data:`SERVICE_ABSOLUTE`), the objective switched to
   the NPV cost c; c* = min c over the relaxation with that row, the lexicographic
   LP optimum.
3. **Rounding** (``rounding``, :func:`planner.optimize.strategy.round_plan`) of the
   cost LP's plan, up, else down: its service LP with the whole decisions fixed (s_R;
   the row free, so it always has a solution), and when s_R keeps s* the cost LP with
   the service held at ``cap(s*)``; where no rounding keeps that service, the service
   LP's plan rounded the same way, then the cost LP with the row at ``cap(s_R)`` by
   primal simplex. When s_R > cap(s*), the service MILP runs from that plan for
   :data:`SERVICE_MILP_SHARE` of the time left (to ``service_gap``); a better plan it
   finds is fixed and re-solved the same way. The plan: cost c_R.
4. **Bound on cost**: when s_R is within the row's tolerance of s*, c* itself.
   Otherwise the cost LP with the row moved to ``cap(s_R)``, re-solved from step 2's
   basis (only a row bound moved, so the basis stays dual feasible: dual simplex);
   if that does not finish, LP duality's ``c* + y · (cap(s_R) − cap(s*))`` (y ≤ 0 the
   row's dual at step 2: any dual solution of step 2 stays feasible when a row bound
   moves, so its objective there is a lower bound).
5. When the gap on cost ``(c_R − bound) / c_R`` exceeds the MIP gap, the MILP (row at
   ``cap(s_R)``) runs in the time left from the rounded plan, its bound floored by
   step 4's.

**Time guard**: the cost LP of step 2 gets :data:`COST_LP_SHARE` of the time left.
Where it does not finish (XL's took longer than the 143 s its limit left), the service
LP's plan is rounded (up, else down) and re-solved warm with its whole decisions fixed
(s_R), the service MILP runs from it as in step 3 when s_R > cap(s*), and the
continuous decisions' cost is minimised with the service held, in the time left. The
plan is then feasible, its status ``feasible``, its termination
``Termination.COST_UNMINIMISED``, and its cost has no bound (gap unknown): better a plan that
says so than none.

**Column generation**: on a large model most inference assignment columns start
outside the instance (:mod:`planner.optimize.assignments` picks the few kept) and every
LP above prices them in from its duals (:mod:`planner.optimize.solvers.columns`), so s*
and c* are the full LPs' optima and every plan is a plan of the full model. A MILP over
the instance's columns has no bound on the full MILP, so its dual bound counts only
once no column is held; a cost MILP's plan is priced against the held columns with its
whole decisions fixed (:func:`repriced`), and the columns that still price in are
counted (``columns_priced_after_milp``).

Every whole plan leaves at least s* unserved, so the plan's service gap is
``(s_R − s*) / s_R`` (0 when s_R ≤ cap(s*)), and a plan with service at most
``cap(s_R)`` costs at least step 4's bound among those: the gap on cost is a gap of
the lexicographic problem whenever the service gap is 0, and of the cost with the
plan's own service held otherwise (as the two stages' cost stage is).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pyomo.environ as pyo

from planner.optimize.objective import SERVICE_ABSOLUTE
from planner.optimize.solvers import highs as hs
from planner.optimize.solvers.instance import (
    DUAL_SIMPLEX,
    PRIMAL_SIMPLEX,
    Instance,
    Problem,
    cap,
    pyomo_problem,
)
from planner.optimize.solvers.types import (
    Rounding,
    SolveResult,
    SolverOptions,
    SolveStatus,
    Termination,
)
from planner.optimize.solvers.whole_plans import (
    more_service,
    repriced,
    rounded,
    service_plan,
    share,
)

__all__ = ["Lexicographic", "cap", "solve_lexicographic"]

log = logging.getLogger("planner.optimize")


COST_LP_SHARE = 0.6
"""Share of the time left after the service LP that the cost LP may take; past it the
time guard (:func:`service_plan`) makes a plan from the service LP instead."""


@dataclass(frozen=True)
class Lexicographic:
    """What :func:`solve_lexicographic` found: the cost result (with the plan loaded in
    the model when it has one), the service result, and the LP values behind them."""

    cost: SolveResult
    service: SolveResult
    service_lp: float | None
    """s*: the service LP's optimum (a lower bound on every whole plan's)."""
    cost_lp: float | None
    """c*: the cost LP's optimum with the service held at ``cap(s*)``."""
    columns: dict[str, int] = field(default_factory=dict)
    """Column generation's counts (:meth:`Instance.columns`)."""
    values: np.ndarray | None = None
    """The plan's full column vector (the model's columns; held ones at 0)."""


def solve_lexicographic(
    model: pyo.ConcreteModel,
    cost: Any,
    options: SolverOptions,
    rounding: Rounding,
    duals: Sequence[str] = (),
    service_gap: float = 0.0,
    held: Sequence[tuple[Any, Hashable]] = (),
) -> Lexicographic | None:
    """:func:`solve_problem` on a Pyomo ``model`` (its active objective the service
    share, ``cost`` the NPV cost expression, ``rounding`` :func:`round_plan`); the plan
    found is loaded into the model's variables. ``held``: (variable, pricing group)
    pairs the instance starts without."""
    problem = pyomo_problem(model, cost, rounding, held)
    return solve_problem(problem, options, duals, service_gap)


def solve_problem(
    problem: Problem,
    options: SolverOptions,
    duals: Sequence[str] = (),
    service_gap: float = 0.0,
) -> Lexicographic | None:
    """:func:`_solve_steps` on ``problem``, its cost's constant (``problem.offset``, the
    power contracts) added to the cost result's objective and bound and to c* (the
    steps compare costs without it: a constant moves no plan and no gap's numerator)."""
    found = _solve_steps(problem, options, duals, service_gap)
    if found is None or not problem.offset:
        return found

    def shift(value: float | None) -> float | None:
        return None if value is None else value + problem.offset

    cost = replace(found.cost, objective=shift(found.cost.objective), bound=shift(found.cost.bound))
    return replace(found, cost=cost, cost_lp=shift(found.cost_lp))


def _solve_steps(
    problem: Problem,
    options: SolverOptions,
    duals: Sequence[str] = (),
    service_gap: float = 0.0,
) -> Lexicographic | None:
    """Steps 1–5 of the module docstring on ``problem`` (a Pyomo model's or the array
    model's, :class:`planner.optimize.solvers.instance.Problem`). None when the service
    LP does not end optimal in the time limit (the caller falls back to the two stages).

    Times: the service result's ``solver_seconds`` is step 1's, the cost result's the
    rest; the cost result carries the hand-off. The cost LP's duals of ``duals`` come
    back on the cost result (the relaxation's, as ``lp-first`` gives), for a problem
    that knows its rows' names.

    Held columns (continuous, lower bound 0, outside the service objective) are priced
    in by every LP (:mod:`.columns`), so s* and c* are the full LPs' optima; a MILP's
    dual bound counts only once none is held, and a MILP's plan is re-priced with its
    whole decisions fixed. The plan found is loaded (``problem.load``) and kept as
    :attr:`Lexicographic.values`.
    """
    one = Instance(problem, options)
    highs, bridge = one.highs, one.bridge
    started = time.perf_counter()
    deadline = None if options.time_limit_s is None else started + options.time_limit_s
    hs.set_integrality(bridge, False)
    if not one.lp(deadline, "ipm"):
        log.info("lexicographic lp-first: the service LP ended %s", highs.getModelStatus())
        hs.set_integrality(bridge, True)
        return None
    service_lp = one.value()
    service_warm = one.warm()
    service_seconds = service_lp_seconds = time.perf_counter() - started
    log.info("lexicographic lp-first: service LP %.6g in %.1f s", service_lp, service_seconds)
    started = time.perf_counter()
    zeroed = service_lp <= SERVICE_ABSOLUTE  # everything can be served: no slack at all
    one.serve_all(zeroed)
    one.hold(cap(service_lp))
    one.objective("cost")
    # The service LP's basis stays primal feasible (the new row holds at its optimum)
    # but not dual feasible for the new objective: primal simplex from it.
    done = one.lp(share(deadline, COST_LP_SHARE), "simplex", PRIMAL_SIMPLEX)
    infeasible = highs.getModelStatus() == hs.highspy().HighsModelStatus.kInfeasible
    if not done and zeroed and infeasible:  # 0 < s* ≤ the tolerance: the held row alone
        log.info("lexicographic lp-first: s* %.3g is not 0; slacks freed, row held", service_lp)
        one.serve_all(False)
        zeroed = False
        done = one.lp(share(deadline, COST_LP_SHARE), "simplex", PRIMAL_SIMPLEX)
    if not done:
        log.info("lexicographic lp-first: the cost LP ended %s", highs.getModelStatus())
        guard = service_plan(one, service_warm, deadline)
        ints = bridge.integers
        highs.changeColsBounds(len(ints), ints, bridge.lower[ints], bridge.upper[ints])
        if guard is None:
            hs.set_integrality(bridge, True)
            return None
        service_value, objective, values, minimised = guard
        service_bound = service_lp
        if service_value > cap(service_lp):  # rounding lost service: the service MILP
            milp_started = time.perf_counter()
            service_value, service_bound, objective, better = more_service(
                one, (service_value, objective, values), service_lp, service_gap, deadline
            )
            service_seconds += time.perf_counter() - milp_started
            minimised = minimised or better is not values  # a better plan is re-costed
            values = better
        hs.set_integrality(bridge, True)
        guarded = (service_value, service_bound, objective, values, minimised)
        return _unminimised(one, guarded, service_gap, service_seconds, started)
    cost_lp = one.value()
    cost_warm = one.warm()
    row_dual = min(float(highs.getSolution().row_dual[one.row]), 0.0)
    relaxation_duals = problem.duals(bridge, duals) if duals and problem.duals else {}
    log.info(
        "lexicographic lp-first: cost LP %.6g in %.1f s",
        cost_lp,
        time.perf_counter() - started,
    )
    plan = rounded(one, cost_warm, service_warm, service_lp, deadline)
    ints = bridge.integers
    highs.changeColsBounds(len(ints), ints, bridge.lower[ints], bridge.upper[ints])
    if plan is None:
        hs.set_integrality(bridge, True)
        log.info("lexicographic lp-first: no rounding of the cost LP is feasible")
        return None
    service_value, objective, values = plan
    service_bound = service_lp
    if service_value > cap(service_lp):
        milp_started = time.perf_counter()
        service_value, service_bound, objective, values = more_service(
            one, plan, service_lp, service_gap, deadline
        )
        service_seconds += time.perf_counter() - milp_started
    bound: float | None = cost_lp
    if service_value > cap(service_lp):
        # With every slack at 0 (zeroed), c* bounds only plans that serve everything,
        # not this one, and the row's dual says nothing of the slacks: no bound but the
        # re-solve with them free.
        bound = None if zeroed else cost_lp + row_dual * (cap(service_value) - cap(service_lp))
        one.serve_all(False)
        one.restore(cost_warm)
        one.hold(cap(service_value))
        if one.lp(deadline, "simplex", DUAL_SIMPLEX):
            bound = one.value() if bound is None else max(bound, one.value())
        else:
            log.info("lexicographic lp-first: bound re-solve %s", highs.getModelStatus())
    bound, gap = _checked(objective, bound)
    log.info(
        "lexicographic lp-first: rounded plan %.6g (service %.6g), bound %s, gap %s",
        objective,
        service_value,
        "unknown" if bound is None else f"{bound:.6g}",
        "unknown" if gap is None else f"{gap:.4%}",
    )
    status, termination = SolveStatus.OPTIMAL, Termination.OPTIMAL
    if gap is None or gap > (options.mip_gap or 0.0):
        hs.set_integrality(bridge, True)
        one.hold(cap(service_value))
        start = hs.highspy().HighsSolution()
        start.col_value = one.padded(values)
        highs.setSolution(start)
        hs.run(bridge, options, deadline)
        found, termination = hs.status(bridge)
        info = highs.getInfo()
        exact = one.exact  # as the MILP ran: pricing after it does not make its bound one
        milp_bound = float(info.mip_dual_bound)
        counted = exact and info.mip_node_count >= 0 and np.isfinite(milp_bound)
        if found.has_solution and info.objective_function_value < objective:
            objective = float(info.objective_function_value)
            values = list(highs.getSolution().col_value)
            objective, values = repriced(one, objective, values, service_value, deadline)
        if counted:
            bound = milp_bound if bound is None else max(bound, milp_bound)
        bound, gap = _checked(objective, bound)
        proved = gap is not None and gap <= (options.mip_gap or 0.0)
        status = SolveStatus.OPTIMAL if proved else SolveStatus.FEASIBLE
    else:
        hs.set_integrality(bridge, True)
    cost_seconds = time.perf_counter() - started - (service_seconds - service_lp_seconds)
    started = time.perf_counter()
    one.load(values)
    service = _service_result(service_value, service_bound, service_gap, service_seconds, options)
    result = SolveResult(
        status=status,
        termination=termination,
        objective=objective,
        bound=bound,
        seconds=0.0,
        solver=options.name,
        duals=relaxation_duals,
        handoff_seconds=one.handoff,
        solver_seconds=cost_seconds,
        load_seconds=time.perf_counter() - started,
        nonzeros=bridge.nonzeros,
    )
    return Lexicographic(result, service, service_lp, cost_lp, one.columns(), one.full(values))


def _checked(objective: float, bound: float | None) -> tuple[float | None, float | None]:
    """(bound, relative gap) of a plan costing ``objective``; both None when there is no
    bound, or when it lies above the plan's cost (then it bounds no such plan: a warning,
    not a negative gap hidden by an absolute value)."""
    if bound is None:
        return None, None
    gap = (objective - bound) / max(abs(objective), 1e-9)
    if gap < -1e-9:
        log.warning("lexicographic lp-first: bound %.9g above the plan's %.9g", bound, objective)
        return None, None
    return bound, max(gap, 0.0)


def _service_result(
    value: float, bound: float, service_gap: float, seconds: float, options: SolverOptions
) -> SolveResult:
    """The service stage's result: optimal when the plan's service s_R is within the
    held row's tolerance of the bound, or within ``service_gap`` of it."""
    proved = value <= cap(bound) or (1.0 - bound / value <= service_gap)
    return SolveResult(
        status=SolveStatus.OPTIMAL if proved else SolveStatus.FEASIBLE,
        termination=Termination.OPTIMAL if proved else Termination.TIME_LIMIT,
        objective=value,
        bound=bound,
        seconds=seconds,
        solver=options.name,
        solver_seconds=seconds,
    )


def _unminimised(
    one: Instance,
    found: tuple[float, float, float, list[float], bool],
    service_gap: float,
    service_seconds: float,
    started: float,
) -> Lexicographic:
    """The results of the time guard's plan, (s_R, its service bound, its cost, its
    column values, whether its continuous decisions were cost-minimised): feasible,
    its cost without a bound."""
    service_value, service_bound, objective, values, minimised = found
    log.warning(
        "lexicographic lp-first: the cost LP did not finish in %.0f%% of the time left; "
        "the service LP's plan rounded (service %.6g, cost %.6g, %s)",
        COST_LP_SHARE * 100,
        service_value,
        objective,
        "continuous decisions cost-minimised" if minimised else "cost not minimised",
    )
    cost_seconds = time.perf_counter() - started
    loaded = time.perf_counter()
    one.load(values)
    service = _service_result(
        service_value, service_bound, service_gap, service_seconds, one.options
    )
    result = SolveResult(
        status=SolveStatus.FEASIBLE,
        termination=Termination.COST_UNMINIMISED,
        objective=objective,
        bound=None,
        seconds=0.0,
        solver=one.options.name,
        handoff_seconds=one.handoff,
        solver_seconds=cost_seconds,
        load_seconds=time.perf_counter() - loaded,
        nonzeros=one.bridge.nonzeros,
    )
    return Lexicographic(result, service, service_bound, None, one.columns(), one.full(values))
