"""Semantic checks of ``solver.foresight`` (myopic rolling horizon)."""

from __future__ import annotations

from planner.errors import Problem
from planner.scenario.schema import Scenario


def check_foresight(scenario: Scenario) -> list[Problem]:
    """A myopic step never decides years its window has not seen: step ≤ window."""
    solver = scenario.solver
    if solver.foresight != "myopic" or solver.step_years <= solver.window_years:
        return []
    return [
        Problem(
            path="solver.step_years",
            message="myopic step longer than its window: it would fix years it never saw",
            found=str(solver.step_years),
            expected=f"at most solver.window_years ({solver.window_years})",
            hint="lower solver.step_years or raise solver.window_years",
        )
    ]
