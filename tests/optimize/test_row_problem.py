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
    ROOT / "tests" / "scenarios" / "cheap_penalty.yaml",
    ROOT / "tests" / "scenarios" / "budget_shortfall.yaml",
    ROOT / "tests" / "scenarios" / "datacenter_build.yaml",
    ROOT / "tests" / "scenarios" / "sell_after_first_year.yaml",
    ROOT / "tests" / "scenarios" / "duration_step_up.yaml",
    ROOT / "tests" / "scenarios" / "commitment_steady.yaml",
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
