"""The planning pipeline: check → perf → build → solve → Plan, as separate public steps.

``plan(scenario)`` runs them all and returns a :class:`planner.results.Plan`::

    check(scenario)                               # semantic checks: InputError
    check_size(scenario)                          # refuse a model too big to build
    tables = throughput(scenario)                 # perf model (pure pandas)
    data = build_data(scenario, *tables)          # sparse sets and parameter dicts
    result, solution, size = build_and_solve(data, options)  # model, solver, plain dicts
    plan = build_plan(data, solution, ...)        # tidy tables, headline, diagnosis

It stands above :mod:`planner.optimize` (the model and the solver) and
:mod:`planner.results` (the Plan), so neither imports the other's runner. A test can
stop after any step (e.g. build a model and count its rows without solving). The build
step takes a hook (``extend``) that adds rows or another objective to the built model;
near-optimal alternatives use it (:mod:`planner.optimize.mga`).

``plan`` runs inside a :class:`planner.deadline.Deadline` of the solver's time limit
(or the caller's, if earlier): every step checks it and the solver gets what is left.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from planner import deadline
from planner.deadline import Deadline, TimeLimitError
from planner.errors import InputError, SolverError
from planner.follow_ups import MARGINALS, SHADOW_PRICES, FollowUps, time_is_up
from planner.marginals import finite_differences
from planner.optimize import (
    ModelData,
    ModelHook,
    Solution,
    SolveResult,
    SolverOptions,
    SolveStatus,
    build_data,
    build_model,
    check_size,
    extract,
    foresight,
    model_size,
    resolve,
    round_plan,
    solve,
)
from planner.optimize.objective import (
    CostWithServiceHeld,
    ServiceFirst,
    npv_cost,
    service_coefficients,
    service_scale,
)
from planner.optimize.profit import (
    MustServeFirst,
    PricedAtRevenue,
    ProfitWithServiceHeld,
    has_must_serve,
    must_serve_scale,
    objective_headline,
)
from planner.optimize.solvers.lexicographic import solve_lexicographic
from planner.optimize.solvers.types import DEFAULT_SOLVER
from planner.relief import relief_tables
from planner.results import Plan, build_plan
from planner.results.diagnosis import with_relief
from planner.results.plan import ALL_SERVED
from planner.scenario.checks import check_scenario
from planner.scenario.schema import Scenario
from planner.units import USD_SCALE

log = logging.getLogger("planner.pipeline")

DUAL_ROWS = ("power", "budget", "supply", "demand")
SERVICE_GAP = 1e-6
"""Relative MIP gap of the service stage of ``objective: min_cost``: the plan leaves at
most this share more demand unserved than the limits force."""
"""Constraint families whose LP duals are reported as shadow prices."""

Tables = tuple[pd.DataFrame, pd.DataFrame]


def check(scenario: Scenario) -> None:
    """Raise InputError when the scenario fails a semantic check.

    The calibration file is the perf model's to find (relative to the scenario file,
    which a Scenario object does not know), so its existence is not checked here.
    """
    problems = [p for p in check_scenario(scenario) if p.path != "calibration"]
    if problems:
        raise InputError(scenario.name, problems)


def throughput(scenario: Scenario, calibration_path: str | Path | None = None) -> Tables:
    """The perf model's (inference, training) throughput tables for ``scenario``.

    ``calibration_path``: a calibration file to use instead of the scenario's own
    ``calibration`` (which :func:`planner.scenario.load_scenario` has already resolved
    against the scenario's folder), or ``"none"`` for the built-in priors; with neither,
    the shipped calibration (:func:`planner.perf.efficiency.default_calibration`).
    """
    from planner.perf import throughput_tables  # the perf package is heavy; import late

    deadline.check("the perf model")
    inference, training = throughput_tables(scenario, calibration_path=calibration_path)
    return inference, training


def solver_options(
    scenario: Scenario,
    *,
    mip_gap: float | None = None,
    time_limit_s: float | None = None,
    solver: str | None = None,
    threads: int | None = None,
    strategy: str | None = None,
) -> SolverOptions:
    """Solver settings: the scenario's ``solver:`` section, overridden by any argument."""
    section = scenario.solver
    return SolverOptions(
        name=solver or section.name,
        mip_gap=section.mip_gap if mip_gap is None else mip_gap,
        time_limit_s=section.time_limit_s if time_limit_s is None else time_limit_s,
        threads=section.threads if threads is None else threads,
        strategy=strategy or section.strategy,
    )


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


def _both(first: ModelHook, then: ModelHook | None) -> ModelHook:
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
            data, attempt, duals, extend=_both(CostWithServiceHeld(0.0), extend)
        )
        if solution is not None:
            one = {**size, "service_path": ONE_STAGE, "lost_seconds": None}
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
    path = TWO_STAGES if tried is None else TWO_STAGES_AFTER.format(seconds=tried)
    return result, solution, {**size, "service_path": path, "lost_seconds": tried}, service


ONE_STAGE = "one stage: every slack held at 0, the cost minimised"
ONE_INSTANCE = "one HiGHS instance (lp-first): the service LP, the cost LP with it held, rounded"


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
    model = build_model(data)
    _both(ServiceFirst(), extend)(model, data)
    build_seconds = time.perf_counter() - started
    size = model_size(model)
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
    found = solve_lexicographic(
        model,
        npv_cost(model, data),
        replace(options, strategy="lp-first", time_limit_s=left),
        round_plan,
        duals,
        service_gap=SERVICE_GAP,
    )
    if found is None:
        left = _time_available(options)
        if left is not None and left < 1.0:  # no time for the two stages either
            log.warning("one HiGHS instance found no plan in the time limit")
            none = SolveResult(
                SolveStatus.NO_SOLUTION, "maxTimeLimit", None, None, 0.0, options.name
            )
            timings = {
                "build_seconds": build_seconds,
                "handoff_seconds": None,
                "strategy": "lp-first",
            }
            stopped = {**timings, **size, "service_path": ONE_INSTANCE, "lost_seconds": None}
            return none, None, stopped, none
        log.warning("one HiGHS instance found no plan: the two stages in the time left")
        return None
    started = time.perf_counter()
    solution = extract(model, data)
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
        "service_path": ONE_INSTANCE,
        "lost_seconds": None,
    }
    return cost, solution, {**timings, **size}, found.service


TWO_STAGES = "two stages: the most service, then the least cost with it held"
TWO_STAGES_AFTER = (
    "two stages, after serving everything found no plan ({seconds:.1f} s lost): the "
    "most service, then the least cost with it held"
)


def all_served(options: SolverOptions) -> SolveResult:
    """The service stage's result when none was needed: everything is served, so the
    weighted unserved share is 0, its proven minimum (no solve, no seconds). Its
    termination, :data:`planner.results.plan.ALL_SERVED`, becomes the headline's
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
            data, options, duals, extend=_both(ProfitWithServiceHeld(), extend)
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
    service, first, size = build_and_solve(data, service_options, extend=_both(first_stage, extend))
    if first is None or service.objective is None:
        return service, None, size, service
    log.info(
        "service stage: weighted unserved share %.6g (%s); optimising with it held",
        service.objective / scale(data),
        service.status.value,
    )
    held = held_stage(max(service.objective, 0.0), first)
    result, solution, size = build_and_solve(data, options, duals, extend=_both(held, extend))
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


def lp_duals(data: ModelData, options: SolverOptions) -> dict[str, dict[Any, float]] | None:
    """Duals of the LP relaxation (purchases and cluster choices continuous) of the
    single objective NPV cost + penalties: the shadow prices. Where demand is left
    unmet they are set by the penalty, and the Plan's table says so. Under
    ``max_profit`` priced work's slacks carry its revenue instead of the penalty
    (:class:`planner.optimize.profit.PricedAtRevenue`)."""
    relaxed = replace(data, relax=True)
    priced = PricedAtRevenue() if data.objective == "max_profit" else None
    result, _, _ = build_and_solve(
        relaxed, replace(options, mip_gap=None), DUAL_ROWS, extend=priced
    )
    if result.status != SolveStatus.OPTIMAL:
        log.warning("LP relaxation ended %s: no shadow prices", result.status.value)
        return None
    return result.duals


def headline(
    result: SolveResult,
    size: dict[str, Any],
    *,
    relax: bool,
    objective_usd: float | None = None,
) -> dict[str, Any]:
    """How the solve went, for the Plan's headline: status, objective and bound (USD),
    gap, solver, time and the model's size. ``objective_usd`` replaces the solver's
    objective (when it solved for another one, e.g. an MGA weight); the bound is then
    unknown."""
    scaled = None if result.objective is None else result.objective * USD_SCALE
    bound = None if result.bound is None else result.bound * USD_SCALE
    return {
        "status": result.status.value,
        "objective_usd": scaled if objective_usd is None else objective_usd,
        "best_bound_usd": bound if objective_usd is None else None,
        "mip_gap": result.gap,
        "solver": result.solver,
        "termination": result.termination,
        "solve_seconds": result.seconds,
        "relax": relax,
        **size,
    }


def no_plan(options: SolverOptions, scenario: Scenario, result: SolveResult) -> SolverError:
    """The error when the solver ends without a plan, with what to try.

    When the solver stopped because the run's time limit (which it was given as the time
    left) ran out, it is the run's time-limit error, naming the solve as the stage.
    """
    run = deadline.current()
    if run is not None and time_is_up():
        return TimeLimitError(run.message("the solve"))
    return SolverError(
        f"{options.name} found no plan for {scenario.name!r}: {result.status.value} "
        f"({result.termination}). Try a longer --time-limit, --strategy lp-first "
        "or --relax."
    )


def objective_and_gap(
    scenario: Scenario, tables: Tables, options: SolverOptions, relax: bool
) -> tuple[float, float]:
    """Re-solve ``scenario`` for NPV cost + penalties (as the LP shadow prices are
    priced): its objective and the gap to the bound, USD (marginals)."""
    # Priced like the LP shadow prices: NPV cost + penalties, in one solve.
    result, _, _ = build_and_solve(build_data(scenario, *tables, relax=relax), options)
    if result.objective is None:
        raise SolverError(f"re-solve for a marginal value found no plan ({result.status.value})")
    gap = abs(result.objective - (result.bound if result.bound is not None else result.objective))
    return result.objective * USD_SCALE, gap * USD_SCALE


def plan(
    scenario: Scenario,
    *,
    relax: bool = False,
    mip_gap: float | None = None,
    time_limit_s: float | None = None,
    solver: str | None = None,
    threads: int | None = None,
    strategy: str | None = None,
    marginals: Sequence[str] = (),
    tables: Tables | None = None,
    calibration_path: str | Path | None = None,
    max_nonzeros: int | None = None,
    extend: ModelHook | None = None,
    duals: bool = True,
) -> Plan:
    """Optimise ``scenario``'s fleet; raise SolverError if no plan is found.

    ``tables`` (inference, training) replaces the perf model (tests, sweeps that
    reuse them). ``marginals`` names scenario paths (e.g.
    ``sites[texas].power_cap_mw.2028``) whose exact MILP marginal value to compute by
    re-solving with the value moved. ``strategy``: ``direct`` or ``lp-first`` (see
    planner.optimize.strategy); default the scenario's ``solver.strategy``.
    ``max_nonzeros``: refuse (InputError) a model estimated above this size (default
    :data:`planner.optimize.size.DEFAULT_MAX_NONZEROS`). ``extend`` adds rows to the
    model of every stage (:func:`min_cost`); ``duals=False`` skips the shadow prices'
    LP (analyses that only read costs and purchases).

    The time limit (``time_limit_s``, else the scenario's ``solver.time_limit_s``)
    bounds the whole call — perf model, model data, build, solve, duals, marginals —
    and the earlier deadline wins when the caller has opened one (``planner run``
    opens it before loading the perf tables). Before a plan exists, TimeLimitError
    (exit 3) names the step the time ran out in; after, a plan found is a plan kept:
    the follow-ups the limit cuts (shadow prices, marginals, relief estimates; see
    :mod:`planner.follow_ups`) are skipped and named in the headline's
    ``follow_ups_skipped``.
    """
    options = solver_options(
        scenario,
        mip_gap=mip_gap,
        time_limit_s=time_limit_s,
        solver=solver,
        threads=threads,
        strategy=strategy,
    )
    limit = options.time_limit_s
    args = (scenario, options, relax, marginals, tables, calibration_path, max_nonzeros)
    if limit is None:
        return _plan(*args, extend, duals)
    with Deadline(limit):
        return _plan(*args, extend, duals)


def _plan(
    scenario: Scenario,
    options: SolverOptions,
    relax: bool,
    marginals: Sequence[str],
    tables: Tables | None,
    calibration_path: str | Path | None,
    max_nonzeros: int | None,
    extend: ModelHook | None = None,
    want_duals: bool = True,
) -> Plan:
    """:func:`plan`'s steps, inside its deadline: check → perf → build → solve → Plan."""
    check(scenario)
    check_size(scenario, max_nonzeros)
    tables = tables or throughput(scenario, calibration_path)
    deadline.check("the model data")
    data = build_data(scenario, *tables, relax=relax)
    stages = max_profit if data.objective == "max_profit" else min_cost
    steps: list[dict[str, Any]] = []
    if scenario.solver.foresight == "myopic":
        fixed, steps = foresight.roll(
            scenario, lambda cut, hook: _window(cut, tables, relax, options, _both(hook, extend))
        )
        extend = _both(fixed, extend)
    result, solution, size, service = stages(data, options, extend=extend)
    if solution is None:
        deadline.check("the solve")  # the run's limit cut the solve short
        raise no_plan(options, scenario, result)
    # Follow-ups of the plan found: each runs only while the run's time lasts, and one
    # the limit cuts is skipped and named in the headline; the plan is always kept.
    follow = FollowUps()
    # Shadow prices: duals of the LP relaxation of NPV cost + penalties (the cost stage
    # holds the service, so its own duals would not price a limit that holds demand back).
    duals = follow.run(SHADOW_PRICES, lambda: lp_duals(data, options)) if want_duals else None
    moved = None
    if marginals:
        moved = follow.run(
            MARGINALS,
            lambda: finite_differences(
                scenario,
                tables,
                marginals,
                options,
                relax=relax,
                resolve=objective_and_gap,
                tabulate=throughput,
            ),
        )
    result_plan = build_plan(
        data,
        solution,
        status=lexicographic_status(service, result).value,
        headline={
            **headline(result, size, relax=relax),
            **service_headline(service, result, service_scale(data)),
            **objective_headline(data, service),
            "foresight": foresight.describe(scenario),
            "foresight_solves": len(steps) or 1,
        },
        duals=duals,
        marginals=moved,
        throughput=tables,
    )
    relief = relief_tables(
        data, result_plan.tables, lambda lifted: lp_min_cost(lifted, options), follow
    )
    skipped = {**result_plan.headline, "follow_ups_skipped": follow.skipped}
    return with_relief(data, replace(result_plan, headline=skipped), relief)


def _window(
    scenario: Scenario,
    tables: Tables,
    relax: bool,
    options: SolverOptions,
    extend: ModelHook,
) -> tuple[ModelData, Solution | None]:
    """One rolling solve of :mod:`planner.optimize.foresight`: ``scenario`` (a truncated
    horizon) solved as the whole plan is, with the decisions so far fixed by ``extend``."""
    data = build_data(scenario, *foresight.truncated_tables(tables, scenario), relax=relax)
    stages = max_profit if data.objective == "max_profit" else min_cost
    return data, stages(data, options, extend=extend)[1]


def lp_min_cost(data: ModelData, options: SolverOptions) -> Solution | None:
    """The lexicographic (serve most, then cheapest) plan of ``data`` as an LP: the
    relief re-solves of :mod:`planner.relief`; None unless both stages are optimal.
    Straight to the two stages: relief runs only when the plan leaves demand unmet, so
    serving everything would mostly be proven infeasible, one LP lost per estimate."""
    cost, solution, _, service = min_cost(
        replace(data, relax=True), replace(options, mip_gap=None), serve_all_first=False
    )
    return solution if lexicographic_status(service, cost) == SolveStatus.OPTIMAL else None
