"""Myopic foresight (``solver.foresight: myopic``): a rolling horizon.

With window W and step S years (``solver.window_years``, ``solver.step_years``) and a
horizon of years y0 … yN, rolling solve k (k = 0, 1, …) sees the years

    y0 … min(c_k + W − 1, yN),   c_k = y0 + k · S

with every commitment of the years before c_k fixed by the earlier solves, and fixes
the decisions of the years c_k … c_k + S − 1 (all the remaining years once its window
reaches yN). The decisions fixed are the commitments a planner cannot undo later
(:data:`DECISIONS`): purchases ``buy`` (by order period: an order placed in a fixed
year is fixed, whenever it is delivered; a window never orders for a delivery past
what it sees), existing units kept (so retirements)
``kept``, committed rentals ``commit``, datacenter blocks ``dc_build`` and leases
``dc_lease``, and early sales ``sell`` and ``sell_existing`` (``finance.sell_early``);
rentals by the hour, training placement and serving stay free.

Each truncated solve is the scenario with its horizon cut at the window's end, so its
objective values the units still alive there by the scenario's own horizon-end
convention (``finance.horizon_end``, :mod:`planner.economics.horizon_end`) at the
window's end: a window does not see the horizon end as free (nor as a write-off).
Training runs whose window ends after the cut are left to a later solve. Finally
the pipeline solves the whole horizon with every decision fixed (:class:`Fixed`), so
the Plan, NPV, checker and workbook cover the horizon exactly as a perfect-foresight
plan does. With W ≥ the horizon the first solve sees everything and the plan is the
perfect-foresight plan.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.extract import Solution
from planner.optimize.roles import families
from planner.scenario.schema import Scenario

log = logging.getLogger("planner.optimize")

DECISIONS = families(foresight_fixes=True)
"""Variable families a rolling step fixes (the commitments of
:data:`planner.optimize.roles.ROLES`); the period is the last element of each index."""

Decided = dict[str, dict[Any, float]]
"""Family → index → value fixed (zeros included for the decided years)."""

WindowSolve = Callable[[Scenario, "Fixed"], tuple[ModelData, Solution | None]]
"""Build and solve a truncated scenario with ``Fixed`` applied; its data and plan."""


@dataclass(frozen=True)
class Fixed:
    """A model hook: fix every decision named in ``values`` to its value.

    ``var[key] = values[family][key]`` for every family in :data:`DECISIONS` and every
    key present in the built model (a key of a year after the model's horizon is
    skipped; a key of a decided year not named is 0, given by ``through_year``)."""

    values: Mapping[str, Mapping[Any, float]] = field(default_factory=dict)
    through_year: int | None = None
    """Decisions of years up to and including this one are fixed (0 where not named)."""

    def __call__(self, model: pyo.ConcreteModel, data: ModelData) -> None:
        if self.through_year is None:
            return
        year_of = {p.label: p.year for p in data.periods}
        for family in DECISIONS:
            given = self.values.get(family, {})
            for key, var in getattr(model, family).items():
                if year_of[decided_in(data, family, key)] <= self.through_year:
                    var.fix(float(given.get(key, 0.0)))


def _period(key: Any) -> Any:
    return key[-1] if isinstance(key, tuple) else key


def decided_in(data: ModelData, family: str, key: Any) -> Any:
    """The period a decision is taken: a purchase's order period (a lead time before its
    delivery), a datacenter block's paid period (construction starts a build lead time
    before it powers on), else the period its key ends with."""
    if family == "buy":
        h, _, v = key
        return data.order_period(h, v)
    if family == "dc_build":
        return data.dc_build_paid_period.get(key, _period(key))
    return _period(key)


def describe(scenario: Scenario) -> str:
    """The foresight convention in words, e.g. ``myopic, 2-year window, 1-year steps``."""
    s = scenario.solver
    if s.foresight == "perfect":
        return "perfect foresight"
    return f"myopic, {s.window_years}-year window, {s.step_years}-year steps"


def truncated(scenario: Scenario, end_year: int) -> Scenario:
    """``scenario`` with its horizon cut after ``end_year`` and the training runs whose
    window ends later left out (year-indexed inputs past the cut are simply not read)."""
    horizon = scenario.horizon
    years = end_year - horizon.start + 1
    if years >= horizon.years:
        return scenario
    runs = [r for r in scenario.training if r.window[1] <= end_year]
    return scenario.model_copy(
        update={"horizon": horizon.model_copy(update={"years": years}), "training": runs}
    )


def truncated_tables(
    tables: tuple[pd.DataFrame, pd.DataFrame], scenario: Scenario
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The perf tables restricted to ``scenario``'s training runs."""
    inference, training = tables
    runs = {r.name for r in scenario.training}
    if "run" in training.columns:
        training = training[training["run"].isin(runs)]
    return inference, training


def roll(scenario: Scenario, solve_window: WindowSolve) -> tuple[Fixed, list[dict[str, Any]]]:
    """Run the rolling solves; return the hook fixing every decision of the horizon and
    one record per solve (years seen, years fixed, its NPV cost in USD)."""
    s, horizon = scenario.solver, scenario.horizon
    decided: Decided = {family: {} for family in DECISIONS}
    fixed = Fixed(decided, None)
    steps: list[dict[str, Any]] = []
    cut = horizon.start
    while cut <= horizon.end:
        seen_to = min(cut + s.window_years - 1, horizon.end)
        fix_to = horizon.end if seen_to == horizon.end else cut + s.step_years - 1
        data, solution = solve_window(truncated(scenario, seen_to), fixed)
        if solution is None:
            raise_no_plan(scenario, cut, seen_to)
        assert solution is not None
        year_of = {p.label: p.year for p in data.periods}
        for family in DECISIONS:
            found = getattr(solution, family)
            for key in _keys(data, family):
                if cut <= year_of[decided_in(data, family, key)] <= fix_to:
                    decided[family][key] = float(found.get(key, 0.0))
        fixed = Fixed(decided, fix_to)
        steps.append({"seen": (cut, seen_to), "fixed": (cut, fix_to), "npv_usd": solution.cost_usd})
        log.info("myopic solve: saw %d-%d, fixed %d-%d", cut, seen_to, cut, fix_to)
        cut = fix_to + 1
    return fixed, steps


def _keys(data: ModelData, family: str) -> Any:
    index = {
        "buy": data.buy_index,
        "kept": data.existing_index,
        "commit": data.commit_index,
        "dc_build": data.dc_build_index,
        "dc_lease": data.dc_lease_index,
        "sell": data.sell_index,
        "sell_existing": data.sell_existing_index,
    }
    return index[family]


def raise_no_plan(scenario: Scenario, cut: int, seen_to: int) -> None:
    """A rolling solve found no plan: say which window."""
    from planner.errors import SolverError

    raise SolverError(
        f"myopic solve of {scenario.name!r} seeing {cut}-{seen_to} found no plan; "
        "try a longer solver.window_years or --time-limit"
    )
