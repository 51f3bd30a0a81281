"""The independent check of a two-stage plan: each future's Plan by the plan checker,
and non-anticipativity read from the Plans' own tables.

The first stage is read back from each future's tables, not from the solve: in the
periods of the years up to ``first_stage_through``, purchases by order period (by
hardware, site, delivery and order period), the existing fleet's units in service
(what was kept), rental commitments by start, datacenter blocks by the period they are
paid, leases by start, and early sales. Every future must show the same; a difference
names the decision and the futures.
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


DECIDED: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("fleet", ("hardware", "site", "origin", "vintage", "period"), "units", "period"),
    ("commitments", ("hardware", "term_years", "start_period"), "units", "start_period"),
    ("datacenter_builds", ("site", "power_on_period", "paid_period"), "blocks", "paid_period"),
    ("datacenter_leases", ("site", "start_period"), "kw_it", "start_period"),
    ("sales", ("hardware", "site", "origin", "vintage", "period"), "units", "period"),
)
"""The other first-stage decisions: table, key columns, value, the period deciding it."""


def _decided(tables: dict[str, pd.DataFrame], through: int) -> dict[Any, float]:
    """Every first-stage decision a future's tables show, keyed by table and key."""
    periods = tables["periods"]
    year_of = dict(zip(periods["period"].astype(str), periods["year"], strict=True))
    out = _orders(tables["purchases"], periods, through)
    for name, keys, value, when in DECIDED:
        frame = tables.get(name)
        if frame is None or not len(frame):
            continue
        if name == "fleet":  # the existing cohorts' units in service: what was kept
            frame = frame[frame["origin"] == "existing"]
        for row in frame.to_dict(orient="records"):
            if year_of.get(str(row[when]), through + 1) > through:
                continue
            key = (name, *(str(row[k]) for k in keys))
            out[key] = out.get(key, 0.0) + float(row[value])
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
        seen.append((f.name, _decided(f.plan.tables, tree.first_stage_through)))
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
