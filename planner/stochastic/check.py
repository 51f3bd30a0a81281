"""The independent check of a two-stage plan: each future's Plan by the plan checker,
and non-anticipativity read from the Plans' own tables.

The first stage is read back from each future's tables, not from the solve: purchases
whose order year is at most ``first_stage_through`` (by hardware, site, delivery period
and order period), and the units of the existing fleet kept in those years (the fleet
table's rows of cohorts, ``installed`` before the horizon). Every future must show the
same; a difference names the decision and the futures.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from planner.results.checker import check_plan
from planner.stochastic.solve import Stochastic

TOLERANCE_UNITS = 1e-6


def _orders(purchases: pd.DataFrame, periods: pd.DataFrame, through: int) -> dict[Any, float]:
    year_of = dict(zip(periods["period"].astype(str), periods["year"], strict=True))
    out: dict[Any, float] = {}
    for row in purchases.itertuples(index=False):
        order = str(row.order_period)
        if year_of.get(order, row.year) <= through and row.units > TOLERANCE_UNITS:
            key = ("buy", row.hardware, row.site, str(row.period), order)
            out[key] = out.get(key, 0.0) + float(row.units)
    return out


def check_tree(result: Stochastic) -> list[str]:
    """Every violation found (empty: each future's plan is consistent and they share
    the first stage)."""
    tree = result.scenario.uncertainty
    assert tree is not None
    out: list[str] = []
    seen: list[tuple[str, dict[Any, float]]] = []
    for f in result.futures:
        out += [f"{f.name}: {problem}" for problem in check_plan(f.plan)]
        t = f.plan.tables
        seen.append((f.name, _orders(t["purchases"], t["periods"], tree.first_stage_through)))
    first_name, first = seen[0]
    for name, orders in seen[1:]:
        for key in sorted(set(first) | set(orders), key=str):
            a, b = first.get(key, 0.0), orders.get(key, 0.0)
            if abs(a - b) > TOLERANCE_UNITS:
                out.append(
                    f"non-anticipativity: {' '.join(map(str, key))} is {a:g} in {first_name} "
                    f"but {b:g} in {name}"
                )
    return out
