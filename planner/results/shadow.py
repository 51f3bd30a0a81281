"""Shadow prices: LP duals of the limits in business terms."""

from __future__ import annotations

from typing import Any

import pandas as pd

from planner.optimize.data import ModelData
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


def shadow_price_table(d: ModelData, duals: dict[str, dict[Any, float]] | None) -> pd.DataFrame:
    """Duals of the LP relaxation (purchases continuous) in business terms.

    ``value`` is present-value USD; ``value_in_year_usd`` the same in that year's
    money (divided by the year's discount factor).
    """
    rows: list[dict[str, Any]] = []
    if not duals:
        return frame(rows, SHADOW_COLUMNS)
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
                "unit": "USD (PV) per MW",
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
                "unit": "USD (PV) per USD",
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
                "unit": "USD (PV) per unit",
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
                "unit": "USD (PV) per Mtok/day",
                "value_in_year_usd": value / df[t],
                "method": LP,
                "meaning": f"cost of serving 1 Mtok/day more {w} demand through {t} "
                f"(≈ {value / df[t] / (DAYS_PER_YEAR * d.period_length[t]):,.2f} USD per Mtok)",
            }
        )
    return frame(rows, SHADOW_COLUMNS)
