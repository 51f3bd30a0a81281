"""The solve recipe of ``objective: min_cost`` and ``max_profit``: which way a plan is
reached, decided in one place.

``min_cost`` is lexicographic (serve the most, then cost the least); its paths
(:class:`planner.optimize.paths.SolvePath`, the headline's ``service_path``):

=====================  ==================================================================
path                   when
=====================  ==================================================================
one HiGHS instance     ``lp-first`` (``auto`` from 20,000 variables) with the default HiGHS
                       and something to serve: :func:`solve_problem` (service LP, cost LP
                       with it held, rounding, service MILP, cost MILP; column generation
                       on large models), on the array model (:mod:`.rows`), or on the
                       Pyomo model when a build hook edits it; when it ends without a
                       plan, the rows below in the time left
one stage              otherwise, first: every unmet slack held at 0; a plan is the
                       lexicographic optimum
two stages             the service stage, then the cost stage with its service held; after
                       the one stage ended without a plan, ``two stages, after serving
                       everything found no plan`` (its ``lost_seconds`` in the headline)
=====================  ==================================================================

``max_profit`` (:mod:`planner.optimize.profit`) serves its must-serve work first the
same way, then maximises profit with it held; one solve when all work is priced.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from planner import deadline
from planner.optimize.assignments import held_back
from planner.optimize.data import ModelData
from planner.optimize.extract import Solution, extract
from planner.optimize.mga import ModelHook
from planner.optimize.model import build_model, model_size
from planner.optimize.objective import (
    CostWithServiceHeld,
    ServiceFirst,
    npv_cost,
    service_coefficients,
    service_scale,
)
from planner.optimize.paths import ALL_SERVED, SolvePath
from planner.optimize.profit import (
    MustServeFirst,
    ProfitWithServiceHeld,
    has_must_serve,
    must_serve_scale,
)
from planner.optimize.row_problem import row_problem, solution_of
from planner.optimize.rows import build_rows
from planner.optimize.solve import solve
from planner.optimize.solvers.instance import pyomo_problem
from planner.optimize.solvers.lexicographic import solve_problem
from planner.optimize.solvers.types import (
    DEFAULT_SOLVER,
    SolveResult,
    SolverOptions,
    SolveStatus,
)
from planner.optimize.strategy import resolve, round_plan

log = logging.getLogger("planner.pipeline")

ARRAY_MODEL = True
"""The one-instance solve builds the array model (:mod:`planner.optimize.rows`) instead
of a Pyomo model when no build hook is given (hooks edit Pyomo models)."""
SERVICE_GAP = 1e-6
"""Relative MIP gap of the service stage of ``objective: min_cost``: the plan leaves at
most this share more demand unserved than the limits force."""


def build_and_solve(
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str] = (),
    *,
    extend: ModelHook | None = None,
) -> tuple[SolveResult, Solution | None, dict[str, Any]]:
    """Build, solve and extract ``data``; time each step and log them with the model's size.

    ``extend(model, data)`` runs on the built model before it is solved (extra rows,
    another objective). The figures returned: ``build_seconds`` (ModelData → model,
    with ``extend``), the model's size, ``handoff_seconds`` (model → the solver's own
    model), ``solver_seconds`` (the solver's runs; with ``lp-first`` the LP
    relaxation's and the rounded plan's too), ``load_seconds`` and ``extract_seconds``
    (solution → plain dicts).

    Within a run's :class:`planner.deadline.Deadline` the solver gets the time left.
    """
    deadline.check("the model build")
    started = time.perf_counter()
    model = build_model(data)
    if extend is not None:
        extend(model, data)
    build_seconds = time.perf_counter() - started
    size = model_size(model)
    log.info(
        "built %s model in %.3f s: %d variables (%d integer), %d constraints",
        "LP" if data.relax else "MILP",
        build_seconds,
        size["variables"],
        size["integer_variables"],
        size["constraints"],
    )
    strategy = resolve(options.strategy, options.name, size["variables"], data.relax)
    lp_first = strategy == "lp-first"
    deadline.check("the hand-off to the solver")
    left = deadline.remaining()
    if left is not None and (options.time_limit_s is None or left < options.time_limit_s):
        options = replace(options, time_limit_s=left)
    result = solve(
        model,
        replace(options, strategy=strategy),
        duals=duals,
        rounding=round_plan if lp_first else None,
    )
    started = time.perf_counter()
    solution = extract(model, data) if result.status.has_solution else None
    timings = {
        "build_seconds": build_seconds,
        "handoff_seconds": result.handoff_seconds,
        "solver_seconds": result.solver_seconds,
        "load_seconds": result.load_seconds,
        "extract_seconds": time.perf_counter() - started,
        "nonzeros": result.nonzeros,
        "strategy": strategy,
    }
    return result, solution, {**timings, **size}


def both(first: ModelHook, then: ModelHook | None) -> ModelHook:
    """``first``, then ``then`` (when given), on the same built model."""
    if then is None:
        return first

    def hook(model: Any, data: ModelData) -> None:
        first(model, data)
        then(model, data)

    return hook


def min_cost(
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str] = (),
    extend: ModelHook | None = None,
    *,
    serve_all_first: bool = True,
    one_instance: bool = True,
) -> tuple[SolveResult, Solution | None, dict[str, Any], SolveResult]:
    """``objective: min_cost``, lexicographically: serve the most, then cost the least.

    Under ``lp-first`` (``one_instance``, the default) both stages run in one HiGHS
    instance (:func:`_one_instance`); steps 0–2 below are the way otherwise, and when
    that solve finds no plan.

    0. Everything served (``serve_all_first``, the default): minimise the NPV cost with
       every unmet slack at 0 (:class:`CostWithServiceHeld` of 0). When that model has
       a plan, no plan serves more (an unserved share of 0 is the least there is), so
       it is the lexicographic optimum and its gap is the gap on cost: one solve, no
       service stage. The attempt gets at most half the time available; when it ends
       without a plan (proved infeasible, or undecided at its limit), the time spent is
       lost and the two stages below share the time left.
    1. Service: minimise the priority-weighted unserved share
       (:func:`planner.optimize.objective.service_coefficients`), to a gap of
       :data:`SERVICE_GAP`, in at most half the time left.
    2. Cost: minimise the NPV cost (no penalties) with the unserved share held at the
       service stage's value (:class:`CostWithServiceHeld`); its gap is the gap on cost.

    ``extend`` adds its rows to every stage (e.g. purchases fixed by an analysis).
    Returns the cost stage's result, solution and size, and the service stage's result
    (after step 0, :func:`all_served`, whose termination is :data:`ALL_SERVED`). The
    size carries ``service_path``: which of the two ways the plan was made, and
    ``lost_seconds``: the time step 0 took when it proved infeasible (else None).
    When the cost stage ends without a plan, the service stage's plan is returned with
    status ``feasible`` (its cost not minimised).
    """
    tried = None
    together = _one_instance(data, options, duals, extend) if one_instance else None
    if together is not None:
        return together
    if serve_all_first:
        available = _time_available(options)
        attempt = replace(options, time_limit_s=None if available is None else available / 2)
        started = time.perf_counter()
        result, solution, size = build_and_solve(
            data, attempt, duals, extend=both(CostWithServiceHeld(0.0), extend)
        )
        if solution is not None:
            one = {**size, "service_path": SolvePath.ONE_STAGE, "lost_seconds": None}
            return result, solution, one, all_served(options)
        tried = time.perf_counter() - started
        if available is not None:  # the two stages share what the attempt left
            options = replace(options, time_limit_s=max(available - tried, 1.0))
        why = "proved infeasible" if result.status == SolveStatus.INFEASIBLE else "undecided"
        log.info("serving everything %s in %.1f s: two stages", why, tried)
    result, solution, size, service = _two_stages(
        data,
        options,
        duals,
        ServiceFirst(),
        lambda unserved, first: CostWithServiceHeld(unserved, start=first),
        service_scale,
        extend,
    )
    path = SolvePath.TWO_STAGES if tried is None else SolvePath.TWO_STAGES_AFTER
    return result, solution, {**size, "service_path": path, "lost_seconds": tried}, service


def _one_instance(
    data: ModelData, options: SolverOptions, duals: Sequence[str], extend: ModelHook | None
) -> tuple[SolveResult, Solution | None, dict[str, Any], SolveResult] | None:
    """Both stages in one HiGHS instance when the model is solved ``lp-first``
    (:mod:`planner.optimize.solvers.lexicographic`): one build and hand-off, the cost LP
    warm from the service LP, and no attempt at serving everything (the service LP
    says whether it can be done). None when the model is not solved that way, or when
    that solve ends without a plan (the two stages then run in the time left)."""
    if data.relax or options.name != DEFAULT_SOLVER or options.strategy == "direct":
        return None
    if not any(service_coefficients(data).values()):
        return None  # nothing to serve: the ordinary path
    deadline.check("the model build")
    started = time.perf_counter()
    rows = model = None
    if extend is None and ARRAY_MODEL:  # the array model: no Pyomo (hooks need Pyomo)
        rows = build_rows(data)
        size = {
            "variables": rows.column_count,
            "integer_variables": int(sum(rows.integer)),
            "constraints": len(rows.row_lower),
        }
        problem = row_problem(rows, data)
    else:
        model = build_model(data)
        both(ServiceFirst(), extend)(model, data)
        size = model_size(model)
        problem = pyomo_problem(model, npv_cost(model, data), round_plan, held_back(model, data))
    build_seconds = time.perf_counter() - started
    if resolve(options.strategy, options.name, size["variables"], data.relax) != "lp-first":
        return None
    log.info(
        "built MILP in %.3f s: %d variables (%d integer), %d constraints; both stages in "
        "one HiGHS instance",
        build_seconds,
        size["variables"],
        size["integer_variables"],
        size["constraints"],
    )
    deadline.check("the hand-off to the solver")
    left = _time_available(options)
    found = solve_problem(
        problem,
        replace(options, strategy="lp-first", time_limit_s=left),
        duals,
        service_gap=SERVICE_GAP,
    )
    if found is None:
        left = _time_available(options)
        if left is not None and left < 1.0:  # no time for the two stages either
            log.warning("one HiGHS instance found no plan in the time limit")
            stop = (SolveStatus.NO_SOLUTION, "maxTimeLimit", None, None, 0.0, options.name)
            none = SolveResult(*stop)
            path = {"service_path": SolvePath.ONE_INSTANCE, "lost_seconds": None}
            spent = {"build_seconds": build_seconds, "handoff_seconds": None}
            return none, None, {**spent, "strategy": "lp-first", **size, **path}, none
        log.warning("one HiGHS instance found no plan: the two stages in the time left")
        return None
    started = time.perf_counter()
    if rows is not None:
        assert found.values is not None
        solution = solution_of(rows, data, found.values)
    else:
        solution = extract(model, data)  # the plan is loaded into the model
    seconds = (found.cost.solver_seconds or 0.0) + (found.cost.handoff_seconds or 0.0)
    cost = replace(found.cost, seconds=seconds)
    timings = {
        "build_seconds": build_seconds,
        "handoff_seconds": found.cost.handoff_seconds,
        "solver_seconds": found.cost.solver_seconds,
        "load_seconds": found.cost.load_seconds,
        "extract_seconds": time.perf_counter() - started,
        "nonzeros": found.cost.nonzeros,
        "strategy": "lp-first",
        "service_path": SolvePath.ONE_INSTANCE,
        "lost_seconds": None,
        **found.columns,
    }
    return cost, solution, {**timings, **size}, found.service


def all_served(options: SolverOptions) -> SolveResult:
    """The service stage's result when none was needed: everything is served, so the
    weighted unserved share is 0, its proven minimum (no solve, no seconds). Its
    termination, :data:`ALL_SERVED`, becomes the headline's
    ``service_status``."""
    return SolveResult(SolveStatus.OPTIMAL, ALL_SERVED, 0.0, 0.0, 0.0, options.name)


def max_profit(
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str] = (),
    extend: ModelHook | None = None,
) -> tuple[SolveResult, Solution | None, dict[str, Any], SolveResult]:
    """``objective: max_profit`` (:mod:`planner.optimize.profit`): the must-serve work
    first, as :func:`min_cost` serves all work, then NPV cost + lost revenue with it held;
    one solve when all work is priced. Returns as :func:`min_cost` does (``extend`` too)."""
    if not has_must_serve(data):
        result, solution, size = build_and_solve(
            data, options, duals, extend=both(ProfitWithServiceHeld(), extend)
        )
        return result, solution, size, result
    return _two_stages(
        data,
        options,
        duals,
        MustServeFirst(),
        lambda unserved, _first: ProfitWithServiceHeld(unserved),
        must_serve_scale,
        extend,
    )


def _time_available(options: SolverOptions) -> float | None:
    """Seconds the solves may still take: the time limit or the run's deadline, the
    smaller (None: no limit)."""
    limits = [x for x in (deadline.remaining(), options.time_limit_s) if x is not None]
    return min(limits) if limits else None


def _two_stages(
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str],
    first_stage: ModelHook,
    held_stage: Callable[[float, Solution | None], ModelHook],
    scale: Callable[[ModelData], float],
    extend: ModelHook | None = None,
) -> tuple[SolveResult, Solution | None, dict[str, Any], SolveResult]:
    """Service stage ``first_stage``, then ``held_stage(its objective, its plan)``; ``extend``
    adds its rows to both."""
    available = _time_available(options)
    service_options = replace(
        options,
        mip_gap=SERVICE_GAP,
        time_limit_s=None if available is None else available / 2,
    )
    service, first, size = build_and_solve(data, service_options, extend=both(first_stage, extend))
    if first is None or service.objective is None:
        return service, None, size, service
    log.info(
        "service stage: weighted unserved share %.6g (%s); optimising with it held",
        service.objective / scale(data),
        service.status.value,
    )
    held = held_stage(max(service.objective, 0.0), first)
    result, solution, size = build_and_solve(data, options, duals, extend=both(held, extend))
    if solution is None:
        log.warning("the second stage found no plan: keeping the service stage's plan")
        fallback = replace(service, status=SolveStatus.FEASIBLE, objective=None, bound=None)
        return fallback, first, size, service
    return result, solution, size, service


def lexicographic_status(service: SolveResult, cost: SolveResult) -> SolveStatus:
    """``optimal`` only when both stages are proven optimal (within their gaps): a plan
    whose service stage stopped early may leave avoidable demand unserved."""
    if service.status == SolveStatus.OPTIMAL and cost.status == SolveStatus.OPTIMAL:
        return SolveStatus.OPTIMAL
    return SolveStatus.FEASIBLE if cost.status.has_solution else cost.status


def service_headline(service: SolveResult, cost: SolveResult, scale: float) -> dict[str, Any]:
    """The headline's words on the objective: ``min_cost`` solved lexicographically, the
    service stage's outcome, and that the penalties are outside the objective."""
    return {
        "status": lexicographic_status(service, cost).value,
        "objective": "min_cost",
        "objective_usd_is": "NPV cost (penalties excluded), service held at its maximum",
        "penalties_in_objective": False,
        "service_status": ALL_SERVED if service.termination == ALL_SERVED else service.status.value,
        "service_gap": service.gap,
        "weighted_unserved_share": None if service.objective is None else service.objective / scale,
        "service_solve_seconds": service.seconds,
    }
