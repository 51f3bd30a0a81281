"""When hardware can be ordered, when it arrives and when it is paid (issue 17).

* ``available_from``: a quarter (``2027Q3``) or a date read as its quarter; as a
  fractional year, the quarter's start (``2027Q3`` → 2027.5). Default: ``release_year``.
  Capacity counts from the first period starting at or after it, so a yearly plan gets
  a system available from 2027Q3 in 2028, a quarterly plan in 2027Q3.
* ``lead_time_months`` L: a unit ordered in period p arrives in the first period
  starting at or after ``start_p + L/12``, i.e. ``ceil(L · P / 12)`` periods later for P
  periods a year (L = 0: the period ordered).
* ``finance.capex_payment``: the share of the price paid at order, the rest at delivery
  (``at_order`` 1, ``at_delivery`` 0, ``split`` ½).
"""

from __future__ import annotations

import calendar
import datetime as dt
import math

from planner.catalog.schema import HardwareSpec

MONTHS_PER_YEAR = 12
QUARTERS_PER_YEAR = 4
EPS_YEARS = 1e-9
"""Slack on comparisons of fractional-year starts (monthly starts are not exact)."""

AT_ORDER_SHARE: dict[str, float] = {"at_delivery": 0.0, "at_order": 1.0, "split": 0.5}
"""``finance.capex_payment`` → share of the price paid in the order period."""


def quarter_start(value: str | dt.date) -> float:
    """The start of the quarter ``value`` names or lies in, fractional years
    (``"2027Q3"`` and ``2027-08-15`` → 2027.5)."""
    if isinstance(value, str) and "Q" in value:
        year, quarter = value.split("Q")
        return int(year) + (int(quarter) - 1) / QUARTERS_PER_YEAR
    day = value if isinstance(value, dt.date) else dt.date.fromisoformat(value)
    return day.year + ((day.month - 1) // 3) / QUARTERS_PER_YEAR


def available_from_year(spec: HardwareSpec) -> float:
    """First delivery date of ``spec`` in fractional years (module docstring)."""
    if spec.available_from is None:
        return float(spec.release_year)
    return quarter_start(spec.available_from)


def lead_periods(lead_time_months: int, periods_per_year: int) -> int:
    """Periods from order to delivery: ``ceil(L · P / 12)``."""
    return math.ceil(lead_time_months * periods_per_year / MONTHS_PER_YEAR - EPS_YEARS)


def date_year(value: int | str | dt.date) -> float:
    """A year (``2027``) or a date (``2027-07-01``) as a fractional year on the calendar
    of months: ``year + (month − 1 + (day − 1) / days in the month) / 12``, so the first
    of every month is exactly its monthly period's start (1 February is 2027 + 1/12,
    not 31/365) and deliveries land in the first period starting at or after it."""
    if isinstance(value, int):
        return float(value)
    day = value if isinstance(value, dt.date) else dt.date.fromisoformat(value)
    days = calendar.monthrange(day.year, day.month)[1]
    return day.year + (day.month - 1 + (day.day - 1) / days) / MONTHS_PER_YEAR
