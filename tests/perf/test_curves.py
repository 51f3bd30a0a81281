"""perf.curves: a serving case over a grid of tok/s/user; the SLO point is the table row."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.perf.curves import (
    DEFAULT_INTERACTIVITY,
    curve_selection,
    scenario_curves,
    with_point,
)
from planner.perf.inference import INFERENCE_COLUMNS, inference_table
from planner.scenario import load_scenario

REPO = Path(__file__).resolve().parents[2]


def test_default_grid_and_the_slo_point() -> None:
    assert tuple(float(v) for v in range(10, 201, 10)) == DEFAULT_INTERACTIVITY
    assert with_point([20, 10], 15) == [10.0, 15.0, 20.0]
    assert with_point([10, 20], 20) == [10.0, 20.0]  # on the grid: not repeated


@pytest.mark.parametrize("name", ["tests/scenarios/curves.yaml", "scenarios/baseline.yaml"])
def test_slo_point_rows_are_the_inference_table(name: str) -> None:
    scenario = load_scenario(REPO / name)
    curves = scenario_curves(scenario, interactivity=[10.0, 100.0])
    per_pair = curves.groupby(["workload", "hardware"])["slo_point"]
    assert (per_pair.sum() == 1).all() and (per_pair.size() == 3).all()
    at_slo = curves[curves["slo_point"]].reset_index(drop=True)
    table = inference_table(scenario)
    shared = [c for c in INFERENCE_COLUMNS if c in at_slo.columns]
    assert len(shared) == 13  # all but the decode-only / prefill / per-replica columns
    assert at_slo[shared].equals(table[shared])


def test_a_large_scenario_draws_the_hardware_its_plan_serves_each_workload_with() -> None:
    """Baseline has 3 serving workloads x 6 hardware x (20 + 1) points = 378: inside the
    budget every pair is drawn; over a budget of 100, only the named pairs, and the note
    gives the counts."""
    scenario = load_scenario(REPO / "scenarios/baseline.yaml")
    chosen, note = curve_selection(scenario, {})
    assert chosen is None and "every candidate" in note
    served_by = {"chat": {"b200-hgx", "gb200-nvl72"}, "agentic": {"gb200-nvl72"}}
    chosen, note = curve_selection(scenario, served_by, budget=100)
    assert chosen == {**served_by, "rl-post-train-rollouts": set()}
    assert "(3 of 18 workload-hardware pairs)" in note and "378 points" in note
    curves = scenario_curves(scenario, interactivity=[10.0], hardware_for=chosen)
    pairs = set(zip(curves["workload"], curves["hardware"], strict=True))
    assert pairs == {("chat", "b200-hgx"), ("chat", "gb200-nvl72"), ("agentic", "gb200-nvl72")}
