"""The one-instance solve on the array model (:mod:`planner.optimize.row_problem`)
gives the plan the Pyomo model gives: same purchases, costs, service and status, on
hand-worked and shipped scenarios, with column generation on and off."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import planner.optimize.assignments as assignments
import planner.optimize.recipe as recipe
from planner.optimize.paths import SolvePath
from planner.pipeline import plan, throughput
from planner.results.checker import check_plan
from planner.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
CASES = [
    ROOT / "tests" / "scenarios" / "priority_shortfall.yaml",
    ROOT / "tests" / "scenarios" / "datacenter_build.yaml",
    ROOT / "tests" / "scenarios" / "sell_after_first_year.yaml",
    ROOT / "tests" / "scenarios" / "duration_step_up.yaml",
    ROOT / "scenarios" / "baseline.yaml",
    ROOT / "scenarios" / "power_constrained.yaml",
]
TABLES = ("purchases", "fleet", "served", "training", "costs")


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
@pytest.mark.parametrize("generate", [False, True], ids=["all columns", "generated"])
def test_the_array_model_plans_as_the_pyomo_model(
    path: Path, generate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = load_scenario(path)
    tables = throughput(scenario)
    if generate:
        monkeypatch.setattr(assignments, "GENERATE_FROM", 0)
    monkeypatch.setattr(recipe, "ARRAY_MODEL", False)
    pyomo = plan(scenario, strategy="lp-first", tables=tables, duals=False)
    monkeypatch.setattr(recipe, "ARRAY_MODEL", True)
    built: list[int] = []
    real = recipe.build_rows
    monkeypatch.setattr(recipe, "build_rows", lambda data: built.append(1) or real(data))
    rows = plan(scenario, strategy="lp-first", tables=tables, duals=False)
    assert built, "the array model was built"
    assert rows.headline["service_path"] == pyomo.headline["service_path"]
    assert rows.headline["service_path"] == SolvePath.ONE_INSTANCE
    assert rows.status == pyomo.status
    for key in ("objective_usd", "npv_cost_usd", "weighted_unserved_share"):
        assert rows.headline[key] == pytest.approx(pyomo.headline[key], rel=1e-9, abs=1e-9), key
    for name in TABLES:
        pd.testing.assert_frame_equal(rows.tables[name], pyomo.tables[name], check_exact=False)
    assert check_plan(rows) == []


@pytest.mark.parametrize("name", ["baseline", "power_constrained"])
def test_shadow_prices_from_the_array_model_equal_the_pyomo_model_s(name: str) -> None:
    """The shadow-price LP on the array model gives the Pyomo model's duals, row for row
    (the same LP handed over as the same arrays)."""
    from dataclasses import replace

    from planner.optimize import build_data
    from planner.optimize.pyomo_stage import build_and_solve
    from planner.optimize.relaxations import DUAL_ROWS, lp_duals
    from planner.pipeline import solver_options

    scenario = load_scenario(ROOT / "scenarios" / f"{name}.yaml")
    data = build_data(scenario, *throughput(scenario))
    options = solver_options(scenario)
    arrays = lp_duals(data, options)
    pyomo, _, _ = build_and_solve(
        replace(data, relax=True), replace(options, mip_gap=None), DUAL_ROWS
    )
    assert arrays is not None and set(arrays) == set(pyomo.duals)
    for family, by_key in pyomo.duals.items():
        assert arrays[family].keys() == by_key.keys(), family
        for key, value in by_key.items():
            assert arrays[family][key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
