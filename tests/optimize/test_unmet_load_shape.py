"""Unmet tokens under the linear load-duration curve: hand solution of
tests/scenarios/load_shape_shortfall.yaml and variants of its peak-to-average.

A power cap holds the fleet at 2 h100-hgx below a flat demand's peak; the tokens lost
are worked here from the curve's formulas (not from planner.economics.load_shape).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.pipeline import plan, throughput
from planner.results import Plan
from planner.results.checker import check_plan
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario

HERE = Path(__file__).resolve().parents[1] / "scenarios"
SECONDS_PER_DAY = 86_400
DAYS = 365.25
DEMAND = 1.0e10  # tokens/day, both years


def shortfall(
    p2a: float = 1.1, objective: str = "min_cost", price: float | None = None
) -> Scenario:
    scenario = load_scenario(HERE / "load_shape_shortfall.yaml")
    update: dict = {"peak_to_average": p2a}
    if price is not None:
        update["price_usd_per_mtok"] = price
    chat = scenario.inference[0].model_copy(update=update)
    return scenario.model_copy(update={"inference": [chat], "objective": objective})


def tau(scenario: Scenario) -> float:
    inference, _ = throughput(scenario)
    return float(inference["output_tokens_per_s_per_unit"].iloc[0])


def solved(scenario: Scenario) -> tuple[Plan, float, float]:
    """The plan, the peak P and the shortfall u = P − 2 tau (tokens/s)."""
    result = plan(scenario)
    assert result.status == "optimal"
    assert result.tables["purchases"]["units"].tolist() == [2]  # the power cap's 2 units
    assert check_plan(result) == []
    peak = DEMAND * scenario.inference[0].peak_to_average / SECONDS_PER_DAY
    return result, peak, peak - 2 * tau(scenario)


def lost_tokens(result: Plan) -> list[float]:
    return result.tables["served"]["unmet_tokens"].tolist()


def test_the_linear_part_loses_the_shortfall_less_half_the_curves_fall() -> None:
    result, peak, u = solved(shortfall())
    s = 2 * peak * (1 - 1 / 1.1)  # the day's load falls from P to 0.818 P
    assert s < u  # every hour is short: the curve's linear part, where ℓ = u − s/2
    lost = (u - s / 2) * SECONDS_PER_DAY * DAYS
    assert lost_tokens(result) == pytest.approx([lost, lost], rel=1e-6)
    assert result.headline["unmet_inference_tokens"] == pytest.approx(2 * lost, rel=1e-6)
    assert result.headline["unmet_tokens_basis"] == (
        "linear load-duration curve from peak_to_average"
    )
    # The former rule, u / p2a, counted about 1.3 times as many.
    former = u / 1.1 * SECONDS_PER_DAY * DAYS
    assert former / lost == pytest.approx(u / (1.1 * u - 0.1 * peak), rel=1e-6)
    assert 1.25 < former / lost < 1.35
    served = result.tables["served"]["served_tokens"].tolist()
    assert served == pytest.approx([DEMAND * DAYS - lost] * 2, rel=1e-6)
    penalty = result.tables["costs"].query("category == 'penalty_unmet_inference'")
    assert penalty["usd"].tolist() == pytest.approx([lost / 1e6 * 1000.0] * 2, rel=1e-6)


def test_a_peakier_day_loses_a_chord_of_the_quadratic() -> None:
    """Peak-to-average 2: the day's load falls from P to 0, s = P, ℓ = u²/(2P); the
    planner charges the chord of width P/4 that u lies on, at most P/128 above it."""
    result, peak, u = solved(shortfall(2.0))
    k = int(u / (peak / 4))
    assert k == 2  # u ~ 0.61 P
    h = peak / 4
    chord = h / (2 * peak) * ((2 * k + 1) * u - k * (k + 1) * h)
    assert lost_tokens(result) == pytest.approx([chord * SECONDS_PER_DAY * DAYS] * 2, rel=1e-6)
    exact = u * u / (2 * peak)
    assert 0 <= chord - exact <= peak / 128
    former = u / 2.0
    assert former / exact == pytest.approx(peak / u, rel=1e-9)  # ~1.6 times as many
    assert former / chord > 1.5


def test_flat_demand_loses_the_whole_shortfall() -> None:
    result, _, u = solved(shortfall(1.0))
    assert lost_tokens(result) == pytest.approx([u * SECONDS_PER_DAY * DAYS] * 2, rel=1e-6)


def test_max_profit_prices_the_lost_tokens_of_the_curve() -> None:
    """At $1,000 per Mtok the 2 units pay; the revenue lost is the curve's tokens at it."""
    result, peak, u = solved(shortfall(objective="max_profit", price=1000.0))
    lost = (u - peak / 11) * SECONDS_PER_DAY * DAYS
    revenue = result.tables["revenue"]
    assert revenue["lost_revenue_usd"].tolist() == pytest.approx([lost / 1e6 * 1000.0] * 2)
    assert result.headline["lost_revenue_usd"] == pytest.approx(2 * lost / 1e6 * 1000.0)
