"""Column generation of inference assignments (:mod:`planner.optimize.solvers.columns`,
:mod:`planner.optimize.assignments`): held columns priced in by the LP's duals give
the full LP's optimum, and plans made that way are plans of the full model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hand_cases import fresh_lps, load

import planner.optimize.assignments as assignments
from planner.optimize import build_data, build_model, round_plan
from planner.optimize.objective import ServiceFirst, npv_cost
from planner.optimize.solvers.columns import restrict
from planner.optimize.solvers.handoff import Arrays, highs_model_of
from planner.optimize.solvers.lexicographic import solve_lexicographic
from planner.pipeline import plan, solver_options, throughput
from planner.results.checker import check_plan
from planner.scenario.loader import load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _tiny() -> Arrays:
    """min x1 + 3 x2 + 1.5 x3  s.t.  x1 + x2 + x3 ≥ 2,  x1 ≤ 1,  x ≥ 0.
    By hand: optimum 2.5 at x = (1, 0, 1); without x3, 4 at (1, 1, 0) with duals
    y = (3, −2), so x3's reduced cost is 1.5 − 3 = −1.5 and x2's is 3 − 3 = 0."""
    inf = np.inf
    return Arrays(
        columns=["x1", "x2", "x3"],
        rows={},
        col_lower=np.zeros(3),
        col_upper=np.full(3, inf),
        cost=np.array([1.0, 3.0, 1.5]),
        offset=0.0,
        maximise=False,
        row_lower=np.array([2.0, -inf]),
        row_upper=np.array([inf, 1.0]),
        start=np.array([0, 3, 4], dtype=np.int32),
        index=np.array([0, 1, 2, 0], dtype=np.int32),
        value=np.array([1.0, 1.0, 1.0, 1.0]),
        integers=np.zeros(0, dtype=np.int32),
    )


def test_a_held_column_prices_in_as_worked_by_hand() -> None:
    arrays = _tiny()
    restricted, pool = restrict(arrays, np.array([False, False, True]))
    assert restricted.columns == ["x1", "x2"]
    assert restricted.start.tolist() == [0, 2, 3] and restricted.index.tolist() == [0, 1, 0]
    highs = highs_model_of(restricted).highs
    highs.run()
    assert highs.getInfo().objective_function_value == pytest.approx(4.0)
    dual = np.asarray(highs.getSolution().row_dual)
    assert dual.tolist() == pytest.approx([3.0, -2.0])
    chosen = pool.price(pool_costs := arrays.cost[pool.full], dual, np.zeros(1), 0.0)
    assert chosen.tolist() == [0]  # x3: 1.5 − 3 < 0
    starts, index, value = pool.entries(chosen)
    highs.addCols(
        1, pool_costs[chosen], pool.lower[chosen], pool.upper[chosen], 1, starts, index, value
    )
    highs.run()
    assert highs.getInfo().objective_function_value == pytest.approx(2.5)
    # at the full optimum's duals nothing prices in: x2 (held now) costs more than it saves
    again = restrict(arrays, np.array([False, True, False]))[1]
    full = highs_model_of(arrays).highs
    full.run()
    duals = np.asarray(full.getSolution().row_dual)
    assert again.price(arrays.cost[again.full], duals, np.zeros(1), 0.0).tolist() == []


def test_integer_or_bounded_columns_are_never_held() -> None:
    arrays = replace(_tiny(), integers=np.array([2], dtype=np.int32))
    with pytest.raises(ValueError, match="integer"):
        restrict(arrays, np.array([False, False, True]))


def _generate_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every model generates its assignment columns (not only the large ones)."""
    monkeypatch.setattr(assignments, "GENERATE_FROM", 0)


@pytest.mark.parametrize("name", ["baseline", "power_constrained"])
def test_the_lps_with_columns_held_equal_the_full_lps(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """s* and c* found with most assignment columns held back and priced in equal the
    full service and cost LPs solved fresh; some columns had to be priced in."""
    _generate_all(monkeypatch)
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    data = build_data(scenario, *throughput(scenario))
    options = replace(solver_options(scenario, strategy="lp-first"), mip_gap=1e-9)
    model = build_model(data)
    ServiceFirst()(model, data)
    held = assignments.held_back(model, data)
    assert 0 < len(held) < len(model.x_inf)
    found = solve_lexicographic(model, npv_cost(model, data), options, round_plan, held=held)
    assert found is not None and found.service_lp is not None and found.cost_lp is not None
    assert found.columns["columns_held_back"] == len(held)
    assert found.columns["columns_priced_in"] > 0
    fresh_service, fresh_cost = fresh_lps(data, options, found.service_lp)
    assert found.service_lp == pytest.approx(fresh_service, rel=1e-7, abs=1e-6)
    assert found.cost_lp == pytest.approx(fresh_cost, rel=1e-6)


def test_a_plan_made_with_columns_held_is_a_plan_of_the_full_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """power_constrained with its assignments generated: the checker finds nothing wrong,
    the service equals the full solve's, and each solve's cost lies within the other's
    bound (both bounds are valid for the same problem)."""
    scenario = load_scenario(SCENARIOS / "power_constrained.yaml")
    tables = throughput(scenario)
    full = plan(scenario, strategy="lp-first", tables=tables).headline
    _generate_all(monkeypatch)
    generated = plan(scenario, strategy="lp-first", tables=tables)
    head = generated.headline
    assert head["columns_held_back"] > 0 and head["columns_priced_in"] > 0
    assert check_plan(generated) == []
    assert head["weighted_unserved_share"] == pytest.approx(
        full["weighted_unserved_share"], rel=1e-6
    )
    assert head["best_bound_usd"] <= full["objective_usd"] * (1 + 1e-9)
    assert full["best_bound_usd"] <= head["objective_usd"] * (1 + 1e-9)


def test_hand_cases_come_out_the_same_with_generation_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hand-worked cases plan to the same purchases and cost with every assignment
    column generated as with all handed over."""
    for name in ("priority_shortfall", "cheap_penalty"):
        scenario = load(name)
        full = plan(scenario, strategy="lp-first")
        with monkeypatch.context() as patched:
            patched.setattr(assignments, "GENERATE_FROM", 0)
            result = plan(scenario, strategy="lp-first")
        assert result.status == full.status == "optimal"
        assert result.headline["npv_cost_usd"] == pytest.approx(full.headline["npv_cost_usd"])
        assert result.tables["purchases"]["units"].tolist() == (
            full.tables["purchases"]["units"].tolist()
        )
        assert check_plan(result) == []
