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
   cost LP's plan, up, else down, with the service still held (dual simplex, warm from
   the cost LP's basis); where no rounding keeps that service, the service LP's plan
   rounded, its service LP re-solved warm (s_R ≥ s*), then the cost LP with the row
   at ``cap(s_R)`` by primal simplex. When s_R > cap(s*), the service MILP runs from
   that plan for half the time left (to ``service_gap``); a better plan it finds is
   fixed and re-solved the same way. The plan: cost c_R.
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
:data:`COST_UNMINIMISED`, and its cost has no bound (gap unknown): better a plan that
says so than none.

Every whole plan leaves at least s* unserved, so the plan's service gap is
``(s_R − s*) / s_R`` (0 when s_R ≤ cap(s*)), and a plan with service at most
``cap(s_R)`` costs at least step 4's bound among those: the gap on cost is a gap of
the lexicographic problem whenever the service gap is 0, and of the cost with the
plan's own service held otherwise (as the two stages' cost stage is).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.repn import generate_standard_repn

from planner.optimize.objective import SERVICE_ABSOLUTE, SERVICE_TOLERANCE
from planner.optimize.solvers import highs as hs
from planner.optimize.solvers.handoff import highs_model
from planner.optimize.solvers.types import Rounding, SolveResult, SolverOptions, SolveStatus

log = logging.getLogger("planner.optimize")

PRIMAL_SIMPLEX = 4
"""HiGHS's ``simplex_strategy`` for the primal simplex (1 is the dual, 0 its choice)."""
CHOOSE_SIMPLEX = 0
DUAL_SIMPLEX = 1


COST_UNMINIMISED = (
    "time guard: the cost LP did not finish in its share of the time; the whole "
    "decisions come from the service stage (its LP rounded, or its MILP), not chosen "
    "for cost; no bound on cost"
)
"""The cost result's termination when the time guard made the plan."""


def cap(unserved: float) -> float:
    """The held row's upper bound for a service value: :class:`CostWithServiceHeld`'s."""
    return unserved * (1 + SERVICE_TOLERANCE) + SERVICE_ABSOLUTE


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


def _vector(expr: Any, column: dict[int, int], count: int) -> np.ndarray:
    """A linear expression's coefficients as a dense column vector."""
    repn = generate_standard_repn(expr, compute_values=True)
    out = np.zeros(count)
    for var, coef in zip(repn.linear_vars, repn.linear_coefs, strict=True):
        out[column[id(var)]] += coef
    return out


class _Instance:
    """The HiGHS instance and the two objectives it switches between."""

    def __init__(self, model: pyo.ConcreteModel, cost: Any, options: SolverOptions) -> None:
        started = time.perf_counter()
        self.bridge = highs_model(model)
        self.highs = self.bridge.highs
        if options.threads is not None:
            hs.reset_scheduler()
            self.highs.setOptionValue("threads", options.threads)
        count = self.highs.getNumCol()
        self.all = np.arange(count, dtype=np.int32)
        self.service = np.array(self.highs.getLp().col_cost_, dtype=float)
        self.cost = _vector(cost, {id(v): j for j, v in enumerate(self.bridge.columns)}, count)
        nonzero = np.flatnonzero(self.service).astype(np.int32)
        self.highs.addRow(-np.inf, np.inf, len(nonzero), nonzero, self.service[nonzero])
        self.row = self.highs.getNumRow() - 1
        column = {id(v): j for j, v in enumerate(self.bridge.columns)}
        slacks = [
            column[id(v)]
            for family in ("unmet_inf", "lost_inf", "unmet_train")
            for v in getattr(model, family, {}).values()
            if id(v) in column
        ]
        self.slacks = np.array(slacks, dtype=np.int32)
        self.zeroed = False
        self.handoff = time.perf_counter() - started
        self.options = options

    def serve_all(self, zero: bool) -> None:
        """Every unmet slack's upper bound at 0 (``zero``: the service LP found all
        can be served, so no slack may be used, not even the row's tolerance, as
        :class:`CostWithServiceHeld` of 0 does), or back as handed over."""
        if zero == self.zeroed or not len(self.slacks):
            return
        upper = np.zeros(len(self.slacks)) if zero else self.bridge.upper[self.slacks]
        self.highs.changeColsBounds(
            len(self.slacks), self.slacks, self.bridge.lower[self.slacks], upper
        )
        self.zeroed = zero

    def objective(self, costs: np.ndarray) -> None:
        self.highs.changeColsCost(len(self.all), self.all, costs)

    def hold(self, upper: float) -> None:
        self.highs.changeRowBounds(self.row, -np.inf, upper)

    def run(
        self, deadline: float | None, solver: str = "choose", strategy: int = CHOOSE_SIMPLEX
    ) -> bool:
        """One LP run; True when it ended optimal."""
        self.highs.setOptionValue("solver", solver)
        self.highs.setOptionValue("simplex_strategy", strategy)
        # An LP run stops when the instance's run time, summed over all its runs (MILP
        # runs too), passes time_limit, unlike a MILP run (HiGHS 1.16): so the time
        # left goes on top of the run time so far.
        if deadline is not None:
            left = max(0.0, deadline - time.perf_counter())
            self.highs.setOptionValue("time_limit", self.highs.getRunTime() + left)
        hs.run(self.bridge, self.options, None)
        self.highs.setOptionValue("solver", "choose")
        self.highs.setOptionValue("simplex_strategy", CHOOSE_SIMPLEX)
        log.debug("lexicographic lp-first: LP run ended %s", self.highs.getModelStatus())
        return bool(self.highs.getModelStatus() == hs.highspy().HighsModelStatus.kOptimal)

    def value(self) -> float:
        return float(self.highs.getInfo().objective_function_value)

    def value_service(self) -> float:
        """The service share of the solution last found (whatever the objective)."""
        return float(self.service @ np.asarray(self.highs.getSolution().col_value))


def solve_lexicographic(
    model: pyo.ConcreteModel,
    cost: Any,
    options: SolverOptions,
    rounding: Rounding,
    duals: Sequence[str] = (),
    service_gap: float = 0.0,
) -> Lexicographic | None:
    """Steps 1–5 of the module docstring on ``model`` (its active objective the service
    share, ``cost`` the NPV cost expression). None when the service LP does not end
    optimal in the time limit (the caller falls back to the two stages).

    Times: the service result's ``solver_seconds`` is step 1's, the cost result's the
    rest; the cost result carries the hand-off. The cost LP's duals of ``duals`` come
    back on the cost result (the relaxation's, as ``lp-first`` gives).
    """
    one = _Instance(model, cost, options)
    highs, bridge = one.highs, one.bridge
    started = time.perf_counter()
    deadline = None if options.time_limit_s is None else started + options.time_limit_s
    hs.set_integrality(bridge, False)
    if not one.run(deadline, "ipm"):
        log.info("lexicographic lp-first: the service LP ended %s", highs.getModelStatus())
        hs.set_integrality(bridge, True)
        return None
    service_lp = one.value()
    service_warm = (list(highs.getSolution().col_value), highs.getBasis())
    service_seconds = service_lp_seconds = time.perf_counter() - started
    log.info("lexicographic lp-first: service LP %.6g in %.1f s", service_lp, service_seconds)
    started = time.perf_counter()
    one.serve_all(service_lp <= SERVICE_ABSOLUTE)
    one.hold(cap(service_lp))
    one.objective(one.cost)
    # The service LP's basis stays primal feasible (the new row holds at its optimum)
    # but not dual feasible for the new objective: primal simplex from it.
    if not one.run(_share(deadline, COST_LP_SHARE), "simplex", PRIMAL_SIMPLEX):
        log.info("lexicographic lp-first: the cost LP ended %s", highs.getModelStatus())
        guard = _service_plan(one, model, rounding, service_warm, deadline)
        ints = bridge.integers
        highs.changeColsBounds(len(ints), ints, bridge.lower[ints], bridge.upper[ints])
        if guard is None:
            hs.set_integrality(bridge, True)
            return None
        service_value, objective, values, minimised = guard
        service_bound = service_lp
        if service_value > cap(service_lp):  # rounding lost service: the service MILP
            milp_started = time.perf_counter()
            service_value, service_bound, objective, better = _more_service(
                one, (service_value, objective, values), service_lp, service_gap, deadline
            )
            service_seconds += time.perf_counter() - milp_started
            minimised = minimised or better is not values  # a better plan is re-costed
            values = better
        hs.set_integrality(bridge, True)
        guarded = (service_value, service_bound, objective, values, minimised)
        return _unminimised(one, guarded, service_gap, service_seconds, started)
    cost_lp = one.value()
    basis = highs.getBasis()
    row_dual = min(float(highs.getSolution().row_dual[one.row]), 0.0)
    relaxation_duals = hs.duals(model, bridge, duals) if duals else {}
    log.info(
        "lexicographic lp-first: cost LP %.6g in %.1f s",
        cost_lp,
        time.perf_counter() - started,
    )
    cost_warm = (list(highs.getSolution().col_value), basis)
    plan = _rounded(one, model, rounding, cost_warm, service_warm, service_lp, deadline)
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
        service_value, service_bound, objective, values = _more_service(
            one, plan, service_lp, service_gap, deadline
        )
        service_seconds += time.perf_counter() - milp_started
    bound = cost_lp
    if service_value > cap(service_lp):
        bound = cost_lp + row_dual * (cap(service_value) - cap(service_lp))
        highs.setBasis(basis)
        one.hold(cap(service_value))
        if one.run(deadline, "simplex", DUAL_SIMPLEX):
            bound = max(bound, one.value())
        else:
            log.info("lexicographic lp-first: bound re-solve %s", highs.getModelStatus())
    gap = abs(objective - bound) / max(abs(objective), 1e-9)
    log.info(
        "lexicographic lp-first: rounded plan %.6g (service %.6g), bound %.6g, gap %.4f%%",
        objective,
        service_value,
        bound,
        gap * 100,
    )
    status, termination = SolveStatus.OPTIMAL, "convergenceCriteriaSatisfied"
    if gap > (options.mip_gap or 0.0):
        hs.set_integrality(bridge, True)
        one.hold(cap(service_value))
        start = hs.highspy().HighsSolution()
        start.col_value = values
        highs.setSolution(start)
        hs.run(bridge, options, deadline)
        found, termination = hs.status(bridge)
        info = highs.getInfo()
        if found.has_solution and info.objective_function_value < objective:
            objective = float(info.objective_function_value)
            values = list(highs.getSolution().col_value)
        if info.mip_node_count >= 0 and np.isfinite(info.mip_dual_bound):
            bound = max(bound, float(info.mip_dual_bound))
        gap = abs(objective - bound) / max(abs(objective), 1e-9)
        status = SolveStatus.OPTIMAL if gap <= (options.mip_gap or 0.0) else SolveStatus.FEASIBLE
    else:
        hs.set_integrality(bridge, True)
    cost_seconds = time.perf_counter() - started - (service_seconds - service_lp_seconds)
    started = time.perf_counter()
    hs.load(bridge, values)
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
    return Lexicographic(result, service, service_lp, cost_lp)


def _service_result(
    value: float, bound: float, service_gap: float, seconds: float, options: SolverOptions
) -> SolveResult:
    """The service stage's result: optimal when the plan's service s_R is within the
    held row's tolerance of the bound, or within ``service_gap`` of it."""
    proved = value <= cap(bound) or (1.0 - bound / value <= service_gap)
    return SolveResult(
        status=SolveStatus.OPTIMAL if proved else SolveStatus.FEASIBLE,
        termination="convergenceCriteriaSatisfied" if proved else "maxTimeLimit",
        objective=value,
        bound=bound,
        seconds=seconds,
        solver=options.name,
        solver_seconds=seconds,
    )


Warm = tuple[list[float], Any]
"""An LP's column values and its basis."""

COST_LP_SHARE = 0.6
"""Share of the time left after the service LP that the cost LP may take; past it the
time guard (:func:`_service_plan`) makes a plan from the service LP instead."""


def _share(deadline: float | None, share: float) -> float | None:
    """The instant ``share`` of the time to ``deadline`` from now (None: no limit)."""
    if deadline is None:
        return None
    now = time.perf_counter()
    return now + share * max(0.0, deadline - now)


def _service_plan(
    one: _Instance,
    model: pyo.ConcreteModel,
    rounding: Rounding,
    service_warm: Warm,
    deadline: float | None,
    minimised_only: bool = False,
) -> tuple[float, float, list[float], bool] | None:
    """The service LP's plan rounded (up, else down) and its service LP re-solved warm
    with the whole decisions fixed (s_R), then, in the time left, the cost of the
    continuous decisions minimised with the service held at ``cap(s_R)``: (s_R, the
    plan's NPV cost, its column values, whether that cost was minimised), or None when
    no rounding has an LP solution (``minimised_only``: none whose cost LP finished).
    Step 3's last resort, and the time guard's plan (whose whole decisions are the
    service LP's, not chosen for cost: feasible, its cost without a bound)."""
    highs = one.highs
    one.serve_all(False)
    for up in (True, False):
        _fix(one, model, rounding, service_warm, up)
        one.objective(one.service)
        one.hold(np.inf)
        if not one.run(deadline):
            continue
        service_value = one.value()  # before the objective changes (that clears it)
        values = list(highs.getSolution().col_value)
        one.objective(one.cost)
        one.hold(cap(service_value))
        if _cost_lp(one, deadline):
            return service_value, one.value(), list(highs.getSolution().col_value), True
        if minimised_only:
            continue
        # as HiGHS would report it (its offset is the handed-over objective's constant)
        cost = float(one.cost @ np.asarray(values)) + float(highs.getLp().offset_)
        return service_value, cost, values, False
    return None


def _unminimised(
    one: _Instance,
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
    hs.load(one.bridge, values)
    service = _service_result(
        service_value, service_bound, service_gap, service_seconds, one.options
    )
    result = SolveResult(
        status=SolveStatus.FEASIBLE,
        termination=COST_UNMINIMISED,
        objective=objective,
        bound=None,
        seconds=0.0,
        solver=one.options.name,
        handoff_seconds=one.handoff,
        solver_seconds=cost_seconds,
        load_seconds=time.perf_counter() - loaded,
        nonzeros=one.bridge.nonzeros,
    )
    return Lexicographic(result, service, service_bound, None)


def _rounded(
    one: _Instance,
    model: pyo.ConcreteModel,
    rounding: Rounding,
    cost_warm: Warm,
    service_warm: Warm,
    service_lp: float,
    deadline: float | None,
) -> tuple[float, float, list[float]] | None:
    """Step 3: a whole plan, (its service s_R, its cost c_R, its column values), or
    None. First the cost LP's plan rounded (up, else down) with the service still held
    at ``cap(s*)``: the cost LP's basis stays dual feasible when the integer columns
    are fixed, so the dual simplex re-solves it warm. Where no rounding keeps that
    service, the service LP's plan rounded, its service LP re-solved warm the same way
    (s_R), then the cost LP with the row at ``cap(s_R)`` by primal simplex from there
    (the service LP's solution meets the row)."""
    highs = one.highs
    for up in (True, False):
        _fix(one, model, rounding, cost_warm, up)
        one.objective(one.cost)
        one.hold(cap(service_lp))
        if one.run(deadline):
            return one.value_service(), one.value(), list(highs.getSolution().col_value)
    found = _service_plan(one, model, rounding, service_warm, deadline, minimised_only=True)
    return None if found is None else found[:3]


def _cost_lp(one: _Instance, deadline: float | None) -> bool:
    """The cost LP with the service held, from the service LP's solution: primal simplex
    (that solution meets the held row), else interior point from scratch. At L, after
    the service LP's plan rounded down, the primal simplex ended ``kUnknown`` (no
    answer) where interior point solved the same LP in about 1 s."""
    if one.run(deadline, "simplex", PRIMAL_SIMPLEX):
        return True
    log.info(
        "lexicographic lp-first: primal simplex %s; interior point", one.highs.getModelStatus()
    )
    return one.run(deadline, "ipm")


def _fix(
    one: _Instance, model: pyo.ConcreteModel, rounding: Rounding, warm: Warm, up: bool
) -> None:
    """The integer columns fixed at ``warm``'s values rounded (``up`` or down), the
    basis set back to ``warm``'s."""
    bridge, ints = one.bridge, one.bridge.integers
    hs.load(bridge, warm[0])
    rounding(model, up)
    whole = np.array([bridge.columns[j].value for j in ints], dtype=np.double)
    one.highs.setBasis(warm[1])
    one.highs.changeColsBounds(len(ints), ints, whole, whole)


def _fixed(
    one: _Instance, whole: np.ndarray, service_lp: float, deadline: float | None
) -> tuple[float, float, list[float]] | None:
    """The integer columns fixed at ``whole`` (a MILP's plan): the service LP (s_R)
    and then the cost LP held at ``cap(s_R)``: (s_R, cost, column values), or None
    when the fixed plan has no LP solution. Leaves the integer columns fixed and the
    objective the cost."""
    highs, ints = one.highs, one.bridge.integers
    highs.changeColsBounds(len(ints), ints, whole, whole)
    one.serve_all(False)
    one.hold(np.inf)
    one.objective(one.service)
    done = one.run(deadline)
    service_value = one.value()  # before the objective changes (that clears it)
    one.objective(one.cost)
    if not done:
        return None
    one.hold(cap(service_value))
    if _cost_lp(one, deadline):
        return service_value, one.value(), list(highs.getSolution().col_value)
    return None


def _more_service(
    one: _Instance,
    plan: tuple[float, float, list[float]],
    service_lp: float,
    service_gap: float,
    deadline: float | None,
) -> tuple[float, float, float, list[float]]:
    """Step 3b: the rounded plan leaves more unserved than the service LP; the service
    MILP (row free) runs from it for half the time left, to ``service_gap``. Its best
    plan's whole decisions are then fixed and the cost LP solved with the row at its
    service: (service, service bound, cost, column values). The rounded plan is kept
    when the MILP finds nothing better."""
    highs, bridge = one.highs, one.bridge
    service_value, objective, values = plan
    now = time.perf_counter()
    half = None if deadline is None else now + (deadline - now) / 2
    hs.set_integrality(bridge, True)
    one.serve_all(False)
    one.hold(np.inf)
    one.objective(one.service)
    start = hs.highspy().HighsSolution()
    start.col_value = values
    highs.setSolution(start)
    gap_before = float(highs.getOptionValue("mip_rel_gap")[1])
    hs.run(bridge, replace(one.options, mip_gap=service_gap), half)
    highs.setOptionValue("mip_rel_gap", gap_before)
    milp = np.asarray(highs.getSolution().col_value)
    info = highs.getInfo()
    bound = service_lp
    if info.mip_node_count >= 0 and np.isfinite(info.mip_dual_bound):
        bound = max(bound, float(info.mip_dual_bound))
    found = hs.status(bridge)[0].has_solution
    better = found and info.objective_function_value < service_value * (1 - 1e-9)
    log.info(
        "lexicographic lp-first: service MILP %s (rounded %.6g), bound %.6g",
        f"{info.objective_function_value:.6g}" if found else "none",
        service_value,
        bound,
    )
    hs.set_integrality(bridge, False)
    one.objective(one.cost)
    if not better:
        return service_value, bound, objective, values
    ints = bridge.integers
    better_plan = _fixed(one, np.round(milp[ints]), service_lp, deadline)
    highs.changeColsBounds(len(ints), ints, bridge.lower[ints], bridge.upper[ints])
    if better_plan is None or better_plan[0] >= service_value:
        return service_value, bound, objective, values
    return better_plan[0], bound, better_plan[1], better_plan[2]
