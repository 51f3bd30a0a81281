"""``objective: min_cost`` solved lexicographically: service first, then cost.

Hand solutions in tests/scenarios/priority_shortfall.yaml and cheap_penalty.yaml.
"""

from __future__ import annotations

import pytest
from hand_cases import PEAK_8B, PER_UNIT, load

from planner.optimize import SolveResult, SolveStatus, build_data
from planner.pipeline import lexicographic_status, plan, throughput
from planner.results.diagnosis import diagnose
from planner.results.shortfall import NOTIONAL_NOTE
from planner.scenario.schema import Scenario


def tau(scenario: Scenario) -> float:
    inference, _ = throughput(scenario)
    row = inference[(inference["hardware"] == "h100-hgx") & (inference["workload"] == "chat")]
    return float(row["output_tokens_per_s_per_unit"].iloc[0])


def test_the_higher_priority_workload_is_served_first() -> None:
    scenario = load("priority_shortfall")
    rate = tau(scenario)
    result = plan(scenario)
    assert result.status == "optimal"
    assert result.tables["purchases"]["units"].tolist() == [2]
    unmet = result.tables["served"].set_index("workload")["unmet_share"].to_dict()
    assert unmet["vip"] == pytest.approx(1 - 2 * rate / PEAK_8B, rel=1e-6)
    assert unmet["chat"] == pytest.approx(1.0, abs=1e-6)
    # The share of tokens lost follows the load shape (peak-to-average 1.5: the day's load
    # falls from P to P/2, s = 2P/3, chords of width h = s/4 = P/6). vip is short by
    # x = 1 - 2 tau / P (~0.49) of its peak, on chord k = floor(x P / h) = 2 of
    # h/(2s) · ((2k + 1) u - k (k + 1) h) = (5 x P - P) / 8 lost per day, of a mean P / 1.5.
    x = 1 - 2 * rate / PEAK_8B
    assert int(6 * x) == 2
    lost_share = (5 * x - 1) / 8 * 1.5
    assert result.headline["weighted_unserved_share"] == pytest.approx(
        1.0 + 3 * lost_share, rel=1e-6
    )
    # Proportional rationing (x of every hour's tokens) would have said 1 + 3 x.
    assert 1.0 + 3 * lost_share < 1.0 + 3 * x - 0.5
    assert result.headline["objective_usd"] == pytest.approx(2 * PER_UNIT, rel=1e-9)


def test_equal_priorities_leave_the_choice_to_cost_not_the_penalty() -> None:
    """Without the priority, either workload may get the 2 units, but together they
    still serve 2 tau: the total unmet share stays 2 - 2 tau / peak."""
    scenario = load("priority_shortfall")
    vip = scenario.inference[1].model_copy(update={"priority": 1.0})
    scenario = scenario.model_copy(update={"inference": [scenario.inference[0], vip]})
    rate = tau(scenario)
    result = plan(scenario)
    shares = result.tables["served"]["unmet_share"].sum()
    assert shares == pytest.approx(2 - 2 * rate / PEAK_8B, rel=1e-6)


def test_a_penalty_below_the_cost_of_serving_no_longer_leaves_demand_unserved() -> None:
    result = plan(load("cheap_penalty"))
    assert result.status == "optimal"
    assert result.tables["purchases"]["units"].tolist() == [4]
    assert result.tables["served"]["unmet_share"].tolist() == [0.0]
    assert result.headline["objective_usd"] == pytest.approx(4 * PER_UNIT, rel=1e-9)
    assert result.headline["penalties_usd_pv"] == 0.0
    assert result.headline["penalties_in_objective"] is False
    assert result.headline["weighted_unserved_share"] == pytest.approx(0.0, abs=1e-9)


def _result(status: SolveStatus) -> SolveResult:
    return SolveResult(status, "", 1.0, 1.0, 0.0, "highs")


def test_a_plan_whose_service_stage_stopped_early_is_not_called_optimal() -> None:
    optimal, feasible = _result(SolveStatus.OPTIMAL), _result(SolveStatus.FEASIBLE)
    assert lexicographic_status(optimal, optimal) == SolveStatus.OPTIMAL
    assert lexicographic_status(feasible, optimal) == SolveStatus.FEASIBLE
    assert lexicographic_status(optimal, feasible) == SolveStatus.FEASIBLE


def test_the_diagnosis_of_a_plan_not_proven_optimal_says_it_may_be_improvable() -> None:
    scenario = load("budget_shortfall")
    result = plan(scenario)
    data = build_data(scenario, *throughput(scenario))
    assert not any("improvable" in s for s in result.diagnosis)
    headline = {"mip_gap": 0.025, "service_status": "feasible"}
    sentences = diagnose(data, result.tables, "feasible", headline)
    assert sentences[0] == (
        "The solver stopped before proving this plan optimal (status feasible, gap on cost "
        "2.50%, the service stage ended feasible): it may be improvable — it may leave "
        "avoidable demand unmet or cost more than needed — so the sentences below describe "
        "this plan, not the best one. Re-run with a longer --time-limit or a smaller --mip-gap."
    )
    assert sentences[1:] == result.diagnosis


def test_no_diagnosis_blames_the_penalty() -> None:
    """The penalty is named only to label a shadow price it sets, never as a cause."""
    label = NOTIONAL_NOTE  # "set by the notional unmet-demand penalty, not a cost and ..."
    for name in ("priority_shortfall", "budget_shortfall", "cheap_penalty"):
        for sentence in plan(load(name)).diagnosis:
            assert "penalty" not in sentence.replace(label, ""), (name, sentence)
    budget = plan(load("budget_shortfall")).diagnosis
    assert budget[0].startswith("The capex budget binds in 2026 (LP relaxation: +$1 of budget")
    assert budget[0].endswith(f"; {label}).")
