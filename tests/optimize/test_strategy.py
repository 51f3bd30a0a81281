"""Solver strategies and the bulk HiGHS hand-off (issue 7)."""

from __future__ import annotations

from pathlib import Path

import pyomo.environ as pyo
import pytest

from planner.errors import SolverError
from planner.optimize import SolverOptions, build_data, build_model, solve
from planner.optimize.solve import SolveResult, SolveStatus, highs_model
from planner.optimize.solvers.handoff import model_arrays
from planner.optimize.solvers.types import Termination
from planner.optimize.strategy import AUTO_LP_FIRST_VARIABLES, resolve, round_plan
from planner.pipeline import plan, throughput
from planner.results.checker import check_plan
from planner.scenario import load_scenario

HAND = Path(__file__).resolve().parents[1] / "scenarios"
SHIPPED = Path(__file__).resolve().parents[2] / "scenarios"


def test_auto_rounds_the_lp_first_for_large_models_only() -> None:
    assert resolve("auto", "highs", AUTO_LP_FIRST_VARIABLES, relax=False) == "lp-first"
    assert resolve("auto", "highs", AUTO_LP_FIRST_VARIABLES - 1, relax=False) == "direct"
    assert resolve("auto", "cbc", 10**6, relax=False) == "direct"  # HiGHS only
    assert resolve("lp-first", "highs", 10, relax=True) == "direct"  # an LP has no rounding
    assert resolve("direct", "highs", 10**6, relax=False) == "direct"


def test_lp_first_keeps_a_rounded_plan_within_the_gap_of_the_lp_bound() -> None:
    scenario = load_scenario(SHIPPED / "baseline.yaml")
    tables = throughput(scenario)
    lp = plan(scenario, tables=tables, relax=True).headline["objective_usd"]
    result = plan(scenario, tables=tables, strategy="lp-first", mip_gap=0.01)
    h = result.headline
    assert h["strategy"] == "lp-first" and result.status == "optimal"
    assert h["best_bound_usd"] == pytest.approx(lp, rel=1e-6)  # the relaxation's optimum
    assert lp <= h["objective_usd"] <= lp * 1.01
    assert check_plan(result) == []
    assert not result.tables["shadow_prices"].empty  # the relaxation's duals, reused


def test_lp_first_with_no_gap_ends_at_the_milp_optimum() -> None:
    scenario = load_scenario(HAND / "power_switch.yaml")  # mip_gap 0
    direct = plan(scenario, strategy="direct")
    rounded = plan(scenario, strategy="lp-first")
    assert rounded.headline["objective_usd"] == pytest.approx(
        direct.headline["objective_usd"], rel=1e-9
    )
    assert check_plan(rounded) == []


def test_round_plan_rounds_purchases_and_picks_one_cluster_per_run() -> None:
    scenario = load_scenario(HAND / "training_one_type.yaml")
    model = build_model(build_data(scenario, *throughput(scenario)))
    for var in model.buy.values():
        var.set_value(2.4, skip_validation=True)
    keys = list(model.y)
    for (r, h, s, _), var in model.x_train.items():
        var.set_value(3.0 if (r, h, s) == keys[-1] else 1.0, skip_validation=True)
    round_plan(model, up=True)
    assert {v.value for v in model.buy.values()} == {3.0}
    assert [key for key, var in model.y.items() if var.value == 1.0] == [keys[-1]]
    round_plan(model, up=False)
    assert {v.value for v in model.buy.values()} == {3.0}  # already whole: stays


def test_lp_first_needs_highs() -> None:
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    with pytest.raises(SolverError, match="lp-first"):
        plan(scenario, strategy="lp-first", solver="cbc")


def test_the_hand_off_reads_any_linear_row_and_loads_values_back() -> None:
    """Rows written with operators (not the planner's flat rows), a repeated variable,
    a constant in the body, a fixed variable and a maximised objective."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var([1, 2], domain=pyo.NonNegativeIntegers, bounds=(0, 10))
    m.z = pyo.Var(domain=pyo.NonNegativeReals)
    m.f = pyo.Var(initialize=2.0)
    m.f.fix()
    m.a = pyo.Constraint(expr=m.x[1] + 2 * m.x[2] + m.x[1] + 1 <= 9)  # 2 x1 + 2 x2 ≤ 8
    m.b = pyo.Constraint(expr=m.z <= 1.5 * m.f)  # z ≤ 3
    m.cost = pyo.Objective(expr=3 * m.x[1] + 2 * m.x[2] + m.z, sense=pyo.maximize)
    arrays = model_arrays(m)
    assert [v.name for v in arrays.columns] == ["x[1]", "x[2]", "z", "f"]
    assert list(arrays.start) == [0, 2, 4]
    assert list(arrays.index) == [0, 1, 2, 3]  # x1 merged into one entry
    assert list(arrays.value) == [2.0, 2.0, 1.0, -1.5]  # z − 1.5 f ≤ 0
    assert list(arrays.row_upper) == [8.0, 0.0]  # the body's constant moved across
    assert list(arrays.col_lower) == [0.0, 0.0, 0.0, 2.0]  # f fixed: both bounds 2
    assert list(arrays.col_upper)[:2] == [10.0, 10.0] and arrays.col_upper[3] == 2.0
    assert list(arrays.cost) == [3.0, 2.0, 1.0, 0.0] and arrays.maximise
    assert list(arrays.integers) == [0, 1]
    bridge = highs_model(m)
    assert bridge.nonzeros == 4 and list(bridge.integers) == [0, 1]
    assert bridge.highs.getNumRow() == 2 and bridge.highs.getNumCol() == 4
    result = solve(m, SolverOptions(mip_gap=0.0))
    assert result.status == SolveStatus.OPTIMAL and result.objective == pytest.approx(15.0)
    assert (m.x[1].value, m.x[2].value, m.z.value) == pytest.approx((4.0, 0.0, 3.0))
    assert (result.handoff_seconds or 0) > 0 and (result.solver_seconds or 0) > 0
    assert result.nonzeros == 4


def test_gap_is_relative_to_the_objective_and_none_without_a_bound() -> None:
    def result(objective: float | None, bound: float | None) -> SolveResult:
        return SolveResult(
            SolveStatus.FEASIBLE, Termination.TIME_LIMIT, objective, bound, 1.0, "highs"
        )

    assert result(200.0, 150.0).gap == pytest.approx(0.25)  # 50 / 200
    assert result(-200.0, -250.0).gap == pytest.approx(0.25)  # |−50| / |−200|
    assert result(7.0, 7.0).gap == 0.0
    assert result(None, 3.0).gap is None and result(3.0, None).gap is None


def test_pyomo_s_own_highs_interface_agrees_with_the_bulk_hand_off() -> None:
    scenario = load_scenario(HAND / "rental_spike.yaml")
    bulk = plan(scenario)
    pyomo_interface = plan(scenario, solver="highs-pyomo")
    assert pyomo_interface.headline["objective_usd"] == pytest.approx(
        bulk.headline["objective_usd"], rel=1e-9
    )
    assert pyomo_interface.headline["solver"] == "highs-pyomo"
    assert pyomo_interface.headline["handoff_seconds"] > 0  # from Pyomo's timer
    assert pyomo_interface.headline["nonzeros"] is None  # only the bulk hand-off counts them
    assert bulk.headline["nonzeros"] > 0
