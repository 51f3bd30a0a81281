"""Sub-year periods (issue 7): the period list, how yearly inputs reach quarters, and
hand-worked quarterly plans that agree with their yearly twins where they should.

Discounting convention (the yearly model's, applied to fractional years): every cash
flow of a period is booked at the period's start, DF = (1 + wacc)^−(start − horizon
start); 2027Q3 of a horizon from 2026 starts at 2027.5, so DF = 1.1^−1.5.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from planner.optimize import build_data
from planner.pipeline import plan, throughput
from planner.results import Plan
from planner.results.checker import check_plan
from planner.scenario import load_scenario
from planner.scenario.periods import flow_in, level_at, make_periods, periods_alive, rate_at
from planner.scenario.schema import Horizon, Scenario

HAND = Path(__file__).resolve().parents[1] / "scenarios"
WACC = 0.10
RUNNING = 6_254.64 + 15_300 + 8_400  # h100-hgx energy + facility + maintenance per unit-year


def variant(name: str, per_year: int = 4, **changes: Any) -> Scenario:
    """A hand scenario with ``per_year`` periods a year and top-level sections replaced."""
    doc = load_scenario(HAND / f"{name}.yaml").model_dump(mode="python")
    doc["horizon"] = {**doc["horizon"], "periods_per_year": per_year}
    for key, value in changes.items():
        doc[key] = value
    return Scenario.model_validate(doc)


def solved(scenario: Scenario) -> Plan:
    return plan(scenario, tables=throughput(scenario))


# --- the period list ---------------------------------------------------------------------


def test_quarters_are_labelled_and_start_at_fractional_years() -> None:
    periods = make_periods(2026, 2, 4)
    assert [p.label for p in periods[:5]] == ["2026Q1", "2026Q2", "2026Q3", "2026Q4", "2027Q1"]
    q3 = periods[6]
    assert (q3.label, q3.start, q3.length_years) == ("2027Q3", 2027.5, 0.25)
    assert (q3.index, q3.year, q3.name) == (6, 2027, "2027Q3")
    assert [p.label for p in make_periods(2026, 2, 1)] == [2026, 2027]  # yearly: the year
    assert make_periods(2026, 1, 2)[1].label == "2026H2"
    months = make_periods(2026, 1, 12)
    assert months[6].label == "2026-07" and months[6].start == pytest.approx(2026.5)
    assert make_periods(2026, 2, 12)[12].start == 2027.0  # a year starts exactly on it


def test_horizon_accepts_halves_quarters_and_months_only() -> None:
    for per_year in (1, 2, 4, 12):
        horizon = Horizon(start=2026, years=3, periods_per_year=per_year)
        assert horizon.period_count == 3 * per_year
        assert horizon.period_length_years == pytest.approx(1 / per_year)
        assert len(horizon.periods) == 3 * per_year
    with pytest.raises(ValidationError, match="periods_per_year"):
        Horizon(start=2026, years=3, periods_per_year=3)


def test_a_one_year_life_is_four_quarters() -> None:
    assert list(periods_alive(1, 1, 4, 12)) == [1, 2, 3, 4]  # bought 2026Q2: to 2027Q1
    assert list(periods_alive(-4, 2, 4, 12)) == [0, 1, 2, 3]  # installed a year before
    assert list(periods_alive(10, 1, 4, 12)) == [10, 11]  # clipped at the horizon end


# --- spreading yearly inputs -------------------------------------------------------------


def test_rates_levels_and_flows_reach_quarters_by_their_own_rules() -> None:
    q = {p.label: p for p in make_periods(2026, 3, 4)}
    demand = {2026: 1.0e10, 2028: 4.0e10}
    assert rate_at(demand, q["2027Q1"]) == pytest.approx(2.0e10)  # geometric midpoint
    assert rate_at(demand, q["2026Q3"]) == pytest.approx(1.0e10 * 4**0.25)  # at 2026.5
    assert rate_at(3.0, q["2026Q2"]) == 3.0  # a rate is never divided
    cap = {2026: 10.0, 2027: 20.0}
    assert level_at(cap, q["2026Q4"]) == 10.0 and level_at(cap, q["2027Q1"]) == 20.0
    assert flow_in({2026: 4.0e6, 2027: 8.0e6}, q["2027Q2"]) == pytest.approx(2.0e6)
    assert flow_in(4.0e6, q["2028Q4"]) == pytest.approx(1.0e6)  # held, then a quarter


def test_model_data_spreads_a_quarterly_scenario() -> None:
    scenario = variant(
        "budget_shortfall",
        horizon={"start": 2026, "years": 2, "periods_per_year": 4},
        budget={"capex_usd": {2026: 2.4e6, 2027: 4.0e6}},
        hardware=[{"id": "h100-hgx", "max_units_per_year": 40.0}],
        sites=[{"name": "dc", "power_cap_mw": {2026: 10.0, 2027: 20.0}}],
    )
    data = build_data(scenario, *throughput(scenario))
    assert len(data.periods) == 8 and data.periods_per_year == 4
    # Demand per day stays per day: every quarter serves 1e10 tokens/day at peak 1.5.
    assert set(data.demand_tokens_per_day.values()) == {1.0e10}
    assert data.demand_peak[("chat", "2027Q3", "output")] == pytest.approx(1.5e4)  # Mtok/day
    assert data.budget_usd["2026Q2"] == pytest.approx(6.0e5)  # 2.4M a year, a quarter each
    assert data.budget_usd["2027Q4"] == pytest.approx(1.0e6)
    assert data.supply_max_units[("h100-hgx", "2026Q1")] == pytest.approx(10.0)
    assert data.power_cap_mw[("dc", "2026Q4")] == 10.0  # levels are held, not divided
    assert data.power_cap_mw[("dc", "2027Q1")] == 20.0
    assert data.period_length["2027Q3"] == 0.25
    assert data.discount_factor["2027Q3"] == pytest.approx((1 + WACC) ** -1.5)
    assert data.discount_factor_end == pytest.approx((1 + WACC) ** -2)
    # A five-year h100 bought in 2026Q1 is alive in all eight quarters.
    assert all("2026Q1" in data.vintages_alive[("h100-hgx", "dc", p.label)] for p in data.periods)


def test_lifetime_in_quarters_retires_at_the_right_quarter() -> None:
    scenario = variant("lifetime_rebuy")  # h100 with a two-year life, 2026-2028
    data = build_data(scenario, *throughput(scenario))
    alive = [t for (_, _, t), vintages in data.vintages_alive.items() if "2026Q2" in vintages]
    # Two years are eight quarters: bought in 2026Q2, retired after 2028Q1.
    assert alive == ["2026Q2", "2026Q3", "2026Q4", "2027Q1", "2027Q2", "2027Q3", "2027Q4", "2028Q1"]


# --- quarterly plans worked by hand -----------------------------------------------------


def test_one_quarterly_year_costs_the_yearly_plan_discounted_by_quarter() -> None:
    """4 h100 bought in 2026Q1 (as in the yearly plan: demand per day is unchanged);
    their running costs are paid a quarter at a time, each quarter discounted from its
    start; the residual (4/5 of the price) is discounted from the horizon end."""
    result = solved(variant("one_hardware_one_year"))
    purchases = result.tables["purchases"]
    assert purchases[["period", "year", "units"]].values.tolist() == [["2026Q1", 2026, 4.0]]
    fleet = result.tables["fleet"].groupby("period")["units"].sum()
    assert fleet.to_dict() == {f"2026Q{q}": 4.0 for q in (1, 2, 3, 4)}
    quarters = sum(0.25 * (1 + WACC) ** -(k / 4) for k in range(4))
    per_unit = 280_000 + RUNNING * quarters - 280_000 * 4 / 5 / (1 + WACC)
    assert result.headline["objective_usd"] == pytest.approx(4 * per_unit, rel=1e-9)
    # Rolled up to the year, the cash is the yearly plan's: 4 units, one year of running.
    costs = result.tables["costs_by_year"].set_index("category")["usd"]
    assert costs["capex"] == pytest.approx(4 * 280_000)
    assert costs["energy"] + costs["facility"] + costs["maintenance"] == pytest.approx(4 * RUNNING)
    assert check_plan(result) == []


def test_without_discounting_quarters_and_years_agree_exactly() -> None:
    """Constant demand, wacc 0: the quarterly plan buys what the yearly plan buys, when it
    buys it, and costs the same in every year and in total."""
    finance = {"wacc": 0.0, "pue": 1.25, "electricity_usd_per_kwh": 0.07, "availability": 1.0}
    yearly = solved(variant("lifetime_rebuy", 1, finance=finance))
    quarterly = solved(variant("lifetime_rebuy", 4, finance=finance))
    bought = quarterly.tables["purchases"].set_index("period")["units"].to_dict()
    assert bought == {"2026Q1": 4.0, "2028Q1": 4.0}  # the yearly plan: 2026 and 2028
    assert quarterly.headline["objective_usd"] == pytest.approx(
        yearly.headline["objective_usd"], rel=1e-9
    )
    by_year = quarterly.tables["costs_by_year"].set_index(["year", "category"])["usd"]
    same = yearly.tables["costs_by_year"].set_index(["year", "category"])["usd"]
    assert by_year.to_dict() == pytest.approx(same.to_dict(), rel=1e-9, abs=1e-6)


def test_a_quarterly_budget_is_a_quarter_of_the_year() -> None:
    """$2.4M a year is $600k a quarter: two $280k h100 a quarter, so the four units the
    demand needs arrive over two quarters and 2026Q1 is half served."""
    result = solved(variant("budget_shortfall", budget={"capex_usd": 2.4e6}))
    budget = result.tables["budget"].set_index("period")
    assert budget["budget_usd"].tolist() == pytest.approx([6.0e5] * 4)
    bought = result.tables["purchases"].set_index("period")["units"].to_dict()
    assert bought == {"2026Q1": 2.0, "2026Q2": 2.0}
    assert bool(budget.loc["2026Q1", "binding"])
    served = result.tables["served"].set_index("period")
    assert served.loc["2026Q1", "unmet_share"] > 0.4 and served.loc["2026Q2", "unmet_share"] == 0
    unmet = [s for s in result.diagnosis if "left unmet" in s]  # one sentence per year
    assert len(unmet) == 1 and unmet[0].startswith("2026 (1 of 4 periods; worst 2026Q1):")
    assert "capex budget" in unmet[0]
    assert check_plan(result) == []


@pytest.mark.parametrize(
    "name",
    ["power_switch", "rental_spike", "existing_fleet", "training_one_type", "disaggregated"],
)
def test_checker_passes_on_quarterly_plans(name: str) -> None:
    result = solved(variant(name))
    assert result.status == "optimal"
    assert set(result.tables["periods"]["period"].str[-2:]) == {"Q1", "Q2", "Q3", "Q4"}
    assert check_plan(result) == []


def test_quarterly_tables_carry_period_and_year_and_roll_up() -> None:
    result = solved(variant("rental_spike"))
    for name in ("purchases", "fleet", "rentals", "served", "power", "costs", "usd_per_mtok"):
        frame = result.tables[name]
        assert list(frame.columns[:2]) == ["period", "year"], name
    served = result.tables["served"]
    assert served.groupby("year")["period"].nunique().eq(4).all()
    costs = result.tables["costs"]
    rolled = result.tables["costs_by_year"]
    assert rolled["usd"].sum() == pytest.approx(costs["usd"].sum())
    assert rolled["usd_pv"].sum() == pytest.approx(costs["usd_pv"].sum())
    assert len(rolled) == costs["year"].nunique() * costs["category"].nunique()
