"""Exact marginal values by finite difference: re-solve with one scenario value moved.

HiGHS gives no duals for a MILP, and LP duals describe a continuous fleet. For a limit
the analyst names (``--marginal sites[texas].power_cap_mw.2028``) the MILP itself is
re-solved with the value moved up and down by a step (1% of its value; at least 1 for
whole-number fields), and the slope is reported as *cost saved per +1 unit* of the
value (negative: the change adds cost). A trailing year moves that year alone: the
series is first written out for every horizon year at its current values, so
interpolation and hold-forward do not spread the change. Inputs are per year whatever
the period length, so with quarterly periods a year's value moves all four quarters
(the row's ``period`` is then empty; for yearly plans it is the year).

All solves use a MIP gap of at most ``MARGINAL_GAP``; the remaining gap bounds the
error of each slope, reported as ``uncertainty``.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pandas as pd
from pydantic import ValidationError

from planner.economics import in_year_factor
from planner.errors import InputError, Problem, SolverError
from planner.optimize.data import USD_SCALE, build_data
from planner.optimize.solve import SolverOptions
from planner.scenario import paths
from planner.scenario.schema import Scenario
from planner.scenario.series import Fill, value_at

log = logging.getLogger("planner.optimize")

MARGINAL_GAP = 1e-4
STEP_SHARE = 0.01
HOLD_FIELDS = {"power_cap_mw", "capex_usd", "max_units_per_year", "max_accelerators"}
"""Year-indexed fields held forward (the rest interpolate geometrically)."""
PERF_FREE = {"sites", "budget", "finance", "rental", "existing_fleet", "penalties", "solver"}
"""Sections the throughput tables do not depend on (no need to recompute them)."""
COLUMNS = [
    "limit",
    "period",
    "year",
    "subject",
    "value",
    "unit",
    "value_in_year_usd",
    "method",
    "meaning",
    "current",
    "step",
    "objective_usd",
    "objective_up_usd",
    "objective_down_usd",
    "slope_up",
    "slope_down",
    "uncertainty",
]


def _bad_path(path: str, message: str) -> InputError:
    return InputError(
        None,
        Problem(
            path=f"--marginal {path}",
            message=message,
            hint="name one number, e.g. sites[texas].power_cap_mw.2028 or budget.capex_usd.2027",
        ),
    )


def moved_document(
    doc: dict[str, Any], path: str, delta: float, years: list[int]
) -> tuple[dict[str, Any], float, int | None, bool]:
    """``doc`` with the value at ``path`` moved by ``delta``.

    Also returns the current value, the year named (or None) and whether the field
    holds whole numbers (then ``delta`` is rounded).
    """
    steps = paths.parse(path)
    year = int(steps[-1]) if steps[-1].isdigit() else None
    parent = path.rsplit(".", 1)[0] if year is not None else path
    try:
        current = paths.get(doc, parent)
    except paths.PathError as exc:
        raise _bad_path(path, str(exc)) from None
    if year is not None:
        if year not in years:
            raise _bad_path(path, f"{year} is outside the horizon {years[0]}-{years[-1]}")
        if not isinstance(current, int | float | dict) or isinstance(current, bool):
            raise _bad_path(path, "this field is not a year-indexed value")
        fill: Fill = "hold" if steps[-2] in HOLD_FIELDS else "geometric"
        series = {y: value_at(current, y, fill) for y in years}
        value = series[year]
        series[year] = value + delta
        return paths.set_value(doc, parent, series), value, year, False
    if isinstance(current, dict):
        raise _bad_path(path, "this value differs by year; add the year, e.g. PATH.2028")
    if not isinstance(current, int | float) or isinstance(current, bool):
        raise _bad_path(path, f"expected a number, found {current!r}")
    whole = isinstance(current, int)
    moved = current + (round(delta) if whole else delta)
    return paths.set_value(doc, path, moved), float(current), None, whole


def _step(current: float, whole: bool) -> float:
    step = abs(current) * STEP_SHARE if current else 1.0
    return float(max(1, round(step))) if whole else step


def _solve(
    scenario: Scenario,
    tables: tuple[pd.DataFrame, pd.DataFrame],
    options: SolverOptions,
    relax: bool,
) -> tuple[float, float]:
    """Objective and its gap to the bound, USD."""
    from planner.optimize import build_and_solve

    data = build_data(scenario, *tables, relax=relax)
    result, _, _ = build_and_solve(data, options)
    if result.objective is None:
        raise SolverError(f"re-solve for a marginal value found no plan ({result.status.value})")
    gap = abs(result.objective - (result.bound if result.bound is not None else result.objective))
    return result.objective * USD_SCALE, gap * USD_SCALE


def finite_differences(
    scenario: Scenario,
    tables: tuple[pd.DataFrame, pd.DataFrame],
    names: Sequence[str],
    options: SolverOptions,
    *,
    relax: bool = False,
) -> pd.DataFrame:
    """One row per path: up and down slopes, in cost saved per +1 unit of the value."""
    doc = scenario.model_dump(mode="python")
    years = scenario.horizon.year_list
    gap = MARGINAL_GAP if options.mip_gap is None else min(options.mip_gap, MARGINAL_GAP)
    tight = replace(options, mip_gap=gap)
    base, base_gap = _solve(scenario, tables, tight, relax)
    method = "LP finite difference" if relax else "MILP finite difference"
    rows = []
    for path in names:
        _, current, year, whole = moved_document(doc, path, 0.0, years)
        step = _step(current, whole)
        objectives: dict[int, float | None] = {}
        gaps = [base_gap]
        for sign in (1, -1):
            moved = moved_document(copy.deepcopy(doc), path, sign * step, years)[0]
            try:
                variant = Scenario.model_validate(moved)
            except ValidationError:
                objectives[sign] = None  # e.g. a cap moved below zero: one-sided
                continue
            first = paths.parse(path)[0]
            own = tables if first in PERF_FREE or "price_usd" in path else _tables(variant)
            objectives[sign], g = _solve(variant, own, tight, relax)
            gaps.append(g)
        up, down = objectives.get(1), objectives.get(-1)
        slope_up = None if up is None else (base - up) / step
        slope_down = None if down is None else (down - base) / step
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
                "unit": "USD (PV) saved per +1 of the value",
                "value_in_year_usd": None if value is None else value * factor,
                "method": method,
                "meaning": f"cost saved per +1 of {path} (negative: it adds cost), "
                f"re-solved at ±{step:g}: {_slope(slope_up)} up, {_slope(slope_down)} down",
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


def _slope(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.4g} USD"


def _tables(scenario: Scenario) -> tuple[pd.DataFrame, pd.DataFrame]:
    from planner.optimize import throughput

    return throughput(scenario)
