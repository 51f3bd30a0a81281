"""The solve recipes are data, walked by one driver: which path a plan took, what a
failed path costs, and the decision table printed from the same tuples."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from planner.optimize import build_data
from planner.optimize import recipe as recipe_module
from planner.optimize.paths import SolvePath
from planner.optimize.recipe import max_profit, min_cost
from planner.optimize.solvers.types import SolveStatus, Termination
from planner.optimize.stages import MAX_PROFIT, MIN_COST, Goal, Held, OnFailure, recipe_table
from planner.pipeline import solver_options, throughput
from planner.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _data(name: str):  # type: ignore[no-untyped-def]
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    return build_data(scenario, *throughput(scenario)), solver_options(scenario)


def test_every_recipe_ends_with_a_path_always_taken_and_a_kept_plan() -> None:
    """The driver needs a last path it can always take, and a second stage that keeps
    the first stage's plan when it finds none (a plan found is a plan kept)."""
    for recipe in (MIN_COST, MAX_PROFIT):
        assert recipe[-1].when == "always"
        for path in recipe:
            for before, stage in zip(path.stages, path.stages[1:], strict=False):
                assert stage.held == Held.PREVIOUS and stage.on_failure == OnFailure.KEEP_PREVIOUS
                assert before.mip_gap is not None and before.mip_gap < 1e-3  # a service stage
            assert sum(stage.duals for stage in path.stages) == 1  # duals from one stage


def test_the_decision_table_lists_every_stage_in_the_order_tried() -> None:
    table = recipe_table(MIN_COST).splitlines()
    stages = [line for line in table[2:] if line.startswith("|")]
    assert len(stages) == sum(len(p.stages) for p in MIN_COST) == 4
    assert stages[0].startswith(f"| {SolvePath.ONE_INSTANCE.value} |")
    assert Goal.LEXICOGRAPHIC.value in stages[0]
    assert "50% of left" in stages[1] and Held.ALL_SERVED.value in stages[1]
    assert stages[2].startswith(f"| {SolvePath.TWO_STAGES.value} |") and "1e-06" in stages[2]
    assert stages[3].startswith("|  |") and OnFailure.KEEP_PREVIOUS.value in stages[3]


def test_a_failed_one_instance_goes_to_the_two_stages_and_counts_its_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the one instance finds no plan, its time is lost and the two stages run
    (not the one stage: the service LP already said whether everything can be
    served); the plan they find is the separate stages' plan."""
    data, options = _data("power_constrained")
    options = replace(options, strategy="lp-first")
    calls: list[str] = []

    def no_plan(*args: object, **kwargs: object) -> None:
        calls.append("one instance")
        return None

    monkeypatch.setattr(recipe_module, "solve_problem", no_plan)
    result, solution, size, service = min_cost(data, options)
    assert calls == ["one instance"]
    assert size["service_path"] == SolvePath.TWO_STAGES_AFTER
    assert size["lost_seconds"] is not None and size["lost_seconds"] >= 0.0
    apart, _, apart_size, apart_service = min_cost(
        data, options, one_instance=False, serve_all_first=False
    )
    assert apart_size["service_path"] == SolvePath.TWO_STAGES
    assert solution is not None and service.objective == pytest.approx(apart_service.objective)
    assert result.objective == pytest.approx(apart.objective, rel=options.mip_gap)


def test_no_time_left_after_a_failed_path_is_no_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """A path after a failed one runs only with at least a second of the limit left."""
    data, options = _data("power_constrained")
    options = replace(options, strategy="lp-first", time_limit_s=5.0)

    def slow_and_no_plan(*args: object, **kwargs: object) -> None:
        import time

        time.sleep(4.5)

    monkeypatch.setattr(recipe_module, "solve_problem", slow_and_no_plan)
    result, solution, size, _ = min_cost(data, options)
    assert solution is None and result.status == SolveStatus.NO_SOLUTION
    assert result.termination == Termination.TIME_LIMIT
    # the one instance ran and failed; the two stages never ran
    assert size["service_path"] == SolvePath.ONE_INSTANCE and size["lost_seconds"] >= 4.5


def test_the_cost_stage_without_a_plan_keeps_the_service_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """KEEP_PREVIOUS: the service stage's plan comes back ``feasible``, cost unknown."""
    data, options = _data("power_constrained")
    real = recipe_module.build_and_solve
    seen: list[str] = []

    def cost_stage_fails(data, options, duals=(), *, extend=None):  # type: ignore[no-untyped-def]
        result, solution, size = real(data, options, duals, extend=extend)
        seen.append("stage")
        if len(seen) == 2:  # the cost stage
            return result, None, size
        return result, solution, size

    monkeypatch.setattr(recipe_module, "build_and_solve", cost_stage_fails)
    result, solution, size, service = min_cost(
        data, options, one_instance=False, serve_all_first=False
    )
    assert size["service_path"] == SolvePath.TWO_STAGES and len(seen) == 2
    assert solution is not None and result.status == SolveStatus.FEASIBLE
    assert result.objective is None and service.objective is not None


def test_max_profit_names_its_path() -> None:
    data, options = _data("baseline")
    data = replace(data, objective="max_profit")
    *_, size, _ = max_profit(data, options)
    assert size["service_path"] in (SolvePath.PROFIT, SolvePath.MUST_SERVE_FIRST)


def test_tokens_go_to_json_and_prose_to_people() -> None:
    assert json.dumps({"t": Termination.COST_UNMINIMISED}) == '{"t": "costUnminimised"}'
    assert Termination.prose_of("allServed").startswith("all demand served")
    assert Termination.prose_of("something else") == "something else"
    assert Termination.of("optimal") == Termination.OPTIMAL  # Pyomo's classic name
    assert Termination.of("maxTimeLimit") == Termination.TIME_LIMIT
    assert Termination.of("a solver's own words") == Termination.OTHER
    assert SolvePath.TWO_STAGES_AFTER.prose.startswith("two stages, after")
