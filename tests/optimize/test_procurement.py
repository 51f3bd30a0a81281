"""Hand-solvable procurement cases: commitments, building ahead of demand, lease or build.

Each scenario file carries its hand solution in a comment; the throughput τ comes from
the perf table, the arithmetic is redone here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from planner.pipeline import plan, throughput
from planner.results.checker import check_plan
from planner.results.plan import Plan
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario

HERE = Path(__file__).resolve().parents[1] / "scenarios"
HOURS = 8760.0
PV3 = 1 + 1 / 1.1 + 1 / 1.21  # Σ DF over three yearly periods at 10%
PEAK = 1.5 / 86_400  # peak tokens/s per token/day at peak-to-average 1.5


def load(name: str) -> Scenario:
    return load_scenario(HERE / f"{name}.yaml")


def units_for(scenario: Scenario, tokens_per_day: float) -> float:
    inference, _ = throughput(scenario)
    row = inference[(inference["hardware"] == "h200-hgx") & (inference["workload"] == "chat")]
    return tokens_per_day * PEAK / float(row["output_tokens_per_s_per_unit"].iloc[0])


@pytest.fixture(scope="module")
def steady() -> tuple[Scenario, Plan]:
    scenario = load("commitment_steady")
    return scenario, plan(scenario)


def test_rent_only_hardware_need_not_be_listed_as_a_purchase(steady) -> None:
    scenario, result = steady
    (choice,) = scenario.hardware
    assert (choice.id, choice.max_units_per_year) == ("h200-hgx", 0)
    assert result.tables["purchases"].empty


def test_three_year_commitment_beats_on_demand_for_steady_demand(steady) -> None:
    scenario, result = steady
    need = units_for(scenario, 1.0e10)
    committed = result.tables["commitments"]
    assert committed["start_period"].unique().tolist() == ["2026"]
    assert committed["term_years"].unique().tolist() == [3]
    assert committed["units"].tolist() == pytest.approx([need] * 3, rel=1e-6)
    assert result.tables["rentals"]["units"].sum() == pytest.approx(0.0, abs=1e-6)
    per_unit = 1.5 * 8 * HOURS * PV3  # paid all three years
    assert result.headline["objective_usd"] == pytest.approx(need * per_unit, rel=1e-6)
    assert per_unit < 2.5 * 8 * HOURS * PV3  # on demand for the same units
    assert check_plan(result) == []


def test_three_year_commitment_loses_to_on_demand_for_a_one_year_spike() -> None:
    scenario = load("commitment_spike")
    result = plan(scenario)
    base, spike = units_for(scenario, 1.0e8), units_for(scenario, 3.0e10)
    committed = result.tables["commitments"]
    assert committed["units"].tolist() == pytest.approx([base] * 3, rel=1e-6)
    rented = result.tables["rentals"]
    assert rented["period"].tolist() == ["2026"]
    assert rented["units"].tolist() == pytest.approx([spike - base], rel=1e-6)
    expected = base * 1.5 * 8 * HOURS * PV3 + (spike - base) * 2.5 * 8 * HOURS
    assert result.headline["objective_usd"] == pytest.approx(expected, rel=1e-6)
    assert check_plan(result) == []


def test_a_block_is_built_a_lead_time_ahead_of_the_hardware_it_holds() -> None:
    scenario = load("datacenter_build")
    result = plan(scenario)
    (build,) = result.tables["datacenter_builds"].itertuples(index=False)
    assert (build.paid_period, build.power_on_period, build.blocks) == ("2026", "2027", 1.0)
    assert build.capex_usd == pytest.approx(11.7e6 * 0.05)
    assert build.residual_fraction == pytest.approx(18 / 20)  # powers on 2027, horizon ends 2029
    bought = result.tables["purchases"]
    assert bought["period"].tolist() == ["2027"]  # nothing can be installed in 2026
    need = units_for(scenario, 1.0e10)
    rented = result.tables["rentals"].set_index("period")["units"]
    assert rented["2026"] == pytest.approx(need, rel=1e-6)
    capacity = result.tables["datacenter_capacity"]
    assert capacity["capacity_mw"].tolist() == pytest.approx([0.0, 0.0625, 0.0625])
    assert result.tables["fleet"]["facility_usd"].sum() == 0.0  # paid on capacity instead
    assert check_plan(result) == []


def _lease_or_build(rent_usd_per_kw_month: float) -> Plan:
    scenario = load("lease_or_build")
    doc = scenario.model_dump(mode="python", exclude_none=True)
    doc["sites"][0]["lease"]["usd_per_kw_month"] = rent_usd_per_kw_month
    return plan(Scenario.model_validate(doc))


def test_lease_or_build_breaks_even_at_the_hand_computed_rent() -> None:
    kw = 40.8
    build = 11.7e6 * kw / 1000 * (1 - 0.85 / 1.1**3) + 175 * kw * PV3
    break_even = build / (12 * kw * PV3)
    assert break_even == pytest.approx(143.4, abs=0.05)
    cheaper = _lease_or_build(break_even * 0.97)
    assert cheaper.tables["datacenter_builds"].empty
    assert cheaper.tables["datacenter_leases"]["kw_it"].sum() == pytest.approx(kw, rel=1e-6)
    dearer = _lease_or_build(break_even * 1.03)
    assert dearer.tables["datacenter_leases"]["kw_it"].sum() == pytest.approx(0.0, abs=1e-6)
    assert dearer.tables["datacenter_builds"]["blocks"].tolist() == [1.0]
    difference = dearer.headline["objective_usd"] - cheaper.headline["objective_usd"]
    lease_pv = 12 * kw * PV3 * break_even
    assert difference == pytest.approx(build - 0.97 * lease_pv, rel=1e-6)
    assert check_plan(cheaper) == [] and check_plan(dearer) == []


def test_the_checker_catches_broken_procurement_tables(steady) -> None:
    _, result = steady
    tables = dict(result.tables)
    committed = tables["commitments"].copy()
    committed.loc[0, "rental_max_units"] = 1.0  # capped below the committed units
    committed.loc[1, "units"] *= 2  # runs more in its second year than its first
    broken = dataclasses.replace(result, tables={**tables, "commitments": committed})
    problems = check_plan(broken)
    assert any("rented and committed, cap 1.0" in p for p in problems)
    assert any(p.startswith("2027 commitment: table") for p in problems)


def test_the_checker_recomputes_built_capacity() -> None:
    result = plan(load("datacenter_build"))
    builds = result.tables["datacenter_builds"].copy()
    builds["mw_it"] *= 2
    broken = dataclasses.replace(result, tables={**result.tables, "datacenter_builds": builds})
    problems = check_plan(broken)
    assert any("capacity table built" in p for p in problems)


def test_the_grid_limit_spreads_blocks_over_years() -> None:
    result = plan(load("grid_limit"))
    builds = result.tables["datacenter_builds"]
    assert builds["power_on_period"].tolist() == ["2026", "2027"]
    assert builds["blocks"].tolist() == [1.0, 1.0]  # 2 blocks (62.5 kW) > 40 kW a year
    assert result.tables["purchases"]["units"].tolist() == [2.0, 1.0]
    assert result.headline["datacenter_capex_usd"] == pytest.approx(2 * 11.7e6 * 0.025)
    assert check_plan(result) == []
    capacity = result.tables["datacenter_capacity"].assign(grid_mw_per_year=0.02)
    broken = dataclasses.replace(result, tables={**result.tables, "datacenter_capacity": capacity})
    assert any("grid limit" in p for p in check_plan(broken))


@pytest.mark.parametrize(("budget_2026", "paid_2026"), [(600_000.0, True), (500_000.0, False)])
def test_a_block_s_capex_counts_in_the_budget_of_the_period_it_is_paid(
    budget_2026: float, paid_2026: bool
) -> None:
    # datacenter_build pays its one block ($11.7M/MW x 0.05 MW = $585,000) in 2026 and
    # buys nothing else then: a 2026 budget of $600,000 holds it, $500,000 does not.
    base = load("datacenter_build")
    budget = base.budget.model_copy(update={"capex_usd": {2026: budget_2026, 2027: 1.0e9}})
    scenario = base.model_copy(update={"budget": budget})
    result = plan(scenario)
    paid = result.tables["datacenter_builds"]["paid_period"].tolist()
    assert ("2026" in paid) is paid_2026
    table = result.tables["budget"].set_index("period")
    assert table.loc["2026", "capex_usd"] == pytest.approx(585_000.0 if paid_2026 else 0.0)
    assert table.loc["2026", "capex_usd"] <= budget_2026
    assert check_plan(result) == []


def test_the_power_table_and_sheet_show_capacity_built_and_leased_beside_the_load() -> None:
    from planner.export.excel import build_workbook

    scenario = load("datacenter_build")
    result = plan(scenario)
    power = result.tables["power"]
    # One 0.05 MW block powers on in 2027 (see datacenter_build.yaml); nothing is leased.
    assert power["built_mw_it"].tolist() == pytest.approx([0.0, 0.05, 0.05])
    assert power["leased_mw_it"].tolist() == [0.0, 0.0, 0.0]
    ws = build_workbook(result, scenario).workbook["Power"]
    headers = [c.value for c in next(ws.iter_rows(max_row=1))]
    assert headers[2:4] == ["built (MW of IT)", "leased (MW of IT)"]
    assert [ws.cell(row=r, column=3).value for r in (2, 3, 4)] == pytest.approx([0.0, 0.05, 0.05])
