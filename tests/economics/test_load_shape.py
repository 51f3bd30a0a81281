"""Lost demand under the linear load-duration curve, against values worked by hand."""

from __future__ import annotations

import pytest

from planner.economics.load_shape import (
    CHORDS,
    lost_average,
    lost_charged,
    lost_lines,
    span,
    worst_overcharge,
)


def _integral(u: float, peak: float, a: float, steps: int = 200_000) -> float:
    """∫ (d(x) − (P − u))⁺ dx by the midpoint rule over the curve the module describes."""
    low = peak * (2 / a - 1) if a <= 2 else 0.0
    share = 1.0 if a <= 2 else 2 / a
    total = 0.0
    for i in range(steps):
        x = (i + 0.5) / steps
        d = peak - (peak - low) * x / share if x <= share else 0.0
        total += max(d - (peak - u), 0.0)
    return total / steps


def test_flat_demand_loses_the_shortfall() -> None:
    # a = 1: demand is P all day, so a shortfall u at peak is u lost all day.
    assert span(100.0, 1.0) == 0.0
    assert lost_average(30.0, 100.0, 1.0) == 30.0
    assert lost_charged(30.0, 100.0, 1.0) == 30.0


def test_hand_values_below_two() -> None:
    # P = 150, a = 1.5: M = 100, the curve runs from 150 to m = 50, s = 100.
    assert span(150.0, 1.5) == pytest.approx(100.0)
    assert lost_average(20.0, 150.0, 1.5) == pytest.approx(2.0)  # 20² / 200
    assert lost_average(100.0, 150.0, 1.5) == pytest.approx(50.0)  # the curve's end
    assert lost_average(120.0, 150.0, 1.5) == pytest.approx(70.0)  # 120 − 100/2
    assert lost_average(150.0, 150.0, 1.5) == pytest.approx(100.0)  # all of M
    # Proportional rationing would say 20 / 1.5 = 13.3: 6.7 times the shape's 2.
    assert (20.0 / 1.5) / lost_average(20.0, 150.0, 1.5) == pytest.approx(20 / 3)


def test_hand_values_above_two() -> None:
    # P = 100, a = 4: demand falls from 100 to 0 over half the day; M = 25, s = 200.
    assert span(100.0, 4.0) == pytest.approx(200.0)
    assert lost_average(50.0, 100.0, 4.0) == pytest.approx(6.25)  # 50² / 400
    assert lost_average(100.0, 100.0, 4.0) == pytest.approx(25.0)
    # a = 2 exactly: from 100 to 0 over the day, both branches agree.
    assert lost_average(100.0, 100.0, 2.0) == pytest.approx(50.0)


@pytest.mark.parametrize("a", [1.2, 1.5, 2.0, 3.0, 6.0])
@pytest.mark.parametrize("share", [0.05, 0.3, 0.7, 1.0])
def test_matches_the_integral_of_the_curve(a: float, share: float) -> None:
    peak = 80.0
    u = share * peak
    assert lost_average(u, peak, a) == pytest.approx(_integral(u, peak, a), rel=1e-4, abs=1e-6)


def test_chords_hand_values() -> None:
    # P = 150, a = 1.5: q = s = 100, chords of width 25, c = 1/200.
    assert CHORDS == 4
    lines = lost_lines(150.0, 1.5)
    assert lines[0] == pytest.approx((0.125, 0.0))
    assert lines[1] == pytest.approx((0.375, -6.25))
    assert lines[-1] == pytest.approx((1.0, -50.0))  # the linear part
    assert lost_charged(20.0, 150.0, 1.5) == pytest.approx(2.5)  # 0.125 · 20
    assert lost_charged(25.0, 150.0, 1.5) == pytest.approx(3.125)  # a breakpoint: exact
    assert lost_charged(37.5, 150.0, 1.5) == pytest.approx(7.8125)  # exact 7.03125
    assert lost_charged(120.0, 150.0, 1.5) == pytest.approx(70.0)  # linear part: exact
    assert worst_overcharge(150.0, 1.5) == pytest.approx(0.78125)  # M (a − 1) / 64


@pytest.mark.parametrize("a", [1.0, 1.3, 1.5, 2.0, 2.5, 4.0, 10.0])
def test_charged_is_exact_at_breakpoints_and_within_its_bound(a: float) -> None:
    peak = 60.0
    mean = peak / a
    bound = worst_overcharge(peak, a)
    assert bound <= mean * min(a - 1, 1) / (4 * CHORDS**2) + 1e-12
    worst = 0.0
    for i in range(1001):
        u = peak * i / 1000
        gap = lost_charged(u, peak, a) - lost_average(u, peak, a)
        assert gap >= -1e-9
        worst = max(worst, gap)
    assert worst <= bound + 1e-9
    assert lost_charged(peak, peak, a) == pytest.approx(mean)
    assert lost_charged(0.0, peak, a) == 0.0
