"""Horizon-end conventions: what a unit bought inside the horizon is still worth at its end.

Every convention is a share ``f`` of the unit's price credited back at the horizon end
``T`` (discounted from ``T``), so the capital part of a purchase of price ``P`` bought at
``v`` (fractional years) costs ``DF_v · P − DF_T · f · P`` in present value. With age
``a = T − v``, life ``L`` and rate ``r`` (the wacc):

* ``straight_line``: book value ``f = max(0, L − a) / L`` (the default; it keeps the
  numbers the planner has always reported).
* ``annuity``: the capital is charged as a capital-recovery annuity ``P · CRF(r, L)`` a
  year, and only the payments inside the horizon count (the energy-system-planner
  convention). Per period of length ``ℓ`` the payment worth ``CRF · P · (1 − (1+r)^−ℓ)/r``
  at the period start keeps the yearly total whatever the resolution, and the PV of the
  payments inside the horizon equals ``DF_v · P − DF_T · f · P`` with ``f`` the annuity's
  outstanding balance at ``T``: ``f = ((1+r)^L − (1+r)^a) / ((1+r)^L − 1)`` for
  ``a < L`` (``(L − a)/L`` at r = 0, the straight line). So it is a residual too.
* ``none``: ``f = 0``; whatever is left at ``T`` is worth nothing.
* ``resale_curve``: the market resale value by age, ``f = curve(a)`` (linear between the
  given ages, ``curve(0) = 1`` unless given, held after the last age), for units still
  inside their life; units past their life are retired and fetch nothing.

The default curve, :data:`DEFAULT_RESALE_CURVE`, is the midpoint of a public
secondary-market table for H100 SXM (see its docstring); a scenario may give its own
(``finance.resale_curve``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Literal

from planner.economics.discounting import residual_fraction

HorizonEnd = Literal["straight_line", "annuity", "none", "resale_curve"]
HORIZON_END_CONVENTIONS: tuple[HorizonEnd, ...] = (
    "straight_line",
    "annuity",
    "none",
    "resale_curve",
)
HORIZON_END_TEXT: dict[str, str] = {
    "straight_line": "straight-line book value at the horizon end",
    "annuity": "capital as an annuity (CRF at wacc over the life), years inside the horizon",
    "none": "no residual value at the horizon end",
    "resale_curve": "market resale value by age at the horizon end",
}
"""What each convention means, in the words stated next to every headline NPV."""

DEFAULT_RESALE_CURVE: dict[float, float] = {
    0.0: 1.0,
    1.0: 0.625,
    2.0: 0.425,
    3.0: 0.30,
    4.0: 0.175,
    5.0: 0.125,
}
"""Share of the new price a used accelerator fetches by age in years: the midpoints of
"H100 Depreciation Curve by Year" (residual 60–65 % after 1 year, 40–45 % after 2,
25–35 % after 3, 15–20 % after 4, 10–15 % after 5+), GPU Lease Rate Index secondary
market analysis, https://v2-pseo-ai.pages.dev/residual/h100-depreciation-calculator
(updated 8 January 2026, n = 500+ transactions). Consistent with used H100s trading at
$15,000–28,000 (computeforecast.com, "The secondary market for AI hardware", 2026). One
curve for every accelerator: a rough, overridable market view, not a per-model quote."""


def resale_share(age_years: float, curve: Mapping[float, float]) -> float:
    """Share of the price fetched at ``age_years``: linear between the curve's ages,
    1 at age 0 unless the curve says otherwise, held after its last age."""
    points = sorted(curve.items())
    if not points or points[0][0] > 0:
        points = [(0.0, 1.0), *points]
    if age_years <= points[0][0]:
        return float(points[0][1])
    for (a0, s0), (a1, s1) in itertools.pairwise(points):
        if age_years <= a1:
            return float(s0 + (s1 - s0) * (age_years - a0) / (a1 - a0))
    return float(points[-1][1])


def sale_share(
    age_years: float, lifetime_years: float, curve: Mapping[float, float] | None = None
) -> float:
    """Share of its price a unit of ``age_years`` fetches when sold: the resale curve
    (``curve``, or :data:`DEFAULT_RESALE_CURVE` when None) inside its life, 0 at or past
    its lifetime (it is retired, not sold). The one rule behind ``horizon_end:
    resale_curve`` and the proceeds of ``finance.sell_early``."""
    if age_years >= lifetime_years:
        return 0.0
    return resale_share(age_years, DEFAULT_RESALE_CURVE if curve is None else curve)


def sale_proceeds_usd(units: float, price_usd: float, share: float) -> float:
    """Cash from selling ``units`` of price ``price_usd`` at resale ``share``:
    ``units × price × share`` (the objective's and the Sales table's one formula)."""
    return units * price_usd * share


def annuity_balance_fraction(rate: float, lifetime_years: float, age_years: float) -> float:
    """Outstanding share of a capital-recovery annuity of ``lifetime_years`` after
    ``age_years``: ``((1+r)^L − (1+r)^a) / ((1+r)^L − 1)``; ``(L − a)/L`` at r = 0;
    0 from the end of the life on, 1 before the purchase."""
    age = min(max(age_years, 0.0), lifetime_years)
    if rate == 0:
        return (lifetime_years - age) / lifetime_years
    grown = (1.0 + rate) ** lifetime_years
    return float((grown - (1.0 + rate) ** age) / (grown - 1.0))


def horizon_end_fraction(
    convention: str,
    bought_at: float,
    lifetime_years: float,
    horizon_end: float,
    rate: float,
    curve: Mapping[float, float] | None = None,
) -> float:
    """Share of its price a unit bought at ``bought_at`` is credited at ``horizon_end``
    under ``convention`` (see the module docstring)."""
    age = horizon_end - bought_at
    if convention == "straight_line":
        return residual_fraction(bought_at, lifetime_years, horizon_end)
    if convention == "annuity":
        return annuity_balance_fraction(rate, lifetime_years, age)
    if convention == "none":
        return 0.0
    if convention == "resale_curve":
        return sale_share(age, lifetime_years, curve)
    raise ValueError(f"unknown horizon-end convention {convention!r}")
