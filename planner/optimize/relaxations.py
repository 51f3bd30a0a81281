"""The LPs behind a plan's follow-ups (:mod:`planner.follow_ups`): the shadow prices'
relaxation and the relief re-solves, each built and solved on its own."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any

from planner.optimize.data import ModelData
from planner.optimize.extract import Solution
from planner.optimize.profit import PricedAtRevenue
from planner.optimize.pyomo_stage import build_and_solve
from planner.optimize.recipe import lexicographic_status, min_cost
from planner.optimize.solvers.types import SolverOptions, SolveStatus

log = logging.getLogger("planner.pipeline")

DUAL_ROWS = ("power", "budget", "supply", "demand")
"""Constraint families whose LP duals are reported as shadow prices."""


def lp_duals(data: ModelData, options: SolverOptions) -> dict[str, dict[Any, float]] | None:
    """Duals of the LP relaxation (purchases and cluster choices continuous) of the
    single objective NPV cost + penalties: the shadow prices. Where demand is left
    unmet they are set by the penalty, and the Plan's table says so. Under
    ``max_profit`` priced work's slacks carry its revenue instead of the penalty
    (:class:`planner.optimize.profit.PricedAtRevenue`)."""
    relaxed = replace(data, relax=True)
    if data.objective != "max_profit" and options.name == "highs":
        return _array_duals(relaxed, options)
    priced = PricedAtRevenue() if data.objective == "max_profit" else None
    result, _, _ = build_and_solve(
        relaxed, replace(options, mip_gap=None), DUAL_ROWS, extend=priced
    )
    if result.status != SolveStatus.OPTIMAL:
        log.warning("LP relaxation ended %s: no shadow prices", result.status.value)
        return None
    return result.duals


def lp_min_cost(data: ModelData, options: SolverOptions) -> Solution | None:
    """The lexicographic (serve most, then cheapest) plan of ``data`` as an LP: the
    relief re-solves of :mod:`planner.relief`; None unless both stages are optimal.
    Straight to the two stages: relief runs only when the plan leaves demand unmet, so
    serving everything would mostly be proven infeasible, one LP lost per estimate."""
    cost, solution, _, service = min_cost(
        replace(data, relax=True), replace(options, mip_gap=None), serve_all_first=False
    )
    return solution if lexicographic_status(service, cost) == SolveStatus.OPTIMAL else None


def _array_duals(relaxed: ModelData, options: SolverOptions) -> dict[str, dict[Any, float]] | None:
    """:func:`lp_duals` on the array model (no Pyomo): the same LP, handed to HiGHS in one
    ``passModel``, its row duals read by row block."""
    from planner import deadline
    from planner.optimize.rows import build_rows
    from planner.optimize.solvers import highs as hs
    from planner.optimize.solvers.handoff import highs_model_of

    deadline.check("the model build")
    rows = build_rows(relaxed)
    bridge = highs_model_of(rows.arrays("cost"))
    if options.threads is not None:
        hs.reset_scheduler()
        bridge.highs.setOptionValue("threads", options.threads)
    left = deadline.remaining()
    limit = options.time_limit_s if left is None else min(left, options.time_limit_s or left)
    until = None if limit is None else time.perf_counter() + limit
    hs.run(bridge, replace(options, mip_gap=None), until)
    status, _ = hs.status(bridge)
    if status != SolveStatus.OPTIMAL:
        log.warning("LP relaxation ended %s: no shadow prices", status.value)
        return None
    row_dual = bridge.highs.getSolution().row_dual
    return {
        name: {key: float(row_dual[block.start + i]) for i, key in enumerate(block.keys)}
        for name, block in rows.rows.items()
        if name in DUAL_ROWS and block.keys
    }
