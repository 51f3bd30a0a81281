"""Year-indexed values: a number (the same every year) or a mapping ``{year: value}``.

Two ways to fill the years between and around the given ones (docs/reference/scenario.md):

* ``geometric`` — demand and prices: between two given years the value grows at a
  constant rate (log-linear interpolation); before the first and after the last given
  year it is held. If either neighbour is zero the interpolation is linear.
* ``hold`` — caps and budgets: each given value holds until the next given year;
  before the first given year the first value applies.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from typing import Literal

YearValue = float | dict[int, float]
Fill = Literal["geometric", "hold"]


def value_at(series: YearValue, year: float, fill: Fill) -> float:
    """The value of ``series`` in ``year`` (fractional years allowed for sub-year periods)."""
    if not isinstance(series, Mapping):
        return float(series)
    points = sorted(series.items())
    if year <= points[0][0]:
        return float(points[0][1])
    if year >= points[-1][0]:
        return float(points[-1][1])
    for (y0, v0), (y1, v1) in itertools.pairwise(points):
        if y0 <= year < y1:
            if fill == "hold" or year == y0:
                return float(v0)
            share = (year - y0) / (y1 - y0)
            if v0 > 0 and v1 > 0:
                return float(math.exp(math.log(v0) + share * (math.log(v1) - math.log(v0))))
            return float(v0 + share * (v1 - v0))
    raise AssertionError("unreachable: year lies between the first and last points")


def peak_over(series: YearValue, start: float, end: float) -> float:
    """The highest value of a geometric ``series`` on ``[start, end]`` (fractional years).

    Between given years the series is monotone, so the maximum lies at ``start``, ``end``
    or a given year inside: for a growing series it is the value at ``end``.
    """
    inside = [float(y) for y in given_years(series) if start < y < end]
    return max(value_at(series, y, "geometric") for y in [start, end, *inside])


def mean_over(series: YearValue, start: float, end: float) -> float:
    """The average of a geometric ``series`` over ``[start, end]``: its exact integral
    divided by ``end − start``.

    On a segment growing at the constant rate g = ln(v1/v0)/(y1 − y0), the integral from
    a to b is (v(b) − v(a))/g (v(b − a) when g = 0); a segment with a zero neighbour is
    linear and its integral is the trapezoid (v(a) + v(b))/2 · (b − a).
    """
    if end <= start:
        return value_at(series, start, "geometric")
    cuts = [start, *(float(y) for y in given_years(series) if start < y < end), end]
    total = 0.0
    for a, b in itertools.pairwise(cuts):
        va, vb = value_at(series, a, "geometric"), value_at(series, b, "geometric")
        if va > 0 and vb > 0 and not math.isclose(va, vb, rel_tol=1e-12):
            total += (vb - va) / (math.log(vb / va) / (b - a))
        else:
            total += (va + vb) / 2 * (b - a)
    return total / (end - start)


def values_for(series: YearValue, years: Iterable[float], fill: Fill) -> dict[float, float]:
    """``{year: value}`` for each of ``years``."""
    return {y: value_at(series, y, fill) for y in years}


def given_years(series: YearValue | None) -> list[int]:
    """The years a series names explicitly (empty for a plain number)."""
    if isinstance(series, Mapping):
        return sorted(series)
    return []


def scale(series: YearValue, factor: float) -> YearValue:
    """``series`` with every value multiplied by ``factor``."""
    if isinstance(series, Mapping):
        return {y: v * factor for y, v in series.items()}
    return series * factor
