"""The pipeline's steps: the Plan carries its throughput tables; the build step's hook."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import planner.perf
from planner.export.excel import build_workbook
from planner.optimize import AlternativeObjective, Solution, SolveResult, build_data
from planner.pipeline import build_and_solve, plan, solver_options, throughput
from planner.scenario import load_scenario

HAND = Path(__file__).resolve().parent / "scenarios"
# one_hardware_one_year.yaml's hand solution: 4 h100-hgx (8 accelerators each) at
# 106,318.28 USD each over the one-year horizon.
UNITS, ACCELERATORS = 4, 8
PER_UNIT = 280_000 + 10.2 * 1.25 * 0.8 * 8760 * 0.07 + 10.2 * 1500 + 0.03 * 280_000
PER_UNIT -= 280_000 * 4 / 5 / 1.1


def test_the_plan_carries_the_throughput_tables_it_was_solved_with() -> None:
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    inference, training = throughput(scenario)
    result = plan(scenario)
    pd.testing.assert_frame_equal(result.inference_throughput, inference)
    pd.testing.assert_frame_equal(result.training_throughput, training)
    assert "inference_throughput" not in result.to_json()  # not one of the plan's tables


def test_the_workbook_never_runs_the_perf_model(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    result = plan(scenario)

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the export ran the perf model")

    monkeypatch.setattr(planner.perf, "throughput_tables", refuse)
    built = build_workbook(result, scenario)
    sheet = built.workbook["Throughput inference"]
    rate = float(result.inference_throughput["output_tokens_per_s_per_unit"].iloc[0])
    values = [c.value for row in sheet.iter_rows() for c in row]
    assert rate in values  # the plan's own table, shown as it was solved with


def _solve_with(cap_usd: float) -> tuple[SolveResult, Solution | None]:
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    data = build_data(scenario, *throughput(scenario))
    hook = AlternativeObjective(cap_usd, {"h100-hgx": 1.0})
    result, solution, _ = build_and_solve(data, solver_options(scenario), extend=hook)
    return result, solution


def test_the_build_hook_caps_the_cost_and_minimises_the_weighted_accelerators() -> None:
    optimum = UNITS * PER_UNIT  # 425,273.11 USD
    result, solution = _solve_with(optimum * 1.02)
    assert solution is not None
    # The objective solved for is the weight: 1 per accelerator, 4 units x 8.
    assert result.objective == pytest.approx(UNITS * ACCELERATORS, rel=1e-9)
    # The solution still knows its cost (the model's own objective, deactivated): no
    # less than the optimum, no more than the cap (the weight does not care where).
    cost = solution.cost_usd
    assert optimum * (1 - 1e-9) <= cost <= optimum * 1.02 * (1 + 1e-9)


def test_a_cost_cap_below_the_optimum_leaves_no_plan() -> None:
    result, solution = _solve_with(UNITS * PER_UNIT * 0.99)
    assert solution is None
    assert not result.status.has_solution


def test_a_solve_stopped_by_the_run_limit_is_the_runs_time_limit_error() -> None:
    """The solver is given the time left; when it ends without a plan because that ran
    out, the error is the run's time-limit message (naming the solve), not "no plan"."""
    import time

    from planner.deadline import Deadline, TimeLimitError
    from planner.errors import SolverError
    from planner.optimize import SolveStatus
    from planner.optimize.solvers.types import Termination
    from planner.pipeline import no_plan

    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    options = solver_options(scenario)
    stopped = SolveResult(SolveStatus.NO_SOLUTION, Termination.TIME_LIMIT, None, None, 0.2, "highs")
    with Deadline(0.2):
        time.sleep(0.25)
        error = no_plan(options, scenario, stopped)
    assert isinstance(error, TimeLimitError)
    assert "time limit of 0.2 s during the solve" in str(error)
    with Deadline(60):
        error = no_plan(options, scenario, stopped)
    assert type(error) is SolverError
    assert str(error).startswith("highs found no plan for ")
