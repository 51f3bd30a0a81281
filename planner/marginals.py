"""Exact marginal values by finite difference: re-solve with one scenario value moved.

HiGHS gives no duals for a MILP, and LP duals describe a continuous fleet. For a limit
the analyst names (``--marginal sites[texas].power_cap_mw.2028``) the MILP itself is
re-solved with the value moved up and down by a step (1% of its value; at least 1 for
whole-number fields), and the slope is reported in the shadow prices' convention:
*cost saved per +1 unit* of a limit, *cost added per +1 unit* of a demand field
(:func:`is_demand`). The edit is made by
:mod:`planner.scenario.variants`, as sweeps make theirs: a trailing year moves that
year alone (the series is first written out for every horizon year at its current
values, so interpolation and hold-forward do not spread the change), and a site field
left to the finance default is written out first. When the perf model reads the moved
field (``perf`` in :mod:`planner.scenario.meta`, e.g. ``finance.availability``, which
shortens every training window), each re-solve recomputes the throughput tables.
Inputs are per year whatever the period length, so with quarterly periods a year's
value moves all four quarters (the row's ``period`` is then empty; for yearly plans it
is the year).

All solves use a MIP gap of at most ``MARGINAL_GAP``; the remaining gap bounds the
error of each slope, reported as ``uncertainty``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

import pandas as pd
from pydantic import ValidationError

from planner.economics import in_year_factor
from planner.optimize.solve import SolverOptions
from planner.results.shadow import FD, LP_FD, SHADOW_COLUMNS
from planner.scenario.schema import Scenario
from planner.scenario.variants import (
    Change,
    apply_changes,
    path_meta,
    prepare,
    split_year,
    whole_number,
)

log = logging.getLogger("planner.marginals")

Tables = tuple[pd.DataFrame, pd.DataFrame]
Resolve = Callable[[Scenario, Tables, SolverOptions, bool], tuple[float, float]]
"""(scenario, throughput tables, solver options, relax) → (objective, gap), USD."""
Tabulate = Callable[[Scenario], Tables]
"""scenario → its (inference, training) throughput tables."""

MARGINAL_GAP = 1e-4
STEP_SHARE = 0.01
COLUMNS = [
    *SHADOW_COLUMNS,
    "current",
    "step",
    "objective_usd",
    "objective_up_usd",
    "objective_down_usd",
    "slope_up",
    "slope_down",
    "uncertainty",
]
"""The shadow-price table's columns (the marginals join it), then the re-solves'."""


def _step(current: float, whole: bool) -> float:
    step = abs(current) * STEP_SHARE if current else 1.0
    return float(max(1, round(step))) if whole else step


def finite_differences(
    scenario: Scenario,
    tables: Tables,
    names: Sequence[str],
    options: SolverOptions,
    *,
    relax: bool = False,
    resolve: Resolve,
    tabulate: Tabulate,
) -> pd.DataFrame:
    """One row per path: up and down slopes, in cost saved per +1 unit of the value.

    ``resolve`` re-solves a scenario variant (objective and gap, USD); ``tabulate``
    recomputes the throughput tables of a variant whose perf inputs moved (both are the
    pipeline's steps: :func:`planner.pipeline.objective_and_gap` and ``throughput``).
    """
    doc, currents = prepare(
        scenario,
        [Change(path, 0.0) for path in names],
        where="--marginal {path}",
        by_year_hint="add the year, e.g. {path}.{year}",
    )
    years = scenario.horizon.year_list
    gap = MARGINAL_GAP if options.mip_gap is None else min(options.mip_gap, MARGINAL_GAP)
    tight = replace(options, mip_gap=gap)
    base, base_gap = resolve(scenario, tables, tight, relax)
    method = LP_FD if relax else FD
    rows = []
    for path in names:
        current = currents[path]
        assert current is not None  # prepare refuses a whole series without a year
        year = split_year(path)[1]
        step = _step(current, whole_number(doc, path))
        perf = path_meta(split_year(path)[0]).perf
        objectives: dict[int, float | None] = {}
        gaps = [base_gap]
        for sign in (1, -1):
            moved = apply_changes(doc, [Change(path, current + sign * step)], years)
            try:
                variant = Scenario.model_validate(moved)
            except ValidationError:
                objectives[sign] = None  # e.g. a cap moved below zero: one-sided
                continue
            own = tabulate(variant) if perf else tables
            objectives[sign], g = resolve(variant, own, tight, relax)
            gaps.append(g)
        up, down = objectives.get(1), objectives.get(-1)
        # Cost saved per +1 of a limit; cost added per +1 of demand (the LP rows' signs).
        direction = -1.0 if is_demand(path) else 1.0
        slope_up = None if up is None else direction * (base - up) / step
        slope_down = None if down is None else direction * (down - base) / step
        value = slope_up if slope_up is not None else slope_down
        # Present value → that year's money (the plan discounts from the horizon start).
        factor = in_year_factor(scenario.finance.wacc, (year or years[0]) - years[0])
        yearly = scenario.horizon.periods_per_year == 1
        rows.append(
            {
                "limit": "marginal",
                "period": str(year) if year is not None and yearly else None,
                "year": year,
                "subject": path,
                "value": value,
                "unit": f"{'cost' if direction < 0 else 'saved'} per +1 of the value",
                "value_in_year_usd": None if value is None else value * factor,
                "method": method,
                "meaning": (
                    f"cost added per +1 of {path} (negative: it saves cost)"
                    if direction < 0
                    else f"cost saved per +1 of {path} (negative: it adds cost)"
                )
                + f", re-solved at ±{step:g}: {_slope(slope_up)} up, {_slope(slope_down)} down",
                "current": current,
                "step": step,
                "objective_usd": base,
                "objective_up_usd": up,
                "objective_down_usd": down,
                "slope_up": slope_up,
                "slope_down": slope_down,
                "uncertainty": sum(gaps) / step,
            }
        )
        log.info("marginal %s: %s USD per +1 (± %s)", path, value, sum(gaps) / step)
    return pd.DataFrame(rows, columns=COLUMNS)


DEMAND_FIELDS = ("tokens_per_day", "tokens", "flops", "rollout_tokens")
"""Fields of ``inference[...]`` and ``training[...]`` that are demand: their marginal is
reported as cost per +1 (the LP demand rows' sign), not as cost saved."""


def is_demand(path: str) -> bool:
    """Whether ``path`` (``inference[chat].tokens_per_day.2028``) names a demand field."""
    field = split_year(path)[0]
    head, _, name = field.rpartition(".")
    return head.startswith(("inference[", "training[")) and name in DEMAND_FIELDS


def _slope(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.4g} USD"
