"""Myopic foresight (planner.optimize.foresight) on tests/scenarios/myopic_price_rise.yaml.

Hand-worked in the scenario's header: h100-hgx at 200,000 / 300,000 / 400,000 in
2026 / 27 / 28, demand needing 4, 4 and 12 units, energy 6,254.64 per unit-year, no
residual (horizon_end: none), wacc 10 %:

* perfect foresight: 12 bought in 2026, NPV 2,605,317.61
* myopic, 1-year window: 4 in 2026, 8 in 2028, NPV 3,554,420.30
* myopic, 2-year window: 4 in 2026, 8 in 2027, NPV 3,137,098.67
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner import api
from planner.results.checker import check_plan
from planner.scenario.schema import Scenario
from tests.conftest import RunCli

SCENARIO = Path(__file__).parents[1] / "scenarios" / "myopic_price_rise.yaml"
PERFECT_USD = 2_400_000 + 12 * 6_254.64 * (1 + 1 / 1.1 + 1 / 1.21)
MYOPIC_1_USD = 800_000 + 8 * 400_000 / 1.21 + 4 * 6_254.64 * (1 + 1 / 1.1) + 12 * 6_254.64 / 1.21
MYOPIC_2_USD = 800_000 + 8 * 300_000 / 1.1 + 4 * 6_254.64 + 12 * 6_254.64 * (1 / 1.1 + 1 / 1.21)


def _variant(foresight: str, window: int, step: int = 1) -> Scenario:
    scenario = api.load(SCENARIO)
    solver = scenario.solver.model_copy(
        update={"foresight": foresight, "window_years": window, "step_years": step}
    )
    return scenario.model_copy(update={"solver": solver})


def _bought(plan: api.Plan) -> dict[int, float]:
    frame = plan.tables["purchases"]
    return dict(zip(frame["year"].astype(int), frame["units"], strict=True))


def test_hand_values_agree_with_the_scenario_header() -> None:
    assert pytest.approx(2_605_317.61, abs=0.01) == PERFECT_USD
    assert pytest.approx(3_554_420.30, abs=0.01) == MYOPIC_1_USD
    assert pytest.approx(3_137_098.67, abs=0.01) == MYOPIC_2_USD


@pytest.mark.parametrize(
    ("foresight", "window", "npv_usd", "bought"),
    [
        ("perfect", 2, PERFECT_USD, {2026: 12.0}),
        ("myopic", 1, MYOPIC_1_USD, {2026: 4.0, 2028: 8.0}),
        ("myopic", 2, MYOPIC_2_USD, {2026: 4.0, 2027: 8.0}),
    ],
)
def test_myopic_plan_is_dearer_by_hand(
    foresight: str, window: int, npv_usd: float, bought: dict[int, float]
) -> None:
    plan = api.plan(_variant(foresight, window))
    assert plan.headline["npv_cost_usd"] == pytest.approx(npv_usd, rel=1e-9)
    assert _bought(plan) == bought
    assert check_plan(plan) == []  # the whole horizon, checked as a perfect plan is


def test_window_covering_the_horizon_is_perfect_foresight() -> None:
    perfect = api.plan(_variant("perfect", 2))
    for window, step in ((3, 1), (5, 2)):
        myopic = api.plan(_variant("myopic", window, step))
        assert myopic.headline["npv_cost_usd"] == pytest.approx(perfect.headline["npv_cost_usd"])
        assert _bought(myopic) == _bought(perfect)
        assert myopic.headline["foresight_solves"] == 1


def test_headline_names_the_convention() -> None:
    assert api.plan(_variant("myopic", 2)).headline["foresight"] == (
        "myopic, 2-year window, 1-year steps"
    )
    assert api.plan(_variant("perfect", 2)).headline["foresight"] == "perfect foresight"


@pytest.mark.parametrize(
    ("solver", "path"),
    [
        ("{foresight: myopic, window_years: 0}", "solver.window_years"),
        ("{foresight: myopic, window_years: 1, step_years: 2}", "solver.step_years"),
    ],
)
def test_bad_window_exits_2_with_the_field_path(
    tmp_path: Path, run_cli: RunCli, solver: str, path: str
) -> None:
    text = SCENARIO.read_text().replace(
        "solver: {mip_gap: 0.0, time_limit_s: 60, foresight: myopic, window_years: 1, "
        "step_years: 1}",
        f"solver: {solver}",
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    result = run_cli("run", bad)
    assert result.code == 2
    assert path in result.err + result.out


def test_compare_shows_both_npvs(tmp_path: Path, run_cli: RunCli) -> None:
    perfect = tmp_path / "perfect.yaml"
    text = SCENARIO.read_text().replace("foresight: myopic", "foresight: perfect")
    perfect.write_text(text.replace("name: myopic-price-rise", "name: perfect-price-rise"))
    result = run_cli(
        "compare", perfect, SCENARIO, "--out", tmp_path / "compare.xlsx", "--format", "csv"
    )
    assert result.code == 0, result.err
    npv = next(line for line in result.out.splitlines() if line.startswith("NPV of total"))
    perfect_usd, myopic_usd, difference_usd = (float(x) for x in npv.split(",")[2:])
    assert perfect_usd == pytest.approx(PERFECT_USD, rel=1e-9)
    assert myopic_usd == pytest.approx(MYOPIC_1_USD, rel=1e-9)
    assert difference_usd == pytest.approx(MYOPIC_1_USD - PERFECT_USD, rel=1e-9)
    run = run_cli("run", SCENARIO, "--out", tmp_path / "run.xlsx")
    assert "myopic, 1-year window, 1-year steps" in run.out
