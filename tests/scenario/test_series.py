"""Year-indexed values (planner/scenario/series.py): hand-worked interpolation cases."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.scenario.series import given_years, scale, value_at, values_for


def test_geometric_midpoint_is_the_geometric_mean() -> None:
    # 1 → 4 over two years is growth of 2x a year, so 2027 is 2.
    assert value_at({2026: 1.0, 2028: 4.0}, 2027, "geometric") == pytest.approx(2.0)


def test_geometric_hand_worked_over_five_years() -> None:
    # 3e11 → 7e13 over 2026..2031: growth (7e13 / 3e11) ** (1/5) per year.
    series = {2026: 3.0e11, 2031: 7.0e13}
    growth = (7.0e13 / 3.0e11) ** 0.2
    assert growth == pytest.approx(2.97, abs=0.01)  # "about 3x a year"
    for k, year in enumerate(range(2026, 2032)):
        assert value_at(series, year, "geometric") == pytest.approx(3.0e11 * growth**k)


def test_geometric_fractional_year() -> None:
    assert value_at({2026: 1.0, 2028: 4.0}, 2026.5, "geometric") == pytest.approx(math.sqrt(2))


def test_given_years_are_returned_exactly() -> None:
    series = {2026: 60.0, 2027: 120.0, 2030: 400.0}
    for fill in ("geometric", "hold"):
        assert values_for(series, series, fill) == series


def test_geometric_is_held_before_the_first_and_after_the_last_year() -> None:
    series = {2027: 10.0, 2029: 40.0}
    assert value_at(series, 2026, "geometric") == 10.0
    assert value_at(series, 2020, "geometric") == 10.0
    assert value_at(series, 2030, "geometric") == 40.0
    assert value_at(series, 2040, "geometric") == 40.0


def test_hold_fill_for_caps_and_budgets() -> None:
    # The baseline power cap: held from each given year until the next.
    caps = {2026: 60.0, 2027: 120.0, 2028: 200.0, 2030: 400.0}
    assert values_for(caps, range(2025, 2033), "hold") == {
        2025: 60.0,
        2026: 60.0,
        2027: 120.0,
        2028: 200.0,
        2029: 200.0,
        2030: 400.0,
        2031: 400.0,
        2032: 400.0,
    }


def test_hold_does_not_interpolate() -> None:
    assert value_at({2026: 1.0, 2028: 4.0}, 2027, "hold") == 1.0
    assert value_at({2026: 1.0, 2028: 4.0}, 2027.9, "hold") == 1.0


def test_unsorted_mapping() -> None:
    assert value_at({2028: 4.0, 2026: 1.0}, 2027, "geometric") == pytest.approx(2.0)


@pytest.mark.parametrize("fill", ["geometric", "hold"])
def test_plain_number_is_constant(fill: str) -> None:
    assert values_for(7.5, range(2026, 2032), fill) == dict.fromkeys(range(2026, 2032), 7.5)  # type: ignore[arg-type]
    assert isinstance(value_at(3, 2026, fill), float)  # type: ignore[arg-type]


def test_single_year_mapping_is_constant() -> None:
    assert values_for({2028: 5.0}, [2026, 2028, 2031], "geometric") == {
        2026: 5.0,
        2028: 5.0,
        2031: 5.0,
    }


def test_linear_when_a_neighbour_is_zero() -> None:
    assert value_at({2026: 0.0, 2028: 4.0}, 2027, "geometric") == pytest.approx(2.0)
    assert value_at({2026: 4.0, 2030: 0.0}, 2027, "geometric") == pytest.approx(3.0)
    assert value_at({2026: 0.0, 2028: 0.0}, 2027, "geometric") == 0.0


def test_given_years_and_scale() -> None:
    assert given_years(5.0) == []
    assert given_years(None) == []
    assert given_years({2030: 1.0, 2026: 2.0}) == [2026, 2030]
    assert scale(2.0, 3.0) == 6.0
    assert scale({2026: 1.0, 2027: 2.0}, 10.0) == {2026: 10.0, 2027: 20.0}


positive = st.floats(min_value=1e-6, max_value=1e15, allow_nan=False, allow_infinity=False)


@given(
    v0=positive,
    v1=positive,
    y0=st.integers(2000, 2080),
    gap=st.integers(1, 20),
    share=st.floats(0, 1),
)
def test_geometric_value_lies_between_its_neighbours(
    v0: float, v1: float, y0: int, gap: int, share: float
) -> None:
    year = y0 + share * gap
    value = value_at({y0: v0, y0 + gap: v1}, year, "geometric")
    low, high = min(v0, v1), max(v0, v1)
    assert low * (1 - 1e-9) <= value <= high * (1 + 1e-9)


@given(v0=positive, v1=positive, y0=st.integers(2000, 2080), gap=st.integers(2, 20))
def test_geometric_growth_rate_is_constant(v0: float, v1: float, y0: int, gap: int) -> None:
    series = {y0: v0, y0 + gap: v1}
    values = [value_at(series, y, "geometric") for y in range(y0, y0 + gap + 1)]
    ratios = [b / a for a, b in itertools.pairwise(values)]
    assert ratios == pytest.approx([ratios[0]] * len(ratios), rel=1e-6)
