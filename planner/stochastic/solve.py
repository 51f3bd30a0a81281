"""``planner stochastic``: the two-stage plan of a scenario's ``uncertainty:`` tree, and
what it is worth.

1. **Here and now** (RP): the deterministic equivalent (:mod:`.equivalent`) in one HiGHS
   instance — the most expected service, then the least expected (risk-weighted) cost
   — gives the first-stage decisions (``method="equivalent"``); or progressive hedging
   (:mod:`.hedging`, ``method="hedging"``), one future at a time on the local process
   pool or Dask, with a lower bound and a gap (its cost stage: each future's service
   held at its own best). ``"auto"``: hedging when the equivalent would have more than
   :data:`AUTO_COLUMNS` columns and no CVaR weight, else the equivalent. Each future's
   plan is then that future solved with the first stage fixed
   (:class:`planner.optimize.foresight.Fixed`): its recourse is optimal for it given the
   first stage (with CVaR it can only cost less than the equivalent's recourse), and it
   is a full Plan the checker verifies.
2. **Wait and see** (WS): each future solved alone, knowing it. EVPI = RP − WS on
   expected NPV cost (≥ 0 up to the solves' gaps when both serve alike).
3. **Mean value** (EV): the mean-value future (:mod:`.mean_value`) solved alone; its
   first stage fixed in every future gives EEV. VSS = EEV − RP.

Expected service is compared first (the plans are lexicographic): a plan serving less
expected demand is not "cheaper"; the figures say both.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError

from planner.analysis.executors import ExecutorChoice
from planner.errors import InputError, Problem, SolverError
from planner.optimize import build_data
from planner.optimize.extract import Solution
from planner.optimize.foresight import DECISIONS, Fixed, decided_in
from planner.optimize.recipe import min_cost
from planner.optimize.rows import build_rows
from planner.optimize.solvers.lexicographic import solve_problem
from planner.optimize.stages import SERVICE_GAP
from planner.pipeline import plan, solver_options, throughput
from planner.results import Plan
from planner.scenario.futures import future_document, future_scenarios
from planner.scenario.schema import Scenario
from planner.stochastic.equivalent import equivalent, first_stage
from planner.stochastic.hedging import ITERATIONS, hedge
from planner.stochastic.mean_value import mean_future

log = logging.getLogger("planner.stochastic")

Decided = dict[str, dict[Any, float]]

METHODS = ("equivalent", "hedging", "auto")
AUTO_COLUMNS = 2_000_000
"""``method="auto"`` decomposes a tree whose equivalent would have more columns."""


@dataclass
class FuturePlan:
    name: str
    probability: float
    scenario: Scenario
    plan: Plan
    wait_and_see: Plan | None = None
    mean_value: Plan | None = None
    mean_value_dropped: int = 0
    """First-stage decisions of the mean-value plan this future cannot take (a part not
    yet available in it): left out when that first stage is fixed here."""


@dataclass
class Stochastic:
    """The two-stage plan: the first stage, each future's plan, and the solve's figures."""

    scenario: Scenario
    first_stage: Decided
    futures: list[FuturePlan]
    equivalent: dict[str, Any] = field(default_factory=dict)
    """The equivalent's size and solve: columns, rows, status, gaps, seconds."""
    hedging: dict[str, Any] = field(default_factory=dict)
    """Progressive hedging's figures (:mod:`.hedging`): iterations, bound, gap, …"""
    mean_value_first_stage: Decided | None = None


def _decided(values: Any, shared: dict[tuple[str, Any], list[int]]) -> Decided:
    out: Decided = {family: {} for family in DECISIONS}
    for (family, key), columns in shared.items():
        out[family][key] = float(round(values[columns[0]], 9))
    return out


def _from_solution(solution: Solution) -> Decided:
    return {family: dict(getattr(solution, family)) for family in DECISIONS}


def solve_tree(
    scenario: Scenario,
    *,
    time_limit_s: float | None = None,
    values: bool = True,
    method: str = "equivalent",
    executor: ExecutorChoice | None = None,
    iterations: int = ITERATIONS,
) -> Stochastic:
    """The two-stage plan of ``scenario`` (module docstring); ``values=False`` skips the
    wait-and-see and mean-value solves (EVPI and VSS). ``executor`` runs hedging's
    subproblems (default: the local process pool)."""
    tree = scenario.uncertainty
    if tree is None:
        raise SolverError(f"{scenario.name!r} has no uncertainty: section; use planner run")
    if method == "hedging" and tree.risk.weight > 0:
        raise InputError(
            scenario.name,
            Problem(
                path="uncertainty.risk.weight",
                message="progressive hedging plans the expected cost; CVaR couples "
                "the futures' costs",
                hint="use --method equivalent, or risk.weight: 0",
            ),
        )
    through = tree.first_stage_through
    futures = future_scenarios(scenario)
    started = time.perf_counter()
    built = []
    tables = {}
    for future, sub in futures:
        tables[future.name] = throughput(sub)
        data = build_data(sub, *tables[future.name])
        built.append((future.name, future.probability, data, build_rows(data)))
    if method == "auto":
        columns = sum(rows.column_count for *_, rows in built)
        method = "hedging" if columns > AUTO_COLUMNS and tree.risk.weight == 0 else "equivalent"
    options = solver_options(scenario, time_limit_s=time_limit_s, strategy="lp-first")
    summary: dict[str, Any] = {}
    hedged: dict[str, Any] = {}
    if method == "hedging":
        found = hedge(built, through, options, executor or ExecutorChoice(), iterations)
        first = _by_family(found.first)
        hedged = found.figures
    else:
        first, summary = _equivalent(scenario, built, through, options, started)
    fixed = Fixed(first, through)
    out = []
    for future, sub in futures:
        own = plan(sub, extend=fixed, duals=False, tables=tables[future.name])
        out.append(FuturePlan(future.name, future.probability, sub, own))
    result = Stochastic(scenario, first, out, summary, hedging=hedged)
    if values:
        takes = {name: set(first_stage(data, rows, through)) for name, _, data, rows in built}
        _values(result, tables, options, takes)
    return result


def _by_family(values: dict[tuple[str, Any], float]) -> Decided:
    out: Decided = {family: {} for family in DECISIONS}
    for (family, key), value in values.items():
        out[family][key] = value
    return out


def _equivalent(
    scenario: Scenario, built: list[Any], through: int, options: Any, started: float
) -> tuple[Decided, dict[str, Any]]:
    """The first stage by the deterministic equivalent, and its size and solve."""
    tree = scenario.uncertainty
    assert tree is not None
    eq = equivalent(built, through, tree.risk)
    found = solve_problem(eq.problem, options, service_gap=SERVICE_GAP)
    if found is None or found.values is None:
        raise SolverError(f"the two-stage plan of {scenario.name!r} found no plan")
    return _decided(found.values, eq.shared), {
        "method": "equivalent",
        "columns": len(eq.problem.arrays.col_lower),
        "rows": len(eq.problem.arrays.row_lower),
        "first_stage_decisions": len(eq.shared),
        "held_at_zero": len(eq.zeroed),
        "status": found.cost.status.value,
        "cost_gap": found.cost.gap,
        "service_status": found.service.status.value,
        "seconds": time.perf_counter() - started,
    }


def _values(
    result: Stochastic,
    tables: dict[str, Any],
    options: Any,
    takes: dict[str, set[tuple[str, Any]]],
) -> None:
    """Wait-and-see plans, and the mean-value plan's first stage in every future
    (``takes``: each future's first-stage decisions, to count what it cannot take)."""
    scenario = result.scenario
    tree = scenario.uncertainty
    assert tree is not None
    for f in result.futures:
        f.wait_and_see = plan(f.scenario, duals=False, tables=tables[f.name])
    mean = mean_future(scenario)
    try:
        doc = future_document(scenario, mean, "mean-value")
        doc["name"] = f"{scenario.name}/mean-value"
        ev = Scenario.model_validate(doc)
    except (InputError, ValidationError) as exc:
        log.warning("the mean-value future is no valid scenario (%s): no VSS", exc)
        return
    data = build_data(ev, *throughput(ev))
    own = replace(options, strategy=ev.solver.strategy, time_limit_s=ev.solver.time_limit_s)
    _, solution, _, _ = min_cost(data, own)  # a plan of its own: the scenario's limit
    if solution is None:
        log.warning("the mean-value future found no plan: no VSS")
        return
    decided = _from_solution(solution)
    result.mean_value_first_stage = decided
    through = tree.first_stage_through
    fixed = Fixed(decided, through)
    year_of = {p.label: p.year for p in data.periods}
    taken = {
        (family, key)
        for family, by_key in decided.items()
        for key, value in by_key.items()
        if abs(value) > 1e-9 and year_of[decided_in(data, family, key)] <= through
    }
    for f in result.futures:
        f.mean_value = plan(f.scenario, extend=fixed, duals=False, tables=tables[f.name])
        f.mean_value_dropped = len(taken - takes[f.name])
