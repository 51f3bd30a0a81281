"""Independent check of early sales (``finance.sell_early``), from the plan's tables.

Each sale row: whole units (unless relaxed); no more than held of its vintage (a
purchase: bought less sold before; an existing cohort: what the fleet held the period
before, its size in the first period); the fleet after it (an existing cohort holds at
most what it held before less what it sold; purchases are checked by the fleet check
with the sales taken off, :func:`sold_through`); its price (a purchase's vintage price,
an existing unit's catalog price from the plan's ``existing_fleet`` parameter) and
proceeds ``units × price × curve(age)`` with the curve read by ``numpy.interp``
(0 at or past the lifetime), discounted from the period start.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from planner.economics.horizon_end import DEFAULT_RESALE_CURVE
from planner.results.plan import Plan

REL = 1e-5
EPS_YEARS = 1e-9


def _close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= REL * max(abs(a), abs(b), scale)


def sales_rows(plan: Plan) -> pd.DataFrame:
    """The plan's sales table (empty when it has none), vintages as text."""
    sales = plan.tables.get("sales")
    if sales is None or sales.empty:
        return pd.DataFrame(columns=["period", "hardware", "site", "origin", "vintage", "units"])
    return sales.assign(vintage=sales["vintage"].astype(str), period=sales["period"].astype(str))


def sold_through(plan: Plan) -> dict[tuple[str, str, str], list[tuple[float, float]]]:
    """(hardware, site, purchase period) → [(start of the sale period, units sold)]."""
    starts = dict(
        zip(plan.tables["periods"]["period"], plan.tables["periods"]["start_year"], strict=True)
    )
    out: dict[tuple[str, str, str], list[tuple[float, float]]] = defaultdict(list)
    for row in sales_rows(plan).itertuples(index=False):
        if row.origin == "purchased":
            out[(row.hardware, row.site, row.vintage)].append(
                (float(starts[row.period]), row.units)
            )
    return out


def units_sold_by(sold: list[tuple[float, float]], start: float) -> float:
    """Units sold at the start of the period starting at ``start`` or before."""
    return sum(units for at, units in sold if at <= start + EPS_YEARS)


def curve_share(plan: Plan, age: float, life: float) -> float:
    """The resale share at ``age``: the plan's curve (or the default), 0 at or past life."""
    if age >= life - EPS_YEARS:
        return 0.0
    given = plan.parameters.get("resale_curve") or []
    curve = dict((float(a), float(s)) for a, s in given) or dict(DEFAULT_RESALE_CURVE)
    curve.setdefault(0.0, 1.0)
    ages = sorted(curve)
    return float(np.interp(age, ages, [curve[a] for a in ages]))


def _cohorts(plan: Plan) -> dict[tuple[str, str, str], tuple[float, float, float]]:
    """(hardware, site, install year) → (units, catalog price, lifetime) of each existing
    cohort, from the plan's ``existing_fleet`` parameter."""
    return {
        (h, s, str(i)): (float(u), float(price), float(life))
        for h, s, i, u, price, life in plan.parameters.get("existing_fleet", [])
    }


def check_sales(plan: Plan) -> list[str]:
    """Every violation of the sales rows (the module docstring's list)."""
    sales = sales_rows(plan)
    if sales.empty:
        return []
    t = plan.tables
    periods = t["periods"].assign(period=t["periods"]["period"].astype(str))
    starts = dict(zip(periods["period"], periods["start_year"].astype(float), strict=True))
    order = list(periods["period"])
    first_start = float(periods["start_year"].iloc[0])
    wacc = plan.parameters["wacc"]
    purchases = t["purchases"]
    bought = {(r.hardware, r.site, str(r.period)): r for r in purchases.itertuples(index=False)}
    fleet = t["fleet"].assign(vintage=t["fleet"]["vintage"].astype(str))
    held = fleet.groupby(["origin", "hardware", "site", "vintage", "period"])["units"].sum()
    held_at = {tuple(str(x) for x in k): float(v) for k, v in held.items()}
    cohorts = _cohorts(plan)
    sold = sold_through(plan)
    out: list[str] = []
    for row in sales.itertuples(index=False):
        what = (
            f"sale of {row.units:g} {row.origin} {row.hardware} ({row.vintage}) "
            f"at {row.site} in {row.period}"
        )
        if not plan.parameters["relax"] and abs(row.units - round(row.units)) > 1e-6:
            out.append(f"{what}: not whole units")
        start = starts[row.period]
        before = order[order.index(row.period) - 1] if order.index(row.period) > 0 else None
        key = (row.hardware, row.site, row.vintage)
        if row.origin == "purchased":
            purchase = bought.get(key)
            if purchase is None:
                out.append(f"{what}: no such purchase")
                continue
            price, life, vintage_start = (
                purchase.price_usd,
                purchase.lifetime_years,
                starts[row.vintage],
            )
            if start <= vintage_start + EPS_YEARS:
                out.append(f"{what}: sold no later than bought")
            previously = units_sold_by(sold[key], start) - row.units
            if row.units > purchase.units - previously + 1e-6:
                out.append(
                    f"{what}: only {purchase.units - previously:g} held "
                    f"({purchase.units:g} bought, {previously:g} sold before)"
                )
        else:
            if key not in cohorts:
                out.append(f"{what}: no such existing cohort")
                continue
            size, price, life = cohorts[key]
            vintage_start = float(row.vintage)
            had = held_at.get(("existing", *key, before), 0.0) if before is not None else size
            now = held_at.get(("existing", *key, row.period), 0.0)
            if now + row.units > had + 1e-6:
                out.append(f"{what}: {had:g} held before, {now:g} still in the fleet after")
        if not _close(row.price_usd, price):
            out.append(f"{what}: price {row.price_usd:.6g}, purchase price {price:.6g}")
        share = curve_share(plan, start - vintage_start, life)
        proceeds = row.units * price * share
        factor = (1.0 + wacc) ** -(start - first_start)
        if not _close(row.proceeds_usd, proceeds) or not _close(
            row.proceeds_pv_usd, proceeds * factor
        ):
            out.append(f"{what}: proceeds {row.proceeds_usd:.6g} USD, recomputed {proceeds:.6g}")
    for key, rows in sold.items():
        purchase = bought.get(key)
        total = sum(u for _, u in rows)
        if purchase is not None and not _close(getattr(purchase, "units_sold", 0.0), total):
            out.append(f"purchase {key}: units_sold {purchase.units_sold:g}, sales table {total:g}")
    return out


def resale_amounts(plan: Plan) -> dict[tuple[str, str], float]:
    """(period, ``resale_proceeds``) → −proceeds recomputed (a credit), for the cost check."""
    out: dict[tuple[str, str], float] = defaultdict(float)
    t = plan.tables
    periods = t["periods"].assign(period=t["periods"]["period"].astype(str))
    starts = dict(zip(periods["period"], periods["start_year"].astype(float), strict=True))
    prices = {
        (r.hardware, r.site, str(r.period)): (r.price_usd, r.lifetime_years)
        for r in t["purchases"].itertuples(index=False)
    }
    cohorts = _cohorts(plan)
    for row in sales_rows(plan).itertuples(index=False):
        if row.origin == "purchased":
            price, life = prices.get((row.hardware, row.site, row.vintage), (0.0, 0.0))
            age = starts[row.period] - starts[row.vintage]
        else:
            _, price, life = cohorts.get((row.hardware, row.site, row.vintage), (0.0, 0.0, 0.0))
            age = starts[row.period] - float(row.vintage)
        out[(row.period, "resale_proceeds")] -= row.units * price * curve_share(plan, age, life)
    return dict(out)
