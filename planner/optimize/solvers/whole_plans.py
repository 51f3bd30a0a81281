"""Whole plans from the lexicographic solve's LP solutions (:mod:`.lexicographic`).

Rounding an LP's plan and re-solving with its whole decisions fixed, the service MILP
that wins back service a rounding lost, and the time guard's plan from the service LP;
every LP here prices held columns in (:meth:`.instance.Instance.lp`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np

from planner.optimize.objective import SERVICE_ABSOLUTE
from planner.optimize.solvers import highs as hs
from planner.optimize.solvers.instance import PRIMAL_SIMPLEX, Instance, Warm, cap

log = logging.getLogger("planner.optimize")

SERVICE_MILP_SHARE = 0.25
"""Share of the time left that the service MILP may take to win back service a rounding
lost. At L (120 s) half the time left was 55 s, most of the solve, for a service gap of
0.35 % against the LP bound; the rest of the limit is the cost stage's and the
follow-ups'."""


def share(deadline: float | None, share: float) -> float | None:
    """The instant ``share`` of the time to ``deadline`` from now (None: no limit)."""
    if deadline is None:
        return None
    now = time.perf_counter()
    return now + share * max(0.0, deadline - now)


def service_plan(
    one: Instance,
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
        fix(one, service_warm, up)
        one.objective("service")
        one.hold(np.inf)
        if not one.lp(deadline):
            continue
        service_value = one.value()  # before the objective changes (that clears it)
        values = list(highs.getSolution().col_value)
        one.objective("cost")
        one.hold(cap(service_value))
        if cost_lp(one, deadline):
            return service_value, one.value(), list(highs.getSolution().col_value), True
        if minimised_only:
            continue
        # as HiGHS would report it (its offset is the handed-over objective's constant)
        cost = float(one.cost @ np.asarray(values)) + float(highs.getLp().offset_)
        return service_value, cost, values, False
    return None


def repriced(
    one: Instance, objective: float, values: list[float], service: float, deadline: float | None
) -> tuple[float, list[float]]:
    """A MILP's plan, found over the instance's columns only, priced against the held
    ones: its whole decisions fixed, the cost LP (service held at ``cap(service)``)
    solved with pricing; the columns that price in are counted as
    ``columns_priced_after_milp`` and the cheaper plan is kept. Unchanged when no
    column is held."""
    if one.exact:
        return objective, values
    bridge, ints = one.bridge, one.bridge.integers
    before = one.pool.added_total if one.pool is not None else 0
    hs.set_integrality(bridge, False)
    whole = np.round(np.asarray(values)[ints])
    one.highs.changeColsBounds(len(ints), ints, whole, whole)
    one.hold(cap(service))
    one.objective("cost")
    if one.lp(deadline) and one.value() < objective:
        objective, values = one.value(), list(one.highs.getSolution().col_value)
    one.highs.changeColsBounds(len(ints), ints, bridge.lower[ints], bridge.upper[ints])
    hs.set_integrality(bridge, True)
    one.after_milp += (one.pool.added_total if one.pool is not None else 0) - before
    return objective, values


def rounded(
    one: Instance,
    cost_warm: Warm,
    service_warm: Warm,
    service_lp: float,
    deadline: float | None,
) -> tuple[float, float, list[float]] | None:
    """Step 3: a whole plan, (its service s_R, its cost c_R, its column values), or
    None. First the cost LP's plan rounded (up, else down) and, when it keeps the
    service LP's service, its cost LP with the service held at ``cap(s*)``
    (:func:`fixed`: the service LP with the whole decisions fixed first, whose row is
    free so it always has a solution and its duals price held columns in; an LP with
    columns held cannot prove the held row infeasible). Where no rounding keeps that
    service, the service LP's plan rounded, its service LP re-solved warm the same way
    (s_R), then the cost LP with the row at ``cap(s_R)`` by primal simplex from there
    (the service LP's solution meets the row)."""
    for up in (True, False):
        whole = fix(one, cost_warm, up)
        kept = fixed(one, whole, service_lp, deadline, keep=True)
        if kept is not None:
            return kept
    found = service_plan(one, service_warm, deadline, minimised_only=True)
    return None if found is None else found[:3]


def cost_lp(one: Instance, deadline: float | None) -> bool:
    """The cost LP with the service held, from the service LP's solution: primal simplex
    (that solution meets the held row), else interior point from scratch. At L, after
    the service LP's plan rounded down, the primal simplex ended ``kUnknown`` (no
    answer) where interior point solved the same LP in about 1 s."""
    if one.lp(deadline, "simplex", PRIMAL_SIMPLEX):
        return True
    log.info(
        "lexicographic lp-first: primal simplex %s; interior point", one.highs.getModelStatus()
    )
    return one.lp(deadline, "ipm")


def fix(one: Instance, warm: Warm, up: bool) -> np.ndarray:
    """The integer columns fixed at ``warm``'s values rounded (``up`` or down), the
    basis set back to ``warm``'s; returns those whole values."""
    ints = one.bridge.integers
    one.restore(warm)
    whole = one.round(warm[0], up)
    one.highs.changeColsBounds(len(ints), ints, whole, whole)
    return whole


def fixed(
    one: Instance,
    whole: np.ndarray,
    service_lp: float,
    deadline: float | None,
    keep: bool = False,
) -> tuple[float, float, list[float]] | None:
    """The integer columns fixed at ``whole`` (a rounding's or a MILP's plan): the
    service LP (s_R), then the cost LP with the service held at ``cap(s*)`` when the
    plan keeps the service LP's s*, at ``cap(s_R)`` otherwise: (s_R, cost, column
    values), or None when the fixed plan has no LP solution (``keep``: or does not
    keep s*). Leaves the integer columns fixed and the objective the cost."""
    highs, ints = one.highs, one.bridge.integers
    highs.changeColsBounds(len(ints), ints, whole, whole)
    one.serve_all(False)
    one.hold(np.inf)
    one.objective("service")
    done = one.lp(deadline)
    service_value = one.value()  # before the objective changes (that clears it)
    one.objective("cost")
    kept = service_value <= cap(service_lp)
    if not done or (keep and not kept):
        return None
    one.serve_all(kept and service_lp <= SERVICE_ABSOLUTE)  # all served: no slack at all
    one.hold(cap(service_lp) if kept else cap(service_value))
    if cost_lp(one, deadline):
        return service_value, one.value(), list(highs.getSolution().col_value)
    return None


def more_service(
    one: Instance,
    plan: tuple[float, float, list[float]],
    service_lp: float,
    service_gap: float,
    deadline: float | None,
) -> tuple[float, float, float, list[float]]:
    """Step 3b: the rounded plan leaves more unserved than the service LP; the service
    MILP (row free) runs from it for :data:`SERVICE_MILP_SHARE` of the time left, to
    ``service_gap``. Its best
    plan's whole decisions are then fixed and the cost LP solved with the row at its
    service: (service, service bound, cost, column values). The rounded plan is kept
    when the MILP finds nothing better."""
    highs, bridge = one.highs, one.bridge
    service_value, objective, values = plan
    now = time.perf_counter()
    half = None if deadline is None else now + (deadline - now) * SERVICE_MILP_SHARE
    hs.set_integrality(bridge, True)
    one.serve_all(False)
    one.hold(np.inf)
    one.objective("service")
    start = hs.highspy().HighsSolution()
    start.col_value = one.padded(values)
    highs.setSolution(start)
    gap_before = float(highs.getOptionValue("mip_rel_gap")[1])
    hs.run(bridge, replace(one.options, mip_gap=service_gap), half)
    highs.setOptionValue("mip_rel_gap", gap_before)
    milp = np.asarray(highs.getSolution().col_value)
    info = highs.getInfo()
    bound = service_lp
    if one.exact and info.mip_node_count >= 0 and np.isfinite(info.mip_dual_bound):
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
    one.objective("cost")
    if not better:
        return service_value, bound, objective, values
    ints = bridge.integers
    better_plan = fixed(one, np.round(milp[ints]), service_lp, deadline)
    highs.changeColsBounds(len(ints), ints, bridge.lower[ints], bridge.upper[ints])
    if better_plan is None or better_plan[0] >= service_value:
        return service_value, bound, objective, values
    return better_plan[0], bound, better_plan[1], better_plan[2]
