"""The independent checker holds on every shipped and test scenario, and catches tampering."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from planner.optimize import plan
from planner.optimize.checker import check_plan
from planner.results import Plan
from planner.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted(
    (ROOT / "tests" / "scenarios").glob("*.yaml")
)


@pytest.fixture(scope="module")
def plans() -> dict[str, Plan]:
    return {p.stem: plan(load_scenario(p)) for p in SCENARIOS}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_checker_finds_no_violation(path: Path, plans: dict[str, Plan]) -> None:
    assert check_plan(plans[path.stem]) == []


@pytest.mark.parametrize("name", ["baseline", "power_switch", "rental_spike", "disaggregated"])
def test_checker_holds_for_relaxed_plans(name: str) -> None:
    path = next(p for p in SCENARIOS if p.stem == name)
    assert check_plan(plan(load_scenario(path), relax=True)) == []


def _tampered(original: Plan, table: str, column: str, factor: float, row: int = 0) -> Plan:
    tables = dict(original.tables)
    frame = tables[table].copy()
    frame.loc[frame.index[row], column] = frame.loc[frame.index[row], column] * factor
    tables[table] = frame
    return replace(original, tables=tables)


def test_checker_catches_tampered_tables(plans: dict[str, Plan]) -> None:
    base = plans["power_switch"]
    assert any("fleet shows" in v for v in check_plan(_tampered(base, "purchases", "units", 2)))
    over = _tampered(base, "assignment_inference", "units", 3)
    assert any("assigned" in v for v in check_plan(over))
    short = _tampered(base, "assignment_inference", "units", 0.5)
    assert any("peak" in v for v in check_plan(short))
    cheaper = _tampered(base, "fleet", "energy_usd_per_unit_year", 0.5)
    assert any("energy" in v for v in check_plan(cheaper))
    headline = replace(base, headline={**base.headline, "objective_usd": 1.0})
    assert any("objective" in v for v in check_plan(headline))
    training = plans["training_one_type"]
    undone = _tampered(training, "assignment_training", "units", 0.5)
    assert any("required" in v for v in check_plan(undone))
    budget = plans["budget_shortfall"]
    over_budget = _tampered(budget, "budget", "budget_usd", 0.1)
    assert any("budget" in v for v in check_plan(over_budget))
