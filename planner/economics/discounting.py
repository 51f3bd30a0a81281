"""Discounting, capital recovery and residual value: how money moves through time.

Years are fractional (a quarter starting 2027Q3 is 2027.5). Cash flows of a period are
booked at its start; the residual value of a unit at the horizon end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

K = TypeVar("K")

ANNUITY_CAPITAL = "capital recovery (annuity, wacc, life)"
"""Capital convention of yearly unit costs and $/Mtok: the price repaid as an annuity
``price · CRF(wacc, life)`` each year of the unit's life."""
CASH_CAPITAL = "cash capex at purchase less straight-line residual at horizon end"
"""Capital convention of the optimiser's objective and the costs table: the price paid
when bought, the book value left at the horizon end credited back."""


def capital_recovery_factor(rate: float, years: float) -> float:
    """Share of a price paid each year to repay it with interest over ``years``.

    ``CRF = r (1+r)^n / ((1+r)^n − 1)``; at r = 0 it is ``1 / n``.
    """
    if years <= 0:
        raise ValueError(f"years must be positive, got {years}")
    if rate == 0:
        return 1.0 / years
    growth = (1.0 + rate) ** years
    return rate * growth / (growth - 1.0)


def discount_factor(rate: float, years_from_start: float) -> float:
    """Present value of 1 USD paid ``years_from_start`` years on: ``(1+r)^−t``."""
    return float((1.0 + rate) ** -years_from_start)


def in_year_factor(rate: float, years_from_start: float) -> float:
    """Money of ``years_from_start`` years on per present-value USD: ``(1+r)^t``,
    the inverse of :func:`discount_factor`."""
    return float((1.0 + rate) ** years_from_start)


def period_discount_factors(
    rate: float, starts: Mapping[K, float], horizon_start: float
) -> dict[K, float]:
    """``{period: (1+r)^−(start − horizon_start)}``: each period's cash booked at its
    start (fractional years), so the first period is undiscounted."""
    return {p: discount_factor(rate, start - horizon_start) for p, start in starts.items()}


def npv(rate: float, cashflows_by_year: Mapping[int, float], base_year: int) -> float:
    """Net present value at ``base_year`` of ``{year: USD}``: ``Σ cf_y · (1+r)^−(y − base)``."""
    return sum(cf * discount_factor(rate, y - base_year) for y, cf in cashflows_by_year.items())


def residual_fraction(bought_at: float, lifetime_years: float, horizon_end: float) -> float:
    """Share of the price a unit bought at ``bought_at`` still holds at ``horizon_end``:
    straight-line book value ``min(1, max(0, bought_at + life − end) / life)``."""
    return min(1.0, max(0.0, bought_at + lifetime_years - horizon_end) / lifetime_years)
