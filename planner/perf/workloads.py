"""The inference workloads a scenario serves: its ``inference`` section plus RL rollouts.

A training run that declares ``rollout_tokens`` generates them as inference inside its
window (docs/concepts/performance.md); it becomes the workload ``<run>-rollouts`` with the
run's model and precision, its rollout SLO, one input token per output token, no
prefix-cache hits and flat load (peak-to-average 1).
"""

from __future__ import annotations

from planner.scenario.schema import InferenceWorkload, Scenario, TrainingRun
from planner.units import DAYS_PER_YEAR

ROLLOUT_SUFFIX = "-rollouts"
__all__ = ["DAYS_PER_YEAR", "active_years", "rollout_workload", "serving_workloads"]


def rollout_workload(run: TrainingRun) -> InferenceWorkload:
    """The inference workload of ``run``'s rollouts, spread evenly over its window."""
    assert run.rollout_tokens is not None
    first, last = run.window
    days = (last - first + 1) * DAYS_PER_YEAR
    return InferenceWorkload(
        name=f"{run.name}{ROLLOUT_SUFFIX}",
        model=run.model,
        precision="fp8" if run.precision == "bf16" else run.precision,
        tokens_per_day={year: run.rollout_tokens / days for year in range(first, last + 1)},
        input_tokens_per_output_token=1.0,
        cache_hit_rate=0.0,
        slo_tokens_per_s_per_user=run.rollout_slo_tokens_per_s_per_user,
        peak_to_average=1.0,
        priority=run.priority,
    )


def serving_workloads(scenario: Scenario) -> list[InferenceWorkload]:
    """Every workload to serve: the scenario's ``inference`` plus one per rollout run."""
    rollouts = [rollout_workload(r) for r in scenario.training if r.rollout_tokens]
    return [*scenario.inference, *rollouts]


def active_years(workload: InferenceWorkload, scenario: Scenario) -> list[int]:
    """Years in which ``workload`` has demand: rollouts only inside their run's window."""
    if workload.name.endswith(ROLLOUT_SUFFIX) and isinstance(workload.tokens_per_day, dict):
        return sorted(workload.tokens_per_day)
    return scenario.horizon.year_list
