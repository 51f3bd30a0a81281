"""Independent check of the horizon-end convention: each purchase's residual share and
the headline NPV under every convention, recomputed from the plan's tables.

The annuity share is recomputed by summing the capital-recovery payments period by
period (not the closed-form outstanding balance the model uses): the payment of a period
of length ``ℓ`` starting at ``t`` inside the unit's life and the horizon is worth
``CRF(r, L) · (1 − (1+r)^−ℓ) / r`` at ``t``, and the residual is what those payments
leave unpaid of the price, carried to the horizon end. The resale share is read off the
curve with ``numpy.interp``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from planner.economics.horizon_end import DEFAULT_RESALE_CURVE, HORIZON_END_CONVENTIONS
from planner.results.checker_sales import sold_through
from planner.results.plan import Plan

EPS_YEARS = 1e-9


def _annuity_share(
    periods: pd.DataFrame, bought_at: float, life: float, end: float, rate: float
) -> float:
    if end - bought_at >= life - EPS_YEARS:
        return 0.0
    crf = 1.0 / life if rate == 0 else rate / (1.0 - (1.0 + rate) ** -life)
    paid = 0.0  # PV at the purchase of the payments inside the horizon
    for row in periods.itertuples(index=False):
        # the part of the period inside the unit's life and the horizon (a unit
        # delivered through its period starts paying at the period's middle)
        first = max(float(row.start_year), bought_at)
        last = min(float(row.start_year + row.length_years), bought_at + life, end)
        if last - first > EPS_YEARS:
            span = last - first
            worth = span if rate == 0 else (1.0 - (1.0 + rate) ** -span) / rate
            paid += crf * worth * (1.0 + rate) ** -(first - bought_at)
    return float((1.0 - paid) * (1.0 + rate) ** (end - bought_at))


def delivered_at(plan: Plan, periods: pd.DataFrame, period: str) -> float:
    """When the units delivered in ``period`` are delivered on average: the period's
    middle when its purchases arrive through it, else its start (fractional years;
    ``periods`` is the periods table indexed by ``period``)."""
    start = float(periods.loc[period, "start_year"])
    if str(period) in plan.ramp_periods:
        return start + 0.5 * float(periods.loc[period, "length_years"])
    return start


def residual_share(plan: Plan, convention: str, bought_at: float, life: float, end: float) -> float:
    """Share of the price credited at ``end`` for a unit bought at ``bought_at``."""
    age = end - bought_at
    if convention == "none" or age >= life - EPS_YEARS:
        return 0.0
    if convention == "straight_line":
        return (life - age) / life
    if convention == "annuity":
        periods = plan.tables["periods"]
        return _annuity_share(periods, bought_at, life, end, plan.parameters["wacc"])
    if convention == "resale_curve":
        given = plan.parameters.get("resale_curve") or []
        curve = dict((float(a), float(s)) for a, s in given) or dict(DEFAULT_RESALE_CURVE)
        curve.setdefault(0.0, 1.0)
        ages = sorted(curve)
        return float(np.interp(age, ages, [curve[a] for a in ages]))
    raise ValueError(f"unknown horizon-end convention {convention!r}")


def check_horizon_end(plan: Plan, rel: float = 1e-5) -> list[str]:
    """Each purchase row's residual share under the plan's convention, and the headline
    NPV of the same fleet under each convention."""
    periods = plan.tables["periods"].set_index("period")
    if not len(periods):
        return []
    last = periods.index[-1]
    end = float(periods.loc[last, "start_year"] + periods.loc[last, "length_years"])
    own = plan.parameters.get("horizon_end", "straight_line")
    factor_end = (1.0 + plan.parameters["wacc"]) ** -(end - periods["start_year"].iloc[0])
    out: list[str] = []
    credit = {c: 0.0 for c in HORIZON_END_CONVENTIONS}
    sold = sold_through(plan)  # units sold early earn no horizon-end credit
    for row in plan.tables["purchases"].itertuples(index=False):
        bought_at = delivered_at(plan, periods, row.period)
        at_end = row.units - sum(
            u for _, u in sold.get((row.hardware, row.site, str(row.period)), [])
        )
        for convention in HORIZON_END_CONVENTIONS:
            share = residual_share(plan, convention, bought_at, row.lifetime_years, end)
            credit[convention] += at_end * row.price_usd * share
            if convention == own and abs(share - row.residual_fraction) > rel:
                out.append(
                    f"purchase {row.hardware} {row.period}: residual share "
                    f"{row.residual_fraction:.6g}, recomputed under {own} {share:.6g}"
                )
    npv = plan.headline.get("npv_cost_usd")
    if npv is None:
        return out
    for convention in HORIZON_END_CONVENTIONS:
        stated = plan.headline.get(f"npv_cost_usd_{convention}")
        if stated is None:
            continue
        mine = npv + factor_end * (credit[own] - credit[convention])
        if abs(stated - mine) > rel * max(abs(mine), 1.0):
            out.append(f"NPV under {convention}: headline {stated:.9g}, recomputed {mine:.9g}")
    return out
