"""``objective: max_profit``: serve priced work only where it pays, must-serve work first.

Hand solutions from tests/scenarios/one_hardware_one_year.yaml (4 h100-hgx serve chat,
each $106,318.28 NPV for 2026) and priority_shortfall.yaml (the budget buys 2 units).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.pipeline import plan, throughput
from planner.results.checker import check_plan
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario

HERE = Path(__file__).resolve().parents[1] / "scenarios"
PEAK_8B = 1.0e10 * 1.5 / 86_400
MTOK_PER_YEAR = 1.0e10 * 365.25 / 1e6  # chat's demand over 2026, output Mtok
PER_UNIT = (
    280_000 + 10.2 * 1.25 * 0.8 * 8760 * 0.07 + 10.2 * 1500 + 0.03 * 280_000 - 280_000 * 4 / 5 / 1.1
)


def priced(name: str, **prices: float) -> Scenario:
    """Scenario ``name`` under max_profit, each named workload given a blended price."""
    scenario = load_scenario(HERE / f"{name}.yaml")
    workloads = [
        w.model_copy(update={"price_usd_per_mtok": prices[w.name]}) if w.name in prices else w
        for w in scenario.inference
    ]
    return scenario.model_copy(update={"objective": "max_profit", "inference": workloads})


def tau(scenario: Scenario) -> float:
    inference, _ = throughput(scenario)
    row = inference[(inference["hardware"] == "h100-hgx") & (inference["workload"] == "chat")]
    return float(row["output_tokens_per_s_per_unit"].iloc[0])


def test_an_unprofitable_workload_is_dropped() -> None:
    """At $0.05/Mtok one unit earns tau / 1.5 x 86,400 x 365.25 / 1e6 x 0.05 (~$47k at
    tau ~45,000) against its $106,318.28: buying nothing is the best plan."""
    scenario = priced("one_hardware_one_year", chat=0.05)
    per_unit_revenue = tau(scenario) / 1.5 * 86_400 * 365.25 / 1e6 * 0.05
    assert per_unit_revenue < PER_UNIT  # the hand premise
    result = plan(scenario)
    assert result.tables["purchases"].empty
    assert result.headline["objective"] == "max_profit"
    assert result.headline["revenue_usd"] == 0.0
    assert result.headline["lost_revenue_usd"] == pytest.approx(MTOK_PER_YEAR * 0.05, rel=1e-9)
    # objective = NPV cost (0) + lost revenue (all of it, 2026 undiscounted)
    assert result.headline["objective_usd"] == pytest.approx(MTOK_PER_YEAR * 0.05, rel=1e-6)
    assert result.tables["served"]["unmet_share"].tolist() == pytest.approx([1.0])
    assert check_plan(result) == []
    (sentence,) = [s for s in result.diagnosis if "chat demand left unmet" in s]
    assert "max_profit serves priced work only where it pays: at $0.05 per output Mtok" in sentence
    assert "min_cost" not in sentence


def test_a_profitable_workload_is_served_in_full() -> None:
    result = plan(priced("one_hardware_one_year", chat=1.0))
    assert result.tables["purchases"]["units"].tolist() == [4]
    assert result.headline["revenue_usd"] == pytest.approx(MTOK_PER_YEAR, rel=1e-9)
    assert result.headline["npv_profit_usd"] == pytest.approx(
        MTOK_PER_YEAR - 4 * PER_UNIT, rel=1e-9
    )
    assert result.headline["objective_usd"] == pytest.approx(4 * PER_UNIT, rel=1e-6)
    assert check_plan(result) == []


def test_under_a_budget_the_more_valuable_workload_is_served_first() -> None:
    """Equal priorities, vip paid twice chat's price: the 2 affordable units serve vip."""
    scenario = priced("priority_shortfall", chat=0.5, vip=1.0)
    vip = scenario.inference[1].model_copy(update={"priority": 1.0})
    scenario = scenario.model_copy(update={"inference": [scenario.inference[0], vip]})
    rate = tau(scenario)
    result = plan(scenario)
    assert result.tables["purchases"]["units"].tolist() == [2]
    unmet = result.tables["served"].set_index("workload")["unmet_share"].to_dict()
    assert unmet["vip"] == pytest.approx(1 - 2 * rate / PEAK_8B, rel=1e-6)
    assert unmet["chat"] == pytest.approx(1.0, abs=1e-6)
    lost = result.tables["revenue"].set_index("work")["lost_revenue_usd"].to_dict()
    assert lost["chat"] == pytest.approx(MTOK_PER_YEAR * 0.5, rel=1e-6)
    assert check_plan(result) == []


def test_work_without_a_price_is_must_serve() -> None:
    """vip has no price: it is served in full (4 units) whatever it costs; chat, at a
    price too low to pay for a unit, gets only the spare capacity of the fourth."""
    scenario = priced("priority_shortfall", chat=0.05)
    scenario = scenario.model_copy(update={"budget": type(scenario.budget)()})
    rate = tau(scenario)
    result = plan(scenario)
    assert result.tables["purchases"]["units"].tolist() == [4]
    unmet = result.tables["served"].set_index("workload")["unmet_share"].to_dict()
    assert unmet["vip"] == pytest.approx(0.0, abs=1e-6)
    assert unmet["chat"] == pytest.approx(1 - (4 * rate - PEAK_8B) / PEAK_8B, rel=1e-6)
    assert result.headline["must_serve_work"] is True
    assert result.headline["weighted_unserved_share"] == pytest.approx(0.0, abs=1e-9)
    assert check_plan(result) == []


def test_a_run_worth_less_than_its_cost_is_not_done_unless_it_must_finish() -> None:
    scenario = load_scenario(HERE / "training_one_type.yaml")
    run = scenario.training[0]
    cheap = run.model_copy(update={"value_usd": 1000.0})
    dropped = plan(scenario.model_copy(update={"objective": "max_profit", "training": [cheap]}))
    assert dropped.tables["purchases"].empty
    assert dropped.tables["training"]["completion"].tolist() == pytest.approx([0.0], abs=1e-9)
    assert dropped.headline["lost_revenue_usd"] == pytest.approx(1000.0, rel=1e-9)
    assert any("at a value of $1,000" in s for s in dropped.diagnosis), dropped.diagnosis
    assert check_plan(dropped) == []
    must = cheap.model_copy(update={"must_finish": True})
    done = plan(scenario.model_copy(update={"objective": "max_profit", "training": [must]}))
    assert done.tables["training"]["completion"].tolist() == pytest.approx([1.0], abs=1e-6)
    assert done.headline["revenue_usd"] == pytest.approx(1000.0, rel=1e-6)
    assert check_plan(done) == []
