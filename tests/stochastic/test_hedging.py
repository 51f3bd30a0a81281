"""Progressive hedging against the deterministic equivalent on an eight-future newsvendor,
and on every executor alike.

The newsvendor of ``test_newsvendor.py`` with eight futures: 2027's demand is d_k units'
worth, d = 1.3, 2.7, 3.9, 4.4, 5.6, 6.2, 7.7, 8.9 with probabilities .05, .1, .15, .2,
.2, .15, .1, .05; a unit bought in 2026 costs P, renting one for 2027 R = 1.5P. By hand,
N units cost ``N·P + R·Σ p_k max(0, d_k − N)``: a unit past N saves R · P(d > N), and
P(d > 4) = 0.7 (0.7 · 1.5P > P) but P(d > 5) = 0.5, so N* = 4 whole units, at
4P + 1.5P · 1.345 = 6.0175P. The relaxation's optimum is 4.4 (P(d > x) = 0.7 up to the
fourth future's 4.4): PH converges there, and the whole first stage comes from rounding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from newsvendor import P, write_tree

from planner.analysis.executors import ExecutorChoice
from planner.errors import InputError
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario
from planner.stochastic.check import check_tree
from planner.stochastic.solve import Stochastic, solve_tree
from planner.stochastic.values import figures

LEVELS = (1.3, 2.7, 3.9, 4.4, 5.6, 6.2, 7.7, 8.9)
PROBABILITIES = (0.05, 0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05)
BUY = ("h100-hgx", "dc", 2026)


def _tree(folder: Path, weight: float = 0.0) -> Path:
    futures = [
        (f"f{i}", p, level) for i, (level, p) in enumerate(zip(LEVELS, PROBABILITIES, strict=True))
    ]
    return write_tree(folder, 1.5, futures, weight=weight, name="eight-futures")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree(tmp_path_factory.mktemp("hedging"))


@pytest.fixture(scope="module")
def hedged(tree: Path) -> Stochastic:
    return solve_tree(
        load_scenario(tree), values=False, method="hedging", executor=ExecutorChoice(workers=0)
    )


def _same(result: Stochastic) -> tuple[Any, dict[str, Any]]:
    """What must not depend on the executor: the first stage and PH's figures."""
    kept = {k: v for k, v in result.hedging.items() if "seconds" not in k and k != "executor"}
    return result.first_stage, kept


def test_hedging_agrees_with_the_equivalent_within_its_gap(tree: Path, hedged: Stochastic) -> None:
    equivalent = figures(solve_tree(load_scenario(tree), values=False))
    h = figures(hedged)
    ph = hedged.hedging
    assert h["method"] == "hedging" and equivalent["method"] == "equivalent"
    assert ph["converged"] and ph["residual"] <= ph["tolerance"]
    assert ph["upper_bound_usd"] == pytest.approx(h["expected_npv_cost_usd"], rel=1e-9)
    cost, bound, gap = h["expected_npv_cost_usd"], ph["bound_usd"], ph["gap"]
    assert 0 <= gap < 1e-3
    assert bound <= equivalent["expected_npv_cost_usd"] * (1 + 1e-9)
    assert abs(cost - equivalent["expected_npv_cost_usd"]) <= gap * cost + 1e-6 * cost
    assert cost == pytest.approx(6.0175 * P, rel=1e-6)  # by hand (module docstring)
    assert hedged.first_stage["buy"][BUY] == 4
    assert check_tree(hedged) == []


def test_the_local_pool_and_dask_give_identical_results(tree: Path, hedged: Stochastic) -> None:
    pytest.importorskip("distributed")
    scenario: Scenario = load_scenario(tree)
    runs = [
        solve_tree(scenario, values=False, method="hedging", executor=choice)
        for choice in (ExecutorChoice(workers=2), ExecutorChoice(dask_local=2))
    ]
    assert [r.hedging["executor"] for r in runs] == [
        "local process pool, 2 workers",
        "Dask LocalCluster, 2 workers",
    ]
    assert _same(runs[0]) == _same(runs[1]) == _same(hedged)


def test_hedging_refuses_cvar_at_its_path(tmp_path: Path) -> None:
    scenario = load_scenario(_tree(tmp_path, weight=1.0))
    with pytest.raises(InputError, match=r"risk\.weight"):
        solve_tree(scenario, values=False, method="hedging")


def test_the_command_reports_iterations_bound_and_gap(tree: Path, run_cli) -> None:
    args = ["stochastic", tree, "--method", "hedging", "--workers", "0", "--no-values"]
    result = run_cli(*args, "--format", "json")
    assert result.code == 0, result.err
    head = json.loads(result.out)["headline"]
    assert head["method"] == "hedging" and head["hedging"]["converged"]
    assert head["hedging"]["bound_usd"] <= head["expected_npv_cost_usd"]
    printed = run_cli(*args)
    assert printed.code == 0 and "progressive hedging on this process" in printed.out
    assert "gap" in printed.out
