"""Planning periods, and how year-indexed inputs are spread over them (issue 7).

A horizon of ``years`` years with ``periods_per_year`` P ∈ {1, 2, 4, 12} has
``years · P`` periods of 1/P years each. Every period knows its label, its position,
its calendar year, its start (in fractional years: 2027Q3 starts at 2027.5) and its
length in years:

========  =============================  =================
P         labels                         start of the 3rd
========  =============================  =================
1         ``2026``, ``2027`` … (ints)    2028.0
2         ``2026H1``, ``2026H2`` …       2027.0
4         ``2026Q1`` … ``2026Q4`` …      2026.5
12        ``2026-01`` … ``2026-12`` …    2026.1667
========  =============================  =================

Yearly periods keep the year itself (an int) as their label, so yearly models and the
scripts that read them index by year exactly as before; shorter periods are labelled by
strings that sort in time order. Tables show both: ``period`` (the label as text) and
``year`` (the calendar year), so anything rolls up to years with a group-by on ``year``.

Year-indexed inputs (a number, or ``{year: value}``, see :mod:`planner.scenario.series`)
reach a period by one of three rules, chosen by what the quantity *is*:

* **Rates** (:func:`rate_at`) — prices (USD per unit, per kWh, per kW-year, per
  accelerator-hour): the value at the period's start, interpolated geometrically
  between given years at the fractional year. Demand (``tokens_per_day``, issue 17) is
  read twice: capacity meets its highest value inside the period
  (:func:`peak_rate_in`, for a growing series the value at the period's end), and
  tokens served, energy and revenue use its average over the period
  (:func:`mean_rate_in`, the integral of the interpolated series / the length). A rate is
  *not* divided by P: demand per day stays per day whatever the period length, and the
  objective multiplies per-year running costs by the period's length.
* **Levels** (:func:`level_at`) — power caps and rental caps (``max_accelerators``): a
  stock that exists at every instant; held from the last given year, the same in every
  period of a year, never divided.
* **Flows per year** (:func:`flow_in`) — capex budgets and supply caps
  (``max_units_per_year``): an amount per year, held from the last given year, of which
  each period gets its share ``value · length_years`` (a quarter gets a quarter).

Times are in years whatever the period length: lifetimes (a unit bought in period p
lives ``lifetime_years · P`` periods), training windows (whole years: a window
[2027, 2027] is the four quarters of 2027) and discounting (a cash flow at the start
of 2027Q3 with the horizon starting in 2026 is discounted by (1 + wacc)^−1.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from planner.scenario.series import YearValue, mean_over, peak_over, value_at


class HorizonLike(Protocol):
    """What the periods of a horizon depend on (``planner.scenario.schema.Horizon``)."""

    @property
    def start(self) -> int: ...
    @property
    def years(self) -> int: ...
    @property
    def periods_per_year(self) -> int: ...


PERIODS_PER_YEAR = (1, 2, 4, 12)
"""The period lengths a horizon may use: years, halves, quarters, months."""

PeriodLabel = int | str
"""A period's key: the year (int) for yearly periods, else e.g. ``"2027Q3"``."""


@dataclass(frozen=True)
class Period:
    """One planning period (times in years; see the module docstring)."""

    label: PeriodLabel
    start: float
    """Start in fractional years (2027Q3 → 2027.5)."""
    length_years: float
    index: int = 0
    """Position in the horizon, 0 for the first period."""
    year: int = 0
    """Calendar year the period lies in."""

    @property
    def end(self) -> float:
        return self.start + self.length_years

    @property
    def name(self) -> str:
        """The label as text (``"2027"`` for a yearly period)."""
        return str(self.label)


def period_label(year: int, part: int, periods_per_year: int) -> PeriodLabel:
    """The label of the ``part``-th (0-based) period of ``year``."""
    if periods_per_year == 1:
        return year
    if periods_per_year == 2:
        return f"{year}H{part + 1}"
    if periods_per_year == 4:
        return f"{year}Q{part + 1}"
    if periods_per_year == 12:
        return f"{year}-{part + 1:02d}"
    raise ValueError(f"periods_per_year must be one of {PERIODS_PER_YEAR}, not {periods_per_year}")


def make_periods(start: int, years: int, periods_per_year: int = 1) -> tuple[Period, ...]:
    """The ``years · periods_per_year`` periods of a horizon starting in ``start``.

    Starts are computed as ``year + part / P`` (never by adding lengths up), so a period
    that begins a year starts exactly on it.
    """
    if periods_per_year not in PERIODS_PER_YEAR:
        raise ValueError(
            f"periods_per_year must be one of {PERIODS_PER_YEAR}, not {periods_per_year}"
        )
    length = 1.0 / periods_per_year
    return tuple(
        Period(
            label=period_label(year, part, periods_per_year),
            start=year + part / periods_per_year,
            length_years=length,
            index=(year - start) * periods_per_year + part,
            year=year,
        )
        for year in range(start, start + years)
        for part in range(periods_per_year)
    )


def horizon_periods(horizon: HorizonLike) -> tuple[Period, ...]:
    """The periods of a scenario's horizon."""
    return make_periods(horizon.start, horizon.years, horizon.periods_per_year)


def periods_alive(
    first_index: int, lifetime_years: float, periods_per_year: int, count: int
) -> range:
    """Indices of the periods in which something installed at the start of period
    ``first_index`` still works: ``lifetime_years · P`` periods from it (clipped to the
    horizon's ``count`` periods; ``first_index`` may be negative for equipment installed
    before the horizon). Integer arithmetic: no rounding of fractional starts."""
    life = round(lifetime_years * periods_per_year)
    return range(max(first_index, 0), min(first_index + life, count))


def rate_at(series: YearValue, period: Period) -> float:
    """A rate (price, tokens per day) in ``period``: geometric at its start, not divided."""
    return value_at(series, period.start, "geometric")


def peak_rate_in(series: YearValue, period: Period) -> float:
    """A demand rate's highest value inside ``period`` (its end value if it grows)."""
    return peak_over(series, period.start, period.end)


def mean_rate_in(series: YearValue, period: Period) -> float:
    """A demand rate's average over ``period``: the integral of the geometric series."""
    return mean_over(series, period.start, period.end)


def level_at(series: YearValue, period: Period) -> float:
    """A level (power cap, rental cap) in ``period``: held from the last given year."""
    return value_at(series, period.start, "hold")


def flow_in(series: YearValue, period: Period) -> float:
    """A per-year flow (budget, supply cap) in ``period``: the year's value · its length."""
    return value_at(series, period.start, "hold") * period.length_years
