"""Purchases delivered through their period under ``peak_average`` (issue 17 item 1).

Hand-worked on tests/scenarios/delivered_through_year.yaml (its header has the
arithmetic): 6 units at the opening of 2026, 2 delivered through 2027, which run half
of 2027, are paid on average at 2027.5 and age from 2027.5. Then the coarse-vs-fine
property on the baseline: a yearly plan is feasible quarter by quarter and never
cheaper than a finer one beyond the MIP gap, and dearer by at most 10% (yearly) and
3% (half-yearly) than the quarterly plan.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from planner import api
from planner.results import Plan
from planner.results.checker import check_plan
from planner.results.resolution import resolution_check
from planner.scenario.schema import Scenario
from planner.scenario.yamlio import read_yaml

ROOT = Path(__file__).resolve().parents[2]
THROUGH = ROOT / "tests" / "scenarios" / "delivered_through_year.yaml"
R = 1.10


def _with(scenario: Scenario, **horizon: object) -> Scenario:
    return scenario.model_copy(update={"horizon": scenario.horizon.model_copy(update=horizon)})


def _rates(plan: Plan) -> tuple[float, float]:
    """P, the list price, and c, energy + facility + maintenance per unit-year."""
    fleet = plan.tables["fleet"].iloc[0]
    price = float(plan.tables["purchases"]["price_usd"].iloc[0])
    running = (
        fleet["energy_usd_per_unit_year"]
        + fleet["facility_usd_per_unit_year"]
        + fleet["maintenance_usd_per_unit_year"]
    )
    return price, float(running)


@pytest.fixture(scope="module")
def through() -> Plan:
    return api.plan(api.load(THROUGH))


def test_hand_worked_purchase_through_its_year(through: Plan) -> None:
    purchases = through.tables["purchases"]
    bought = dict(zip(purchases["period"], purchases["units"], strict=True))
    assert bought == {"2026": pytest.approx(6.0), "2027": pytest.approx(2.0)}
    p, c = _rates(through)
    npv = (
        6 * p
        + 6 * c
        + (6 + 2 / 2) * c / R
        + 8 * c / R**2
        + 2 * p / R**1.5
        - (6 * p * 2 / 5 + 2 * p * 3.5 / 5) / R**3
    )
    assert through.headline["npv_cost_usd"] == pytest.approx(npv, rel=1e-9)
    assert through.headline["objective_usd"] == pytest.approx(npv, rel=1e-7)
    fleet = through.tables["fleet"].astype({"period": str, "vintage": str})
    fleet = fleet.set_index(["period", "vintage"])
    assert fleet.loc[("2027", "2027"), "units"] == pytest.approx(2.0)
    assert fleet.loc[("2027", "2027"), "units_in_service"] == pytest.approx(1.0)
    assert fleet.loc[("2027", "2026"), "units_in_service"] == pytest.approx(6.0)
    residual = through.tables["purchases"].set_index("period")["residual_fraction"]
    assert list(residual) == pytest.approx([2 / 5, 3.5 / 5])
    costs = through.tables["costs"].set_index(["period", "category"])
    assert costs.loc[("2027", "capex"), "discount_factor"] == pytest.approx(R**-1.5)
    assert costs.loc[("2026", "capex"), "discount_factor"] == pytest.approx(1.0)
    assert through.parameters["ramp_periods"] == ["2027", "2028"]  # 2026 opens
    assert check_plan(through) == []


def test_under_start_the_same_purchase_runs_all_year() -> None:
    """The same scenario under ``start``: demand read at each year's start (9.0e9,
    1.35e10, 2.025e10: 156,250, 234,375 and 351,562.5 tokens/s, 4, 6 and 8 units),
    each purchase in service all of its year, paid at its start and aged from it."""
    plan = api.plan(_with(api.load(THROUGH), demand_within_period="start"))
    bought = dict(
        zip(plan.tables["purchases"]["period"], plan.tables["purchases"]["units"], strict=True)
    )
    assert bought == {k: pytest.approx(u) for k, u in (("2026", 4), ("2027", 2), ("2028", 2))}
    p, c = _rates(plan)
    npv = (
        4 * p
        + 4 * c
        + (6 * c + 2 * p) / R
        + (8 * c + 2 * p) / R**2
        - (4 * p * 2 / 5 + 2 * p * 3 / 5 + 2 * p * 4 / 5) / R**3
    )
    assert plan.headline["npv_cost_usd"] == pytest.approx(npv, rel=1e-9)
    assert (plan.tables["fleet"]["units_in_service"] == plan.tables["fleet"]["units"]).all()
    assert plan.parameters["ramp_periods"] == []


def test_checker_catches_full_year_running_costs_for_a_ramp_purchase(through: Plan) -> None:
    fleet = through.tables["fleet"].copy()
    arriving = (fleet["period"] == "2027") & (fleet["vintage"].astype(str) == "2027")
    fleet.loc[arriving, "units_in_service"] = fleet.loc[arriving, "units"]
    broken = replace(through, tables={**through.tables, "fleet": fleet})
    assert any("in service on average" in p for p in check_plan(broken))


def test_checker_catches_capex_discounted_at_the_period_start(through: Plan) -> None:
    broken = replace(through, parameters={**through.parameters, "ramp_periods": []})
    problems = check_plan(broken)
    assert any("objective" in p for p in problems)
    assert any("residual share" in p for p in problems)


@pytest.fixture(scope="module")
def baseline_plans() -> dict[int, tuple[Scenario, Plan]]:
    base = api.load(ROOT / "scenarios" / "baseline.yaml")
    assert base.horizon.demand_within_period == "peak_average"  # the default
    out = {}
    for per_year in (1, 2, 4):
        scenario = _with(base, periods_per_year=per_year)
        out[per_year] = (scenario, api.plan(scenario))
    return out


def test_baseline_coarse_plan_is_feasible_quarter_by_quarter(baseline_plans) -> None:
    scenario, yearly = baseline_plans[1]
    check = resolution_check(yearly, scenario, 4)
    assert check["meets"].all()


def test_baseline_coarse_plan_is_dearer_but_not_by_much(baseline_plans) -> None:
    npv = {k: plan.headline["npv_cost_usd"] for k, (_, plan) in baseline_plans.items()}
    gap = baseline_plans[1][0].solver.mip_gap
    assert npv[1] >= npv[4] * (1 - gap)
    assert npv[2] >= npv[4] * (1 - gap)
    # With the catalog's 20 %/yr price decline a finer plan also buys later at lower
    # prices: yearly is 12.1 % above quarterly, half-yearly 2.5 % (README "Time
    # resolution": most of the yearly gap is the opening years delivered at their start).
    assert npv[1] / npv[4] <= 1.13
    assert npv[2] / npv[4] <= 1.03
    for _, plan in baseline_plans.values():
        assert check_plan(plan) == []


def test_baseline_coarse_plan_with_catalog_prices_held() -> None:
    """With catalog prices held (no decline) the issue's bounds hold: yearly 9.8 % and
    half-yearly 1.9 % above quarterly."""
    raw, _ = read_yaml(ROOT / "scenarios" / "baseline.yaml")
    for h in raw["hardware"]:
        if "price_usd" not in h:
            h["price_decline_per_year"] = 0.0
    base = api.load(raw)
    npv = {}
    for per_year in (1, 2, 4):
        npv[per_year] = api.plan(_with(base, periods_per_year=per_year)).headline["npv_cost_usd"]
    assert npv[4] <= npv[2] <= npv[1]
    assert npv[1] / npv[4] <= 1.10
    assert npv[2] / npv[4] <= 1.03
