"""Shadow prices: LP duals of the limits in business terms, in one convention.

Positive means *saves* this much per +1 unit of a limit (power, budget, supply, a
``--marginal`` of a limit) or *costs* this much per +1 unit of demand (the demand rows,
a ``--marginal`` of a demand field). ``value`` is present-value USD (discounted to the
horizon start); ``value_in_year_usd`` the same in that year's money; ``unit`` says per
what, and which sign convention, naming no money basis (the column does: PV or that
year's USD). A value the unmet-demand penalty sets says so in its unit and meaning.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pandas as pd

from planner.optimize.data import ModelData
from planner.optimize.extract import Solution
from planner.results.tables import WHEN, frame, when
from planner.units import (
    DAYS_PER_YEAR,
    USD_SCALE,
)

SHADOW_COLUMNS = [
    "limit",
    *WHEN,
    "subject",
    "value",
    "unit",
    "value_in_year_usd",
    "method",
    "meaning",
]
LP = "LP relaxation"
FD = "MILP finite difference"
LP_FD = "LP finite difference"


PENALTY_PRICED = (
    " — set by the notional unmet-demand penalty, not by cost: demand is left unmet in "
    "this period, and the penalties are outside the min_cost objective"
)
"""Appended to the meaning of a shadow price in a period where demand is left unmet."""
PENALTY_UNIT = " (set by the notional penalty)"
"""Appended to its unit, so every table that shows the value says what set it."""


def shadow_price_table(
    d: ModelData,
    duals: dict[str, dict[Any, float]] | None,
    unmet_periods: Collection[str] = (),
) -> pd.DataFrame:
    """Duals of the LP relaxation (purchases continuous) of NPV cost + penalties, in
    business terms.

    ``value`` is present-value USD; ``value_in_year_usd`` the same in that year's
    money (divided by the year's discount factor). In ``unmet_periods`` (where the plan
    leaves demand unmet) a limit's value is the penalty restated: its meaning says so
    (:data:`PENALTY_PRICED`).
    """
    rows: list[dict[str, Any]] = []
    if not duals:
        return frame(rows, SHADOW_COLUMNS)
    rows = _rows(d, duals)
    for row in rows:
        if row["period"] in unmet_periods:
            row["meaning"] += PENALTY_PRICED
            row["unit"] += PENALTY_UNIT
    return frame(rows, SHADOW_COLUMNS)


def _rows(d: ModelData, duals: dict[str, dict[Any, float]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    df = d.discount_factor
    span = "year" if d.periods_per_year == 1 else "period"
    for (s, t), dual in sorted(duals.get("power", {}).items(), key=lambda kv: (kv[0][1], kv[0][0])):
        value = -dual * USD_SCALE
        rows.append(
            {
                "limit": "power",
                **when(d, t),
                "subject": s,
                "value": value,
                "unit": "saved per MW",
                "value_in_year_usd": value / df[t],
                "method": LP,
                "meaning": f"cost saved by 1 MW more facility power at {s} in {t} "
                f"(that {span} only)",
            }
        )
    for t, dual in sorted(duals.get("budget", {}).items()):
        rows.append(
            {
                "limit": "budget",
                **when(d, t),
                "subject": "capex",
                "value": -dual,
                "unit": "saved per USD of budget",
                "value_in_year_usd": -dual / df[t],
                "method": LP,
                "meaning": f"cost saved by 1 USD more capex budget in {t}",
            }
        )
    for (h, t), dual in sorted(
        duals.get("supply", {}).items(), key=lambda kv: (kv[0][1], kv[0][0])
    ):
        value = -dual * USD_SCALE
        rows.append(
            {
                "limit": "supply",
                **when(d, t),
                "subject": h,
                "value": value,
                "unit": "saved per unit",
                "value_in_year_usd": value / df[t],
                "method": LP,
                "meaning": f"cost saved if one more {h} could be bought in {t}",
            }
        )
    demand = duals.get("demand", {})
    for w, t in d.demand_index:
        dual = demand.get((w, t, "output"), 0.0)
        dual += d.prefill_ratio[w] * demand.get((w, t, "prefill"), 0.0)
        value = dual * d.peak_to_average[w] * USD_SCALE
        rows.append(
            {
                "limit": "demand",
                **when(d, t),
                "subject": w,
                "value": value,
                "unit": "cost per Mtok/day",
                "value_in_year_usd": value / df[t],
                "method": LP,
                "meaning": f"cost of serving 1 Mtok/day more {w} demand through {t} "
                f"(≈ {value / df[t] / (DAYS_PER_YEAR * d.period_length[t]):,.2f} USD per Mtok)",
            }
        )
    return rows


def penalty_labelled(marginals: pd.DataFrame, unmet: set[str]) -> pd.DataFrame:
    """``--marginal`` rows (MILP finite differences of NPV cost plus penalties) labelled
    as the LP rows are where the penalty sets them: a row of a period with demand left
    unmet, or of a whole series (no year) when demand is left unmet anywhere."""
    out = marginals.copy()
    for i, row in out.iterrows():
        period = row.get("period")
        hit = (str(period) in unmet) if period is not None and period == period else bool(unmet)
        year = row.get("year")
        if period is None and year is not None and year == year:
            hit = any(str(p).startswith(str(int(year))) for p in unmet)
        if hit:
            out.at[i, "unit"] = str(row["unit"]) + PENALTY_UNIT
            out.at[i, "meaning"] = str(row["meaning"]) + PENALTY_PRICED
    return out


def unmet_periods(d: ModelData, sol: Solution) -> set[str]:
    """Periods where ``sol`` leaves demand unmet: a workload's, or any period of the
    window of a run left unfinished."""
    periods = {str(t) for (_, t) in sol.unmet_inf}
    labels = [str(label) for label in d.labels]
    for r in sol.unmet_train:
        first, last = (labels.index(str(label)) for label in d.train_window[r])
        periods.update(labels[first : last + 1])
    return periods
