"""A two-future newsvendor, solved by hand and by ``planner stochastic``.

One H100 server type, bought only in 2026 (the first stage) at P = $250,000; in 2027
demand is low or high (probability ½ each) and what the owned units cannot serve is
rented at R a unit-year (the recourse). Every other cost is 0 (no discounting, no
residual value, no facility, maintenance or network, electricity at $1e-9/kWh), so a
plan's cost is P · bought + R · rented unit-years. 2027's demand is 2.98 or 8.98 units'
worth (the perf model's output tokens/s per unit at the SLO, read at test time).

By hand, with R = 3P:

* each future alone buys all it needs (a unit costs P, renting 0.98 of one 2.94P):
  3 and 9 units; wait and see WS = ½·3P + ½·9P = 6P;
* here and now, unit m beyond 3 saves ½·R = 1.5P > P of expected rent (the 9th, 0.98
  used in the high future, ½·0.98·3P = 1.47P): N* = 9, RP = 9P, EVPI = RP − WS = 3P;
* the mean future needs 5.98 units and buys 6; with 6 fixed, the high future rents
  2.98 unit-years: EEV = 6P + ½·2.98·3P = 10.47P, VSS = EEV − RP = 1.47P.

With R = 1.5P a unit beyond 3 saves only ½·1.5P = 0.75P < P: N* = 3 at risk weight 0;
with weight 10 on CVaR at α = 0.9 (the worst tenth of probability: the high future) a
unit saves 0.75P + 10·1.5P > P: N* = 9.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from newsvendor import P, write_tree

from planner.scenario import load_scenario
from planner.stochastic.check import check_tree
from planner.stochastic.solve import solve_tree
from planner.stochastic.values import cvar, figures

TWO = (("low", 0.5, 2.98), ("high", 0.5, 8.98))


def _scenario(  # type: ignore[no-untyped-def]
    tmp_path: Path, rate_multiple: float, weight: float = 0.0, one: bool = False
):
    """The two-future tree (or one future with the base's 5.98 units) at
    ``tmp_path/newsvendor.yaml``, loaded."""
    futures = (("only", 1.0, None),) if one else TWO
    return load_scenario(write_tree(tmp_path, rate_multiple, futures, weight=weight))


def _bought(plan) -> float:  # type: ignore[no-untyped-def]
    return float(plan.tables["purchases"]["units"].sum())


def test_the_newsvendor_order_evpi_and_vss_are_the_hand_worked_ones(tmp_path: Path) -> None:
    result = solve_tree(_scenario(tmp_path, 3.0))
    low, high = result.futures
    assert (_bought(low.wait_and_see), _bought(high.wait_and_see)) == (3, 9)
    assert result.first_stage["buy"][("h100-hgx", "dc", 2026)] == 9
    assert _bought(low.plan) == _bought(high.plan) == 9
    h = figures(result)
    assert h["expected_npv_cost_usd"] == pytest.approx(9 * P, rel=1e-6)
    assert h["wait_and_see_npv_cost_usd"] == pytest.approx(6 * P, rel=1e-6)
    assert h["evpi_usd"] == pytest.approx(3 * P, rel=1e-5)
    assert result.mean_value_first_stage is not None
    assert result.mean_value_first_stage["buy"][("h100-hgx", "dc", 2026)] == 6
    assert h["vss_usd"] == pytest.approx(1.47 * P, rel=1e-3)
    assert check_tree(result) == []


def test_cvar_buys_for_the_worst_future_where_the_mean_does_not(tmp_path: Path) -> None:
    neutral = solve_tree(_scenario(tmp_path / "a", 1.5), values=False)
    assert neutral.first_stage["buy"][("h100-hgx", "dc", 2026)] == 3
    averse = solve_tree(_scenario(tmp_path / "b", 1.5, weight=10.0), values=False)
    assert averse.first_stage["buy"][("h100-hgx", "dc", 2026)] == 9
    assert check_tree(averse) == []


def test_cvar_of_a_discrete_distribution_by_hand() -> None:
    costs, p = [1.0, 2.0, 10.0], [0.5, 0.3, 0.2]
    assert cvar(costs, p, 0.0) == pytest.approx(0.5 + 0.6 + 2.0)  # the mean
    assert cvar(costs, p, 0.9) == pytest.approx(10.0)  # the worst tenth lies in 10
    assert cvar(costs, p, 0.7) == pytest.approx((0.2 * 10 + 0.1 * 2) / 0.3)
    assert cvar(costs, p, 0.999999) == pytest.approx(10.0)  # α → 1: the worst case


def test_one_future_is_the_deterministic_plan(tmp_path: Path) -> None:
    from planner.pipeline import plan

    scenario = _scenario(tmp_path, 3.0, one=True)
    result = solve_tree(scenario, values=False)
    alone = plan(scenario, duals=False)
    assert figures(result)["expected_npv_cost_usd"] == pytest.approx(
        alone.headline["npv_cost_usd"], rel=1e-6
    )
    assert _bought(result.futures[0].plan) == _bought(alone)


def test_the_workbook_states_the_figures_and_charts_cost_by_future(tmp_path: Path, run_cli) -> None:
    import json

    from openpyxl import load_workbook

    scenario_file = tmp_path / "newsvendor.yaml"
    _scenario(tmp_path, 3.0)  # writes it
    out = tmp_path / "two_stage.xlsx"
    result = run_cli("stochastic", scenario_file, "--out", out, "--format", "json")
    assert result.code == 0, result.err
    head = json.loads(result.out)["headline"]
    book = load_workbook(out)
    assert book.sheetnames == ["Two-stage plan", "Futures", "First stage"]
    figures_sheet = {
        row[0].value: row[1].value for row in book["Two-stage plan"].iter_rows(min_row=5)
    }
    assert (
        figures_sheet["EVPI"] == pytest.approx(head["evpi_usd"]) == pytest.approx(3 * P, rel=1e-5)
    )
    assert figures_sheet["VSS"] == pytest.approx(head["vss_usd"])
    (chart,) = book["Futures"]._charts
    assert len(chart.series) == 3  # here and now, wait and see, mean-value first stage
    first = [[c.value for c in row] for row in book["First stage"].iter_rows(min_row=2)]
    assert ["buy", "h100-hgx, dc, 2026", 9] in first
