"""Lead times, payment timing, availability dates, end of sale, launch caps, on_order.

Hand-solvable scenarios (tests/scenarios/*.yaml carry the worked numbers); the money
is recomputed here from the comment's arithmetic, independently of the cost code.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pandas as pd
import pytest

from planner.optimize import build_data, build_model
from planner.pipeline import plan, throughput
from planner.results.checker import check_plan
from planner.results.plan import Plan
from planner.scenario import load_scenario
from planner.scenario.schema import OnOrder, Scenario
from planner.scenario.timing import date_year, lead_periods, quarter_start

HERE = Path(__file__).resolve().parents[1] / "scenarios"
RUNNING = 10.2 * 1.25 * 0.8 * 8760 * 0.07 + 10.2 * 1500 + 0.03 * 280_000  # 29,954.64
PRICE = 280_000.0


def load(name: str) -> Scenario:
    return load_scenario(HERE / f"{name}.yaml")


def with_finance(scenario: Scenario, **update: object) -> Scenario:
    return scenario.model_copy(update={"finance": scenario.finance.model_copy(update=update)})


def test_timing_helpers() -> None:
    assert quarter_start("2027Q3") == 2027.5
    assert quarter_start("2027-08-15") == 2027.5  # a date means its quarter
    assert quarter_start("2027-01-01") == 2027.0
    assert lead_periods(0, 1) == 0
    assert lead_periods(3, 1) == 1  # arrives in the next yearly period
    assert lead_periods(12, 1) == 1
    assert lead_periods(13, 1) == 2
    assert lead_periods(6, 4) == 2
    assert lead_periods(1, 4) == 1
    assert date_year(2027) == 2027.0
    assert date_year("2027-07-01") == 2027.5  # the start of 2027Q3: delivered then


def test_a_lead_time_places_the_order_a_year_ahead_and_pays_it_then() -> None:
    result = plan(load("lead_time_order_ahead"))
    assert result.status == "optimal"
    bought = result.tables["purchases"]
    assert bought[["period", "order_period", "units"]].values.tolist() == [["2027", "2026", 4.0]]
    expected = 4 * PRICE + 4 * RUNNING + 4 * RUNNING / 1.1 - 4 * PRICE * 4 / 5 / 1.1**2
    assert result.headline["objective_usd"] == pytest.approx(expected, rel=1e-9)
    assert expected == pytest.approx(608_248.65, abs=0.01)  # the comment's figure
    costs = result.tables["costs"]
    capex = costs[costs["category"] == "capex"].set_index("period")["usd"]
    assert capex.to_dict() == pytest.approx({"2026": 4 * PRICE, "2027": 0.0})
    assert check_plan(result) == []


@pytest.mark.parametrize(
    ("payment", "paid_2026"), [("at_delivery", 0.0), ("split", 0.5), ("at_order", 1.0)]
)
def test_payment_timing_moves_capex_between_order_and_delivery(
    payment: str, paid_2026: float
) -> None:
    result = plan(with_finance(load("lead_time_order_ahead"), capex_payment=payment))
    capex = 4 * PRICE * (paid_2026 + (1 - paid_2026) / 1.1)
    expected = capex + 4 * RUNNING + 4 * RUNNING / 1.1 - 4 * PRICE * 4 / 5 / 1.1**2
    assert result.headline["objective_usd"] == pytest.approx(expected, rel=1e-9)
    budget = result.tables["budget"].set_index("period")["capex_usd"]
    assert budget.to_dict() == pytest.approx(
        {"2026": 4 * PRICE * paid_2026, "2027": 4 * PRICE * (1 - paid_2026)}
    )
    assert check_plan(result) == []


def test_the_budget_binds_in_the_payment_period() -> None:
    """$1M in 2026 buys 3 units paid at order there (4 cost $1.12M); paid at delivery
    the 2027 budget is what counts, and all 4 are bought."""
    base = load("lead_time_order_ahead")
    budgeted = base.model_copy(
        update={"budget": base.budget.model_copy(update={"capex_usd": {2026: 1.0e6, 2027: 1e9}})}
    )
    at_order = plan(budgeted)
    assert at_order.tables["purchases"]["units"].sum() == 3
    assert check_plan(at_order) == []
    at_delivery = plan(with_finance(budgeted, capex_payment="at_delivery"))
    assert at_delivery.tables["purchases"]["units"].sum() == 4


def test_a_system_available_from_mid_year_has_no_capacity_before() -> None:
    result = plan(load("available_mid_year"))
    fleet = result.tables["fleet"]
    assert sorted(set(fleet["period"])) == ["2027Q3", "2027Q4"]
    served = result.tables["served"].set_index("period")
    assert served.loc["2027Q1", "unmet_share"] == pytest.approx(1.0)
    assert served.loc["2027Q2", "unmet_share"] == pytest.approx(1.0)
    assert served.loc["2027Q3", "unmet_share"] == pytest.approx(0.0, abs=1e-9)
    capex = 4 * PRICE * 1.1**-0.5
    running = 4 * RUNNING * 0.25 * (1.1**-0.5 + 1.1**-0.75)
    residual = 4 * PRICE * 4.5 / 5 / 1.1
    assert result.headline["npv_cost_usd"] == pytest.approx(capex + running - residual, rel=1e-9)
    assert capex + running - residual == pytest.approx(207_963.23, abs=0.01)
    assert check_plan(result) == []


def test_a_date_is_read_as_its_quarter() -> None:
    scenario = load("available_mid_year")
    hardware = [scenario.hardware[0].model_copy(update={"available_from": "2027-08-15"})]
    data = build_data(scenario.model_copy(update={"hardware": hardware}), *throughput(scenario))
    assert sorted({v for _, _, v in data.buy_index}) == ["2027Q3", "2027Q4"]


def test_end_of_sale_stops_purchases_and_the_launch_cap_limits_them() -> None:
    result = plan(load("end_of_sale_launch_cap"))
    bought = result.tables["purchases"].groupby("period")["units"].sum().to_dict()
    assert bought == {"2026": 2.0, "2027": 4.0}
    assert check_plan(result) == []


def test_units_on_order_arrive_sunk() -> None:
    result = plan(load("on_order_delivery"))
    bought = result.tables["purchases"]
    assert bought[["period", "units"]].values.tolist() == [["2026", 4.0]]
    fleet = result.tables["fleet"]
    cohort = fleet[fleet["origin"] == "existing"]
    assert cohort[["period", "vintage", "units"]].values.tolist() == [["2027", 2027, 4.0]]
    expected = 4 * (PRICE + RUNNING) + 4 * RUNNING / 1.1
    assert result.headline["objective_usd"] == pytest.approx(expected, rel=1e-9)
    assert check_plan(result) == []


def test_on_order_by_date_arrives_in_the_first_period_starting_after_it() -> None:
    scenario = load("available_mid_year")
    row = OnOrder.model_validate(
        {"hardware": "h100-hgx", "site": "dc", "units": 4, "delivery": "2027-05-10"}
    )
    data = build_data(scenario.model_copy(update={"on_order": [row]}), *throughput(scenario))
    assert data.existing_units == {("h100-hgx", "dc", "2027Q3"): 4}
    assert [k[3] for k in data.existing_index] == ["2027Q3", "2027Q4"]


def test_no_lead_time_leaves_the_model_as_it_was() -> None:
    scenario = load("one_hardware_one_year")
    data = build_data(scenario, *throughput(scenario))
    assert data.buy_order_period == {} and data.capex_payments == {}
    assert data.first_year_rows == {}
    model = build_model(data)
    assert not hasattr(model, "first_year_supply")


def _tampered(result: Plan, table: str, column: str, value: object) -> Plan:
    tables = dict(result.tables)
    frame = tables[table].copy()
    frame.loc[frame.index[0], column] = value
    tables[table] = frame
    return dataclasses.replace(result, tables=tables)


def test_the_checker_catches_a_delivery_before_its_lead_time() -> None:
    result = plan(load("lead_time_order_ahead"))
    early = _tampered(result, "purchases", "order_period", "2027")
    assert any("lead time" in v for v in check_plan(early))
    unpaid = _tampered(result, "purchases", "capex_at_order_usd", 0.0)
    assert any("paid at order" in v for v in check_plan(unpaid))


def test_the_checker_catches_availability_and_launch_cap_breaches() -> None:
    result = plan(load("available_mid_year"))
    early = result.tables["purchases"].assign(period="2027Q2", order_period="2027Q2")
    tables = {**result.tables, "purchases": early}
    problems = check_plan(dataclasses.replace(result, tables=tables))
    assert any("before it is available" in v for v in problems)
    capped = plan(load("end_of_sale_launch_cap"))
    more = _tampered(capped, "purchases", "units", 3.0)
    assert any("launch year" in v for v in check_plan(more))
    late = capped.tables["purchases"].assign(order_period="2028", period="2028")
    problems = check_plan(dataclasses.replace(capped, tables={**capped.tables, "purchases": late}))
    assert any("end of sale" in v for v in problems)


def test_the_checker_catches_a_cohort_before_its_delivery() -> None:
    result = plan(load("on_order_delivery"))
    fleet = result.tables["fleet"].copy()
    row = fleet[fleet["origin"] == "existing"].assign(period="2026", year=2026)
    tables = {**result.tables, "fleet": pd.concat([fleet, row], ignore_index=True)}
    problems = check_plan(dataclasses.replace(result, tables=tables))
    assert any("before its delivery" in v for v in problems)


def test_myopic_foresight_fixes_orders_by_their_order_year() -> None:
    scenario = load("lead_time_order_ahead")
    myopic = scenario.model_copy(
        update={"solver": scenario.solver.model_copy(update={"foresight": "myopic"})}
    )
    result = plan(myopic)  # a 2-year window sees the 2027 demand from 2026
    bought = result.tables["purchases"]
    assert bought[["period", "order_period", "units"]].values.tolist() == [["2027", "2026", 4.0]]
    assert check_plan(result) == []
    assert math.isclose(
        result.headline["npv_cost_usd"], plan(scenario).headline["npv_cost_usd"], rel_tol=1e-9
    )
