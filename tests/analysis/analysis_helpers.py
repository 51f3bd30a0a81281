"""Helpers of the analysis tests: tiny scenarios and task lists (imported by the tests and
by the subprocess of the kill-and-resume test)."""

from __future__ import annotations

import os
from pathlib import Path

from planner.analysis.montecarlo import montecarlo_tasks
from planner.analysis.params import parse_dist
from planner.analysis.tasks import Row, SolveSettings, Task, run_task
from planner.scenario import load_scenario

HAND = Path(__file__).resolve().parents[1] / "scenarios"
SHIPPED = Path(__file__).resolve().parents[2] / "scenarios"
EXACT = SolveSettings(mip_gap=0.0)

DISTRIBUTIONS = (
    "finance.wacc=triangular:0.05:0.10:0.20",
    "inference[chat].tokens_per_day*=lognormal:1:0.3:0.5:1.5",
    "hardware[h100-hgx].price_usd=uniform:80000:150000",
)


def small_montecarlo(samples: int = 12, seed: int = 7) -> list[Task]:
    """A Monte Carlo of power_switch.yaml (two hardware types, a binding power cap)."""
    scenario = load_scenario(HAND / "power_switch.yaml")
    parameters = [parse_dist(d) for d in DISTRIBUTIONS]
    return montecarlo_tasks(scenario, parameters, samples=samples, seed=seed, settings=EXACT)


def without_timing(rows: list[Row]) -> list[Row]:
    """Rows without their timings (the only part that differs between runs)."""
    return [{k: v for k, v in row.items() if k != "timing"} for row in rows]


def kills_worker_on_task_1(task: Task) -> Row:
    """A task function whose worker process dies on task 1 (a solver segfault, as the pool
    sees it). Lives here, not in a test module, so a pool worker imports it by a plain
    module name."""
    if task.task_id == 1:
        os._exit(1)
    return run_task(task)
