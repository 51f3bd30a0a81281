"""The driver of the solve recipes (:mod:`planner.optimize.stages`): ``objective:
min_cost`` and ``max_profit`` reach their plans here, the path decided in one place.

:func:`run_recipe` walks a recipe's paths in order; each path is a short list of stages
(objective, what is held, time share, MIP gap, duals, what happens on failure), the
decision table of :func:`planner.optimize.stages.recipe_table`:

- ``min_cost``: the **one HiGHS instance** (:func:`solve_problem`: service LP, cost LP
  with it held, rounding, service MILP, cost MILP; column generation on large models)
  on the array model (:mod:`.rows`), or on the Pyomo model when a build hook edits it;
  else the **one stage** (every unmet slack at 0: a plan is the lexicographic optimum);
  else, or after a path without a plan, the **two stages** (the most service, then the
  least cost with it held).
- ``max_profit`` (:mod:`planner.optimize.profit`): one solve when all work is priced,
  else the must-serve work first, then profit with it held.

The stages other than the one instance build a Pyomo model each and solve it through
:func:`planner.optimize.solve.solve` (any registered solver).
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Sequence
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
)
from planner.optimize.profit import MustServeFirst, ProfitWithServiceHeld, has_must_serve
from planner.optimize.pyomo_stage import both, build_and_solve
from planner.optimize.row_problem import row_problem, solution_of
from planner.optimize.rows import build_rows
from planner.optimize.solvers.instance import pyomo_problem
from planner.optimize.solvers.lexicographic import solve_problem
from planner.optimize.solvers.types import (
    DEFAULT_SOLVER,
    SolveResult,
    SolverOptions,
    SolveStatus,
    Termination,
)
from planner.optimize.stages import (
    MAX_PROFIT,
    MIN_COST,
    MIN_PATH_SECONDS,
    SERVICE_GAP,
    Goal,
    Held,
    OnFailure,
    Path,
    Stage,
    When,
)
from planner.optimize.strategy import resolve, round_plan

log = logging.getLogger("planner.pipeline")

ARRAY_MODEL = True
"""The one-instance solve builds the array model (:mod:`planner.optimize.rows`) instead
of a Pyomo model when no build hook is given (hooks edit Pyomo models)."""


Found = tuple[SolveResult, Solution | None, dict[str, Any], SolveResult]
"""A recipe's answer: the last stage's result, the plan, the size and timings (with
``service_path`` and ``lost_seconds``), and the service stage's result."""


def min_cost(
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str] = (),
    extend: ModelHook | None = None,
    *,
    serve_all_first: bool = True,
    one_instance: bool = True,
) -> Found:
    """``objective: min_cost``, lexicographically: serve the most, then cost the least,
    by the recipe :data:`planner.optimize.stages.MIN_COST` (:func:`run_recipe`).

    ``serve_all_first=False`` and ``one_instance=False`` leave those paths out.
    ``extend`` adds its rows to every stage (e.g. purchases fixed by an analysis). After
    the one stage, the service result is :func:`all_served` (termination
    ``Termination.ALL_SERVED``). When the cost stage ends without a plan, the service
    stage's plan is returned with status ``feasible`` (its cost not minimised).
    """
    skip = {When.SERVE_ALL_FIRST} if not serve_all_first else set()
    if not one_instance:
        skip.add(When.ONE_INSTANCE)
    return run_recipe(MIN_COST, data, options, duals, extend, frozenset(skip))


def max_profit(
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str] = (),
    extend: ModelHook | None = None,
) -> Found:
    """``objective: max_profit`` (:mod:`planner.optimize.profit`) by the recipe
    :data:`planner.optimize.stages.MAX_PROFIT`; returns as :func:`min_cost` does."""
    return run_recipe(MAX_PROFIT, data, options, duals, extend)


def run_recipe(
    recipe: tuple[Path, ...],
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str] = (),
    extend: ModelHook | None = None,
    skip: frozenset[When] = frozenset(),
) -> Found:
    """The one driver of every recipe: the first path whose condition holds runs its
    stages; when one ends without a plan and says :attr:`OnFailure.NEXT_PATH`, its
    time is lost (``lost_seconds``) and the next path whose condition holds runs in the
    time left, if at least :data:`MIN_PATH_SECONDS` of a limit is left. A path whose
    condition needs a path before it to have succeeded (``SERVE_ALL_FIRST``) is not
    taken after a failure: the one instance's service LP has already said whether
    everything can be served, and serving everything is what the one stage tries."""
    clock = _Clock(options)
    lost: float | None = None
    tried = recipe[0].name
    for path in recipe:
        if path.when in skip or not _holds(path.when, data, options, lost is not None):
            continue
        left = clock.left()
        if lost is not None and left is not None and left < MIN_PATH_SECONDS:
            log.warning("no path found a plan in the time limit")
            none = SolveResult(
                SolveStatus.NO_SOLUTION, Termination.TIME_LIMIT, None, None, 0.0, options.name
            )
            # the path that ran (and failed) names the result; the next one never ran
            return none, None, {"service_path": tried, "lost_seconds": lost}, none
        started = time.perf_counter()
        tried = path.name
        found = _run_path(path, data, options, duals, extend, clock)
        if isinstance(found, NotTaken):  # the one instance: its size says direct
            continue
        if found is not None:
            result, solution, size, service = found
            name = path.after if lost is not None and path.after is not None else path.name
            return result, solution, {**size, "service_path": name, "lost_seconds": lost}, service
        spent = time.perf_counter() - started
        lost = (lost or 0.0) + spent
        log.info("%s found no plan in %.1f s: the next path", path.name.prose, spent)
    raise AssertionError("every recipe ends with a path taken always")


class _Clock:
    """The recipe's time: the run's deadline and ``options.time_limit_s`` from now, the
    sooner."""

    def __init__(self, options: SolverOptions) -> None:
        limit = options.time_limit_s
        self.end = None if limit is None else time.perf_counter() + limit

    def left(self) -> float | None:
        """Seconds left (None: no limit)."""
        own = None if self.end is None else self.end - time.perf_counter()
        limits = [x for x in (deadline.remaining(), own) if x is not None]
        return max(min(limits), 0.0) if limits else None


def _holds(when: When, data: ModelData, options: SolverOptions, failed_before: bool) -> bool:
    if when == When.ONE_INSTANCE:
        return (
            not data.relax
            and options.name == DEFAULT_SOLVER
            and options.strategy != "direct"
            and any(service_coefficients(data).values())
        )
    if when == When.SERVE_ALL_FIRST:
        return not failed_before
    if when == When.NO_MUST_SERVE:
        return not has_must_serve(data)
    return True


def _hook(stage: Stage, before: tuple[SolveResult, Solution | None] | None) -> ModelHook:
    """The Pyomo build hook of ``stage``, given the previous stage's result and plan."""
    held = 0.0 if before is None else max(before[0].objective or 0.0, 0.0)
    first = None if before is None else before[1]
    if stage.goal == Goal.COST:
        if stage.held == Held.ALL_SERVED:
            return CostWithServiceHeld(0.0)
        return CostWithServiceHeld(held, start=first)
    if stage.goal == Goal.SERVICE:
        return ServiceFirst()
    if stage.goal == Goal.MUST_SERVE:
        return MustServeFirst()
    assert stage.goal == Goal.PROFIT
    return ProfitWithServiceHeld(held if stage.held == Held.PREVIOUS else None)


def _run_path(
    path: Path,
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str],
    extend: ModelHook | None,
    clock: _Clock,
) -> Found | NotTaken | None:
    """``path``'s stages in order; None when a stage ends without a plan and its
    failure is :attr:`OnFailure.NEXT_PATH`; :data:`NOT_TAKEN` when the one instance is
    not how this model is solved."""
    if path.stages[0].goal == Goal.LEXICOGRAPHIC:
        return _one_instance(data, options, duals, extend, clock)
    before: tuple[SolveResult, Solution | None] | None = None
    service: SolveResult | None = None
    size: dict[str, Any] = {}
    for stage in path.stages:
        left = clock.left()
        limit = None if left is None else left * (stage.time_share or 1.0)
        gap = options.mip_gap if stage.mip_gap is None else stage.mip_gap
        staged = replace(options, time_limit_s=limit, mip_gap=gap)
        hook = both(_hook(stage, before), extend)
        result, solution, size = build_and_solve(
            data, staged, duals if stage.duals else (), extend=hook
        )
        if solution is None or result.objective is None:
            if stage.on_failure == OnFailure.NEXT_PATH:
                return None
            if stage.on_failure == OnFailure.KEEP_PREVIOUS and before is not None:
                log.warning("the %s stage found no plan: keeping the plan before it", stage.goal)
                kept = replace(before[0], status=SolveStatus.FEASIBLE, objective=None, bound=None)
                return kept, before[1], size, before[0]
            return result, None, size, result
        if before is None and len(path.stages) > 1:
            log.info("%s stage: %.6g (%s)", stage.goal, result.objective, result.status.value)
            service = result
        before = (result, solution)
    assert before is not None
    if service is None:
        service = all_served(options) if path.stages[0].held == Held.ALL_SERVED else before[0]
    return before[0], before[1], size, service


class NotTaken(enum.Enum):
    """The one instance's answer when the model's size says ``direct``: no path tried."""

    NOT_TAKEN = "not taken"


NOT_TAKEN = NotTaken.NOT_TAKEN


def _one_instance(
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str],
    extend: ModelHook | None,
    clock: _Clock,
) -> Found | NotTaken | None:
    """Both stages in one HiGHS instance when the model is solved ``lp-first``
    (:mod:`planner.optimize.solvers.lexicographic`): one build and hand-off, the cost LP
    warm from the service LP, and no attempt at serving everything (the service LP
    says whether it can be done). :data:`NOT_TAKEN` when the model is not solved that
    way (its size says ``direct``); None when that solve ends without a plan."""
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
        return NOT_TAKEN
    log.info(
        "built MILP in %.3f s: %d variables (%d integer), %d constraints; both stages in "
        "one HiGHS instance",
        build_seconds,
        size["variables"],
        size["integer_variables"],
        size["constraints"],
    )
    deadline.check("the hand-off to the solver")
    found = solve_problem(
        problem,
        replace(options, strategy="lp-first", time_limit_s=clock.left()),
        duals,
        service_gap=SERVICE_GAP,
    )
    if found is None:
        log.warning("one HiGHS instance found no plan")
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
        **found.columns,
    }
    return cost, solution, {**timings, **size}, found.service


def all_served(options: SolverOptions) -> SolveResult:
    """The service stage's result when none was needed: everything is served, so the
    weighted unserved share is 0, its proven minimum (no solve, no seconds). Its
    termination, ``Termination.ALL_SERVED``, becomes the headline's ``service_status``."""
    return SolveResult(SolveStatus.OPTIMAL, Termination.ALL_SERVED, 0.0, 0.0, 0.0, options.name)


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
        "service_status": (
            Termination.ALL_SERVED
            if service.termination == Termination.ALL_SERVED
            else service.status.value
        ),
        "service_gap": service.gap,
        "weighted_unserved_share": None if service.objective is None else service.objective / scale,
        "service_solve_seconds": service.seconds,
    }
