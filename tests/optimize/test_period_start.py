"""The start of a delivered-through period (planner.optimize.constraints.period_start).

Hand-worked on tests/scenarios/training_step_up.yaml (its header has the arithmetic):
a run working all of 2027 needs its units at 2027's start, so they are bought in
2026; without the start rows the model buys them through 2027 and the checker names
the instant. The quarterly baseline checked month by month falls short nowhere.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from planner import api
from planner.optimize import model
from planner.results import Plan
from planner.results.checker import check_plan
from planner.results.resolution import resolution_check

ROOT = Path(__file__).resolve().parents[2]
STEP_UP = ROOT / "tests" / "scenarios" / "training_step_up.yaml"
PEAK_TOKENS_PER_S = {"2026": 1.35e10 * 1.5 / 86_400, "2027": 2.025e10 * 1.5 / 86_400}


@pytest.fixture(scope="module")
def step_up() -> Plan:
    return api.plan(api.load(STEP_UP))


def _bought(plan: Plan) -> dict[str, float]:
    purchases = plan.tables["purchases"]
    return dict(zip(purchases["period"].astype(str), purchases["units"], strict=True))


def _hand_units(plan: Plan) -> tuple[dict[str, float], float]:
    """Inference units at each year's end peak, and the run's units (from the rates)."""
    tau = float(plan.tables["assignment_inference"]["tokens_per_s_per_unit"].iloc[0])
    run = plan.tables["assignment_training"].iloc[0]
    flop = float(plan.tables["training"]["flops_required"].iloc[0])  # 6ND + attention
    train = flop / (run["flops_per_s_per_unit"] * 365.25 * 86_400)
    return {t: peak / tau for t, peak in PEAK_TOKENS_PER_S.items()}, float(train)


def test_the_run_s_units_are_bought_before_its_year(step_up: Plan) -> None:
    inference, train = _hand_units(step_up)
    assert inference["2026"] == pytest.approx(5.275, abs=1e-3)
    assert train == pytest.approx(9.692, abs=1e-3)  # 9.691 / 0.99982 scaling efficiency
    first = math.ceil(inference["2026"] + train)
    total = math.ceil(inference["2027"] + train)
    assert (first, total) == (15, 18)
    assert _bought(step_up) == {"2026": pytest.approx(first), "2027": pytest.approx(total - first)}
    assert check_plan(step_up) == []


def test_without_the_start_rows_the_checker_names_the_instant(monkeypatch) -> None:
    families = tuple(f for f in model.FAMILIES if f[0] != "period start")
    monkeypatch.setattr(model, "FAMILIES", families)
    loose = api.plan(api.load(STEP_UP))
    assert _bought(loose) == {"2026": pytest.approx(6.0), "2027": pytest.approx(12.0)}
    problems = check_plan(loose)
    assert any(p.startswith("2027: ") and "at work at its start" in p for p in problems)
    assert any("training at dc at its start, 6 there" in p for p in problems)


def test_quarterly_baseline_meets_every_month() -> None:
    """Before the start rows: 7 of 156 workload-months short (worst 22%, agentic in
    2026-04, as training on h100-hgx stepped up at a quarter's start)."""
    scenario = api.load(ROOT / "scenarios" / "baseline.yaml")
    scenario = scenario.model_copy(
        update={"horizon": scenario.horizon.model_copy(update={"periods_per_year": 4})}
    )
    plan = api.plan(scenario)
    check = resolution_check(plan, scenario, 12)
    assert len(check) == 156
    assert check["meets"].all(), check[~check["meets"]]
    assert check_plan(plan) == []


def test_a_switch_between_rented_types_at_a_year_s_start_is_allowed() -> None:
    """tests/scenarios/rental_switch.yaml: h100 rented in 2026, h200 (cheap from 2027) in
    2027; the plan is the one the model finds without the start rows at all."""
    path = ROOT / "tests" / "scenarios" / "rental_switch.yaml"
    result = api.plan(api.load(path))
    rented = result.tables["rentals"]
    by_year = {(str(r.period), r.hardware) for r in rented.itertuples(index=False) if r.units > 0}
    assert by_year == {("2026", "h100-hgx"), ("2027", "h200-hgx")}
    assert check_plan(result) == []
    scenario = api.load(path)
    assert resolution_check(result, scenario, 12)["meets"].all()


def test_committed_rentals_count_in_the_resolution_check() -> None:
    """commitment_steady.yaml serves everything on 3-year commitments: every month meets."""
    scenario = api.load(ROOT / "tests" / "scenarios" / "commitment_steady.yaml")
    result = api.plan(scenario)
    assert result.tables["rentals"]["units"].sum() == pytest.approx(0.0, abs=1e-6)
    check = resolution_check(result, scenario, 12)
    assert len(check) == 36 and check["meets"].all()


DURATION = ROOT / "tests" / "scenarios" / "duration_step_up.yaml"


def test_a_run_with_a_duration_has_its_whole_cluster_at_its_start() -> None:
    """duration_step_up.yaml (its header has the arithmetic): the 64-unit cluster of a
    run starting 2027-01-01 is there at that instant, with 2026's end inference."""
    plan = api.plan(api.load(DURATION))
    run = plan.tables["training"].iloc[0]
    assert run["start_date"] == "2027-01-01" and int(run["cluster_units"]) == 64
    inference, _ = _hand_units(plan)
    average = float(plan.tables["assignment_training"]["units"].iloc[0])
    assert average == pytest.approx(64 * float(run["duration_days"]) / 365.25, rel=1e-6)
    assert _bought(plan) == {"2026": pytest.approx(math.ceil(inference["2026"] + 64))}
    assert check_plan(plan) == []


def test_a_run_counted_at_its_average_occupancy_is_named_by_the_checker(monkeypatch) -> None:
    """The start rows as they were (a run with a duration at its average occupancy of
    t): 16 units in 2026, the run starting on them; the checker counts the cluster."""
    from planner.optimize.constraints import period_start

    monkeypatch.setattr(
        period_start, "_at_work", lambda d, var, clusters, key: [(1.0, var.x_train[key])]
    )
    loose = api.plan(api.load(DURATION))
    assert _bought(loose) == {"2026": pytest.approx(16.0), "2027": pytest.approx(48.0)}
    problems = check_plan(loose)
    assert any(p.startswith("2027: ") and "at work at its start" in p for p in problems)
