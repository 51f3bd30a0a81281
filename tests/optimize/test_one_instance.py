"""``min_cost`` under ``lp-first`` in one HiGHS instance
(:mod:`planner.optimize.solvers.lexicographic`).

The hand solutions of tests/scenarios/priority_shortfall.yaml and cheap_penalty.yaml
(tests/optimize/test_lexicographic.py) must come out of this path too, and its two LP
optima, found warm in one instance, must equal the two stages' LPs solved fresh.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pyomo.environ as pyo
import pytest
from hand_cases import PEAK_8B, PER_UNIT, fresh_lps, load

from planner.optimize import build_data, build_model, round_plan
from planner.optimize.objective import CostWithServiceHeld, ServiceFirst, npv_cost, unserved_share
from planner.optimize.solvers.instance import Problem
from planner.optimize.solvers.lexicographic import cap, solve_lexicographic
from planner.optimize.solvers.types import Termination
from planner.pipeline import ONE_INSTANCE, build_and_solve, plan, solver_options, throughput
from planner.results.checker import check_plan
from planner.scenario.loader import load_scenario


def test_the_hand_solved_shortfall_comes_out_of_one_instance() -> None:
    """priority_shortfall: 2 units (the budget's), vip served first, chat not at all."""
    scenario = load("priority_shortfall")
    inference, _ = throughput(scenario)
    row = inference[(inference["hardware"] == "h100-hgx") & (inference["workload"] == "chat")]
    rate = float(row["output_tokens_per_s_per_unit"].iloc[0])
    result = plan(scenario, strategy="lp-first")
    assert result.headline["service_path"] == ONE_INSTANCE
    assert result.status == "optimal"
    assert result.tables["purchases"]["units"].tolist() == [2]
    unmet = result.tables["served"].set_index("workload")["unmet_share"].to_dict()
    assert unmet["vip"] == pytest.approx(1 - 2 * rate / PEAK_8B, rel=1e-6)
    assert unmet["chat"] == pytest.approx(1.0, abs=1e-6)
    assert result.headline["objective_usd"] == pytest.approx(2 * PER_UNIT, rel=1e-9)


def test_everything_served_in_one_instance_buys_what_serving_needs() -> None:
    """cheap_penalty: serving costs more than the penalty, yet all is served (4 units)."""
    result = plan(load("cheap_penalty"), strategy="lp-first")
    assert result.headline["service_path"] == ONE_INSTANCE
    assert result.tables["purchases"]["units"].tolist() == [4]
    assert result.tables["served"]["unmet_share"].tolist() == [0.0]
    assert result.headline["weighted_unserved_share"] == pytest.approx(0.0, abs=1e-9)
    assert result.headline["objective_usd"] == pytest.approx(4 * PER_UNIT, rel=1e-9)


def test_direct_keeps_the_separate_stages() -> None:
    result = plan(load("priority_shortfall"), strategy="direct")
    assert result.headline["service_path"] != ONE_INSTANCE
    assert result.tables["purchases"]["units"].tolist() == [2]


@pytest.mark.parametrize("name", ["priority_shortfall", "budget_shortfall", "load_shape_shortfall"])
def test_warm_lps_equal_the_stages_solved_fresh(name: str) -> None:
    """s* and c* found in one instance (the cost LP warm from the service LP's basis)
    equal the service stage's LP and the cost stage's LP (service held at s*) each
    built and solved on its own; the whole plan it returns leaves at most its reported
    service unserved and costs at least its bound."""
    scenario = load(name)
    data = build_data(scenario, *throughput(scenario))
    options = replace(solver_options(scenario, strategy="lp-first"), mip_gap=1e-9)
    model = build_model(data)
    ServiceFirst()(model, data)
    found = solve_lexicographic(model, npv_cost(model, data), options, round_plan)
    assert found is not None and found.service_lp is not None and found.cost_lp is not None
    fresh_service, fresh_cost = fresh_lps(data, options, found.service_lp)
    assert found.service_lp == pytest.approx(fresh_service, rel=1e-7, abs=1e-6)
    if found.service_lp > 1e-6:  # the held row, as in the warm instance
        assert found.cost_lp == pytest.approx(fresh_cost, rel=1e-7)
    served = pyo.value(unserved_share(model, data))
    service, cost = found.service, found.cost
    assert service.objective is not None and service.bound is not None
    assert served <= cap(service.objective) + 1e-6
    assert service.bound <= service.objective + 1e-6
    assert cost.objective is not None and cost.bound is not None
    assert cost.bound <= cost.objective * (1 + 1e-9) + 1e-9
    assert pyo.value(npv_cost(model, data)) == pytest.approx(cost.objective, rel=1e-7)


def test_the_cost_lp_is_solved_when_the_primal_simplex_gives_no_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At L (bench/README) the primal simplex from a rounded plan's service LP ended
    kUnknown where interior point solved the same LP in about 1 s. With every primal
    simplex run giving no answer, the cost LP with the service held still ends optimal
    at the value of the same LP built and solved fresh."""
    from planner.optimize.solvers import highs as hs
    from planner.optimize.solvers import instance, whole_plans

    scenario = load("budget_shortfall")
    data = build_data(scenario, *throughput(scenario))
    options = replace(solver_options(scenario, strategy="lp-first"), mip_gap=1e-9)
    model = build_model(data)
    ServiceFirst()(model, data)
    problem = instance.pyomo_problem(model, npv_cost(model, data), round_plan)
    one = instance.Instance(problem, options)
    hs.set_integrality(one.bridge, False)
    assert one.lp(None, "ipm")
    service = one.value()
    one.hold(cap(service))
    one.objective("cost")
    run = instance.Instance.run

    def no_primal_simplex(self, deadline, solver="choose", strategy=0) -> bool:
        if strategy == instance.PRIMAL_SIMPLEX:
            return False  # no answer, as kUnknown
        return run(self, deadline, solver, strategy)

    monkeypatch.setattr(instance.Instance, "run", no_primal_simplex)
    assert whole_plans.cost_lp(one, None)
    fresh, _, _ = build_and_solve(
        replace(data, relax=True), options, extend=CostWithServiceHeld(service)
    )
    assert fresh.objective is not None
    assert one.value() == pytest.approx(fresh.objective, rel=1e-7)


def _cost_lp_times_out(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """The first cost LP (step 2's primal simplex) ends without an answer, as XL's did
    at its time limit; the deadlines it was given are recorded."""
    from planner.optimize.solvers import instance

    run, given = instance.Instance.run, []

    def first_cost_lp_fails(self, deadline, solver="choose", strategy=0) -> bool:
        if strategy == instance.PRIMAL_SIMPLEX and not given:
            given.append(deadline)
            return False
        return run(self, deadline, solver, strategy)

    monkeypatch.setattr(instance.Instance, "run", first_cost_lp_fails)
    return given


def test_the_time_guard_keeps_the_service_when_the_cost_lp_does_not_finish(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """priority_shortfall with its cost LP cut off: the plan comes from the service LP
    (its 2 units, vip served first as by hand), status feasible, no bound on cost, and
    the checker finds nothing wrong with it."""
    given = _cost_lp_times_out(monkeypatch)
    scenario = load("priority_shortfall")
    inference, _ = throughput(scenario)
    row = inference[(inference["hardware"] == "h100-hgx") & (inference["workload"] == "chat")]
    rate = float(row["output_tokens_per_s_per_unit"].iloc[0])
    result = plan(scenario, strategy="lp-first", time_limit_s=60)
    assert given and given[0] is not None  # the cost LP had a deadline: its share
    assert result.headline["service_path"] == ONE_INSTANCE
    assert result.status == "feasible"
    assert result.headline["termination"] == Termination.COST_UNMINIMISED
    assert result.headline["mip_gap"] is None and result.headline["best_bound_usd"] is None
    assert result.headline["service_status"] == "optimal"
    assert result.tables["purchases"]["units"].tolist() == [2]
    unmet = result.tables["served"].set_index("workload")["unmet_share"].to_dict()
    assert unmet["vip"] == pytest.approx(1 - 2 * rate / PEAK_8B, rel=1e-6)
    assert unmet["chat"] == pytest.approx(1.0, abs=1e-6)
    assert "gap on cost unknown" in result.diagnosis[0]
    assert check_plan(result) == []


def test_the_time_guard_s_plan_on_baseline_serves_all_and_costs_no_less(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Baseline's service LP plan rounded loses service under its power cap; the
    service MILP from it serves everything again. Its cost, not chosen for cost, is
    at least the bound the ordinary solve proves for every plan that serves all
    ($2.853B under the $2.857B optimum) and checks against the tables."""
    baseline = load_scenario(Path(__file__).resolve().parents[2] / "scenarios/baseline.yaml")
    bound = plan(baseline, strategy="lp-first").headline["best_bound_usd"]
    _cost_lp_times_out(monkeypatch)
    result = plan(baseline, strategy="lp-first", time_limit_s=120)
    assert result.status == "feasible"
    assert result.headline["weighted_unserved_share"] == pytest.approx(0.0, abs=1e-9)
    assert result.headline["unmet_training_flops"] == pytest.approx(0.0, abs=1.0)
    assert result.headline["npv_cost_usd"] >= bound
    assert check_plan(result) == []


def test_the_time_guard_s_cost_is_the_plan_s_when_no_cost_lp_finishes(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Every cost LP cut off (the first, and the one over the continuous decisions of
    the rounded plan): the cost reported is the plan's own, as the tables price it."""
    from planner.optimize.solvers import instance

    run, runs = instance.Instance.run, []

    def only_the_service_lps(self, deadline, solver="choose", strategy=0) -> bool:
        runs.append((solver, strategy))
        cost_lp = strategy == instance.PRIMAL_SIMPLEX or (solver == "ipm" and len(runs) > 1)
        return False if cost_lp else run(self, deadline, solver, strategy)

    monkeypatch.setattr(instance.Instance, "run", only_the_service_lps)
    with caplog.at_level("WARNING", logger="planner.optimize"):
        result = plan(load("priority_shortfall"), strategy="lp-first", time_limit_s=60)
    assert "cost not minimised" in caplog.text
    assert result.headline["termination"] == Termination.COST_UNMINIMISED
    assert result.tables["purchases"]["units"].tolist() == [2]
    assert result.headline["objective_usd"] == pytest.approx(2 * PER_UNIT, rel=1e-9)
    assert result.headline["objective_usd"] == pytest.approx(
        result.headline["npv_cost_usd"], rel=1e-9
    )
    assert check_plan(result) == []


def _tiny_problem(cap_units: float) -> Problem:
    """One whole decision n (units, at most 10), work x ≤ 0.6 n serving a demand of 1
    with an unmet slack u, cost n, and n ≤ ``cap_units``:
    rows x + u = 1, x − 0.6 n ≤ 0, n ≤ cap."""
    import numpy as np

    from planner.optimize.solvers.handoff import Arrays

    arrays = Arrays(
        columns=["n", "x", "u"],
        rows={},
        col_lower=np.zeros(3),
        col_upper=np.array([10.0, 1.0, 1.0]),
        cost=np.array([0.0, 0.0, 1.0]),  # the service objective: u
        offset=0.0,
        maximise=False,
        row_lower=np.array([1.0, -np.inf, -np.inf]),
        row_upper=np.array([1.0, 0.0, cap_units]),
        start=np.array([0, 2, 4, 5], dtype=np.int32),
        index=np.array([1, 2, 1, 0, 0], dtype=np.int32),
        value=np.array([1.0, 1.0, 1.0, -0.6, 1.0]),
        integers=np.array([0], dtype=np.int32),
    )

    def round_whole(values: np.ndarray, up: bool) -> np.ndarray:
        out = values.copy()
        out[0] = np.ceil(out[0] - 1e-9) if up else np.floor(out[0] + 1e-9)
        return out

    return Problem(arrays, np.array([1.0, 0.0, 0.0]), np.array([2]), round_whole, lambda _v: None)


def test_a_bound_found_with_every_slack_at_0_never_bounds_a_plan_that_uses_them() -> None:
    """By hand, n ≤ 1.7: the LP serves all with n = 1/0.6 = 1.667 (s* = 0, c* = 1.667);
    whole n is 1 (2 breaks the cap), which serves 0.6 and leaves u = 0.4 at cost 1. The
    cost of serving all (1.667) is no bound on that plan: the bound is the LP with the
    service held at 0.4, n ≥ 1, so cost 1 (it was reported as 1.667, above the plan)."""
    from planner.optimize.solvers.lexicographic import solve_problem
    from planner.optimize.solvers.types import SolverOptions

    found = solve_problem(_tiny_problem(1.7), SolverOptions(mip_gap=1e-4, time_limit_s=10))
    assert found is not None and found.service_lp == pytest.approx(0.0, abs=1e-9)
    assert found.cost.objective == pytest.approx(1.0)
    assert found.cost.bound is not None and found.cost.bound <= found.cost.objective
    assert found.cost.bound == pytest.approx(1.0, rel=1e-5)


def test_a_tiny_but_nonzero_s_star_holds_the_row_rather_than_every_slack_at_0() -> None:
    """n ≤ 1.6666665: the LP leaves 1e-7 unserved (s* within the held row's tolerance of
    0, not 0), so every slack at 0 is infeasible; the cost LP holds the row instead and
    the plan is costed and bounded (it was the time guard's, 'cost not minimised')."""
    from planner.optimize.solvers.lexicographic import solve_problem
    from planner.optimize.solvers.types import SolverOptions

    options = SolverOptions(mip_gap=1e-4, time_limit_s=10)
    found = solve_problem(_tiny_problem(1.6666665), options)
    assert found is not None and 0 < found.service_lp < 1e-6
    assert found.cost.termination != Termination.COST_UNMINIMISED
    assert found.cost.objective == pytest.approx(1.0)
    assert found.cost.bound is not None and found.cost.bound <= found.cost.objective
