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
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from planner import deadline
from planner.deadline import Deadline, TimeLimitError
from planner.errors import InputError, SolverError
from planner.follow_ups import MARGINALS, RELIEF, SHADOW_PRICES, FollowUps, time_is_up
from planner.marginals import finite_differences
from planner.optimize import (
    ModelData,
    ModelHook,
    Solution,
    SolveResult,
    SolverOptions,
    build_data,
    check_size,
    foresight,
)
from planner.optimize.objective import service_scale
from planner.optimize.paths import SolvePath
from planner.optimize.profit import objective_headline
from planner.optimize.pyomo_stage import both, build_and_solve
from planner.optimize.recipe import (
    all_served,
    lexicographic_status,
    max_profit,
    min_cost,
    service_headline,
)
from planner.optimize.relaxations import DUAL_ROWS, lp_duals, lp_min_cost
from planner.optimize.stages import SERVICE_GAP
from planner.relief import relief_tables
from planner.results import Plan, build_plan
from planner.results.diagnosis import with_relief
from planner.scenario.checks import check_scenario
from planner.scenario.schema import Scenario
from planner.units import USD_SCALE

log = logging.getLogger("planner.pipeline")

ONE_STAGE, TWO_STAGES, ONE_INSTANCE = (
    SolvePath.ONE_STAGE,
    SolvePath.TWO_STAGES,
    SolvePath.ONE_INSTANCE,
)

__all__ = [
    "DUAL_ROWS",
    "ONE_INSTANCE",
    "ONE_STAGE",
    "SERVICE_GAP",
    "TWO_STAGES",
    "all_served",
    "build_and_solve",
    "check",
    "headline",
    "lexicographic_status",
    "lp_duals",
    "lp_min_cost",
    "max_profit",
    "min_cost",
    "no_plan",
    "objective_and_gap",
    "plan",
    "service_headline",
    "solver_options",
    "throughput",
]

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
            scenario, lambda cut, hook: _window(cut, tables, relax, options, both(hook, extend))
        )
        extend = both(fixed, extend)
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
    started = time.perf_counter()
    relief = relief_tables(
        data, result_plan.tables, lambda lifted: lp_min_cost(lifted, options), follow
    )
    follow.seconds[RELIEF] = time.perf_counter() - started
    done = {
        **result_plan.headline,
        "follow_ups_skipped": follow.skipped,
        **{f"{key}_seconds": follow.seconds.get(name) for key, name in FOLLOW_UP_KEYS.items()},
    }
    return with_relief(data, replace(result_plan, headline=done), relief)


FOLLOW_UP_KEYS = {"shadow_prices": SHADOW_PRICES, "marginals": MARGINALS, "relief": RELIEF}
"""Headline ``<key>_seconds``: the wall-clock seconds each follow-up took (None: not run)."""


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
