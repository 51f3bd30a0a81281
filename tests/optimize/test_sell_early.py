"""Early sales (``finance.sell_early``) on hand-solvable scenarios.

tests/scenarios/sell_after_first_year.yaml (its header works the numbers): 4 h100-hgx
are needed in 2026, 1 from 2027 on. Selling the 3 spares at the start of 2027 (age 1,
62.5 % of $280,000 = $175,000 each) beats keeping them: objective $798,789.84; with
``sell_early: false`` all 4 run to the end: $1,384,794.57.

tests/scenarios/sell_existing.yaml: 10 existing h100-hgx installed 2024 of which 4 are
needed in 2026 (one-year horizon, no horizon-end credit): the 6 spares are sold at the
start of 2026 (age 2, 42.5 % of $280,000 = $119,000 each), not switched off for nothing:
objective = 4 × 29,954.64 − 6 × 119,000 = −$594,181.44.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from planner import api
from planner.economics.horizon_end import sale_proceeds_usd, sale_share
from planner.optimize import build_data, build_model
from planner.optimize.fixed import FixedPurchases
from planner.optimize.foresight import Fixed
from planner.optimize.model import model_size
from planner.pipeline import plan as pipeline_plan
from planner.pipeline import throughput
from planner.results.checker import check_plan
from planner.scenario.schema import Scenario
from tests.conftest import RunCli

SCENARIOS = Path(__file__).parents[1] / "scenarios"
SELL = SCENARIOS / "sell_after_first_year.yaml"
EXISTING = SCENARIOS / "sell_existing.yaml"
RUNNING = 6_254.64 + 15_300 + 8_400  # energy + facility + maintenance per unit-year
LATER = 1 / 1.1 + 1 / 1.21 + 1 / 1.331  # PV-years of 2027-2029
BOOK_PV = 56_000 / 1.1**4  # straight-line value of a 2026 unit at 2030, discounted
SOLD_USD = 1_120_000 + 4 * RUNNING + RUNNING * LATER - 3 * 175_000 / 1.1 - BOOK_PV
KEPT_USD = 1_120_000 + 4 * RUNNING * (1 + LATER) - 4 * BOOK_PV
EXISTING_USD = 4 * RUNNING - 6 * 119_000


def _with(path: Path, **finance: object) -> Scenario:
    scenario = api.load(path)
    return scenario.model_copy(update={"finance": scenario.finance.model_copy(update=finance)})


def test_hand_values_agree_with_the_scenario_headers() -> None:
    assert pytest.approx(798_789.84, abs=0.01) == SOLD_USD
    assert pytest.approx(1_384_794.57, abs=0.01) == KEPT_USD
    assert pytest.approx(-594_181.44, abs=0.01) == EXISTING_USD
    assert sale_share(1.0, 5.0) == 0.625  # the default curve at age 1
    assert sale_share(5.0, 5.0) == 0.0  # at the lifetime: retired, not sold
    assert sale_proceeds_usd(3, 280_000, 0.625) == 525_000


def test_spare_units_are_sold_at_the_start_of_the_second_year() -> None:
    plan = api.plan(SELL)
    assert plan.headline["objective_usd"] == pytest.approx(SOLD_USD, abs=0.01)
    sales = plan.tables["sales"]
    assert sales[["period", "origin", "units", "age_years", "resale_share"]].to_dict("records") == [
        {
            "period": "2027",
            "origin": "purchased",
            "units": 3.0,
            "age_years": 1.0,
            "resale_share": 0.625,
        }
    ]
    assert sales["proceeds_usd"].iloc[0] == pytest.approx(525_000)
    assert sales["proceeds_pv_usd"].iloc[0] == pytest.approx(525_000 / 1.1)
    fleet = plan.tables["fleet"].groupby("period")["units"].sum().to_dict()
    assert fleet == {"2026": 4.0, "2027": 1.0, "2028": 1.0, "2029": 1.0}
    purchases = plan.tables["purchases"]
    assert purchases["units_sold"].iloc[0] == 3.0
    assert purchases["residual_usd"].iloc[0] == pytest.approx(56_000)  # the unit still held
    costs = plan.tables["costs"]
    resale = costs[costs["category"] == "resale_proceeds"].set_index("period")["usd"]
    assert resale["2027"] == pytest.approx(-525_000)
    assert costs["usd_pv"].sum() == pytest.approx(plan.headline["objective_usd"], abs=1e-3)
    assert plan.headline["resale_proceeds_usd"] == pytest.approx(525_000)
    assert check_plan(plan) == []


def test_without_sell_early_the_units_are_kept_and_the_model_is_unchanged() -> None:
    off = _with(SELL, sell_early=False)
    plan = api.plan(off)
    assert plan.headline["objective_usd"] == pytest.approx(KEPT_USD, abs=0.01)
    assert plan.tables["sales"].empty
    assert "resale_proceeds" not in set(plan.tables["costs"]["category"])
    assert check_plan(plan) == []
    on = api.load(SELL)
    size_off = model_size(build_model(build_data(off, *throughput(off))))
    size_on = model_size(build_model(build_data(on, *throughput(on))))
    # 4-year horizon, one purchase vintage a year: sales of 2026 in 2027-29 (3), of 2027
    # in 2028-29 (2), of 2028 in 2029 (1): 6 more integers, 3 more rows (one per vintage
    # that can be sold).
    assert size_on["variables"] - size_off["variables"] == 6
    assert size_on["integer_variables"] - size_off["integer_variables"] == 6
    assert size_on["constraints"] - size_off["constraints"] == 3


def test_existing_units_are_sold_rather_than_switched_off() -> None:
    plan = api.plan(EXISTING)
    assert plan.headline["objective_usd"] == pytest.approx(EXISTING_USD, abs=0.01)
    sales = plan.tables["sales"]
    assert sales[["period", "origin", "vintage", "units"]].to_dict("records") == [
        {"period": "2026", "origin": "existing", "vintage": 2024, "units": 6.0}
    ]
    assert sales["proceeds_usd"].iloc[0] == pytest.approx(6 * 119_000)
    assert check_plan(plan) == []


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("units", 5.0, "only 4 held"),
        ("proceeds_usd", 600_000.0, "proceeds"),
        ("resale_share", 0.9, None),  # not used by the checker: the curve is recomputed
    ],
)
def test_tampered_sale_is_caught(column: str, value: float, message: str | None) -> None:
    plan = api.plan(SELL)
    sales = plan.tables["sales"].copy()
    sales.loc[0, column] = value
    bad = replace(plan, tables={**plan.tables, "sales": sales})
    problems = check_plan(bad)
    if message is None:
        assert problems == []
    else:
        assert any(message in p for p in problems), problems


def test_a_sale_missing_from_the_fleet_is_caught() -> None:
    plan = api.plan(SELL)
    fleet = plan.tables["fleet"].copy()
    fleet.loc[fleet["period"] == "2028", "units"] = 4.0  # as if the sold units came back
    bad = replace(plan, tables={**plan.tables, "fleet": fleet})
    assert any("of the 1.0 h100-hgx bought in 2026 at dc in 2028" in p for p in check_plan(bad))


def test_relaxed_plan_sells_and_checks() -> None:
    plan = api.plan(SELL, relax=True)
    assert check_plan(plan) == []
    assert plan.tables["sales"]["units"].sum() > 0


def test_myopic_foresight_fixes_the_sale() -> None:
    scenario = api.load(SELL)
    solver = scenario.solver.model_copy(
        update={"foresight": "myopic", "window_years": 1, "step_years": 1}
    )
    plan = api.plan(scenario.model_copy(update={"solver": solver}))
    # One-year windows: 2026 buys 4; the 2027 window sells 3 (175,000/1.1 + a year's
    # running beats the book value at 2028, 168,000/1.21); the rest as perfect foresight.
    assert plan.headline["npv_cost_usd"] == pytest.approx(SOLD_USD, abs=0.01)
    assert plan.tables["sales"]["units"].sum() == 3.0
    assert check_plan(plan) == []


def test_fixed_hooks_fix_sales() -> None:
    scenario = api.load(SELL)
    key = ("h100-hgx", "dc", 2026, 2027)
    decided = {"buy": {("h100-hgx", "dc", 2026): 4.0}, "sell": {key: 1.0}}
    plan = pipeline_plan(scenario, extend=Fixed(decided, through_year=2027))
    sold = plan.tables["sales"].groupby("period")["units"].sum().to_dict()
    assert sold == {"2027": 1.0, "2028": 2.0}  # 2028 is free: the other 2 go then
    assert check_plan(plan) == []
    fixed = FixedPurchases(2027, {}, {("h100-hgx", "dc", "2026", "2027"): 2.0})
    plan = pipeline_plan(scenario, extend=fixed)
    sold = plan.tables["sales"]
    assert sold.loc[sold["period"] == "2027", "units"].sum() == 2.0
    assert check_plan(plan) == []


def test_resale_share_above_one_exits_2(tmp_path: Path, run_cli: RunCli) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        SELL.read_text().replace(
            "  sell_early: true", "  sell_early: true\n  resale_curve: {1: 1.5}"
        )
    )
    result = run_cli("run", bad)
    assert result.code == 2
    assert "finance.resale_curve" in result.err + result.out


def test_sell_early_must_be_a_bool(tmp_path: Path, run_cli: RunCli) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SELL.read_text().replace("sell_early: true", "sell_early: sometimes"))
    result = run_cli("run", bad)
    assert result.code == 2
    assert "finance.sell_early" in result.err + result.out


def test_run_states_the_sales_and_their_basis(tmp_path: Path, run_cli: RunCli) -> None:
    """3 units sold at age 1 at 62.5% of $280,000 = $525,000, PV 525,000 / 1.1."""
    result = run_cli("run", SCENARIOS / "sell_after_first_year.yaml", "--out", tmp_path / "s.xlsx")
    assert result.code == 0, result.err
    text = " ".join(result.out.split())
    assert "early sales (finance.sell_early): 3 units for $525,000 (PV $477,273;" in text
    assert "resale_curve share at their age" in text
