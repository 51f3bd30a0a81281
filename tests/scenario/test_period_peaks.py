"""Demand in a period: its highest value for capacity, its average for tokens (issue 17).

Hand-worked: {2026: 100, 2028: 400} doubles every year, v(y) = 100 · 2^(y − 2026).
Over 2026 the peak is v(2027) = 200 and the average ∫₀¹ 100 · 2^x dx = 100 / ln 2
= 144.2695; over 2026Q4 the average is 100 · (2 − 2^0.75) / (0.25 · ln 2) = 183.63.
"""

from __future__ import annotations

import math

import pytest

from planner.scenario.periods import make_periods, mean_rate_in, peak_rate_in
from planner.scenario.series import mean_over, peak_over

DOUBLING = {2026: 100.0, 2028: 400.0}


def test_a_growing_series_peaks_at_the_period_end() -> None:
    assert peak_over(DOUBLING, 2026.0, 2027.0) == pytest.approx(200.0)
    q4 = make_periods(2026, 1, 4)[3]
    assert peak_rate_in(DOUBLING, q4) == pytest.approx(200.0)


def test_the_average_is_the_integral_over_the_length() -> None:
    assert mean_over(DOUBLING, 2026.0, 2027.0) == pytest.approx(100 / math.log(2))
    q4 = make_periods(2026, 1, 4)[3]
    expected = 100 * (2 - 2**0.75) / (0.25 * math.log(2))
    assert mean_rate_in(DOUBLING, q4) == pytest.approx(expected)
    assert expected == pytest.approx(183.63, abs=0.01)


def test_quarters_average_to_the_year() -> None:
    quarters = make_periods(2026, 1, 4)
    mean = sum(mean_rate_in(DOUBLING, q) for q in quarters) / 4
    assert mean == pytest.approx(mean_over(DOUBLING, 2026.0, 2027.0))


def test_a_peak_inside_the_period_is_found() -> None:
    hump = {2026: 100.0, 2027: 200.0, 2028: 100.0}
    assert peak_over(hump, 2026.0, 2028.0) == pytest.approx(200.0)
    assert mean_over(hump, 2026.0, 2028.0) == pytest.approx(100 / math.log(2))


def test_a_flat_series_is_its_value() -> None:
    assert peak_over(50.0, 2026.0, 2027.0) == 50.0
    assert mean_over(50.0, 2026.0, 2027.0) == pytest.approx(50.0)
    assert mean_over({2026: 0.0, 2027: 10.0}, 2026.0, 2027.0) == pytest.approx(5.0)


def _power_switch(mode: str):  # type: ignore[no-untyped-def]
    from pathlib import Path

    from planner.scenario import load_scenario

    scenario = load_scenario(Path(__file__).parents[1] / "scenarios" / "power_switch.yaml")
    horizon = scenario.horizon.model_copy(update={"demand_within_period": mode})
    return scenario.model_copy(update={"horizon": horizon})


def test_the_model_reads_peak_and_average_demand() -> None:
    """power_switch: chat {2026: 1e10, 2027: 3e10} tokens/day, peak_to_average 1.5.

    peak_average: the 2026 peak is the 2027 value 3e10 × 1.5 = 4.5e10 tokens/day and the
    2026 average (3e10 − 1e10) / ln 3 = 1.8205e10; start keeps 1e10 × 1.5 and 1e10.
    """
    from planner.optimize import build_data
    from planner.pipeline import throughput
    from planner.units import MTOK

    for mode, peak, mean in [
        ("peak_average", 4.5e10, 2e10 / math.log(3)),
        ("start", 1.5e10, 1e10),
    ]:
        scenario = _power_switch(mode)
        d = build_data(scenario, *throughput(scenario))
        assert d.demand_peak[("chat", 2026, "output")] * MTOK == pytest.approx(peak)
        assert d.demand_tokens_per_day[("chat", 2026)] == pytest.approx(mean)
