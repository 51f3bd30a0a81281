"""Shared hand numbers of the one-h100 test scenarios (tests/scenarios/*.yaml headers)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from planner.optimize import ModelData, SolverOptions
from planner.optimize.objective import CostWithServiceHeld, ServiceFirst
from planner.pipeline import build_and_solve
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario

HERE = Path(__file__).resolve().parents[1] / "scenarios"
PEAK_8B = 1.0e10 * 1.5 / 86_400  # tokens/s at peak for 1e10 tokens/day, peak-to-average 1.5
PER_UNIT = (  # one h100-hgx for 2026, NPV (see one_hardware_one_year.yaml)
    280_000 + 10.2 * 1.25 * 0.8 * 8760 * 0.07 + 10.2 * 1500 + 0.03 * 280_000 - 280_000 * 4 / 5 / 1.1
)


def load(name: str) -> Scenario:
    return load_scenario(HERE / f"{name}.yaml")


def fresh_lps(data: ModelData, options: SolverOptions, service_lp: float) -> tuple[float, float]:
    """The service LP of ``data`` and its cost LP with the service held at
    ``service_lp``, each built and solved fresh (the relaxation): their optima."""
    relaxed = replace(data, relax=True)
    service, _, _ = build_and_solve(relaxed, options, extend=ServiceFirst())
    cost, _, _ = build_and_solve(relaxed, options, extend=CostWithServiceHeld(service_lp))
    assert service.objective is not None and cost.objective is not None
    return service.objective, cost.objective
