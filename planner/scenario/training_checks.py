"""Semantic checks of training runs: a duration's dates, rollouts' daily demand."""

from __future__ import annotations

from datetime import date

from planner.errors import Problem
from planner.scenario.schema import TOKENS_PER_DAY_RANGE, Scenario
from planner.units import DAYS_PER_YEAR


def check_rollouts(scenario: Scenario) -> list[Problem]:
    """A run's rollout tokens spread over its window's days give 1 to 1e18 tokens a day
    (the rollout workload of planner.perf.workloads), so the workload they become is a
    valid one (``TOKENS_PER_DAY_RANGE``); otherwise the run is refused here, at its own
    field, where the workload would have ended the run in an internal error."""
    low, high = TOKENS_PER_DAY_RANGE
    problems: list[Problem] = []
    for i, run in enumerate(scenario.training):
        if run.rollout_tokens is None:
            continue
        days = (run.window[1] - run.window[0] + 1) * DAYS_PER_YEAR
        if not low <= run.rollout_tokens / days <= high:
            problems.append(
                Problem(
                    path=f"training[{i}].rollout_tokens",
                    message="rollouts over the run's window give a daily demand out of range",
                    found=f"{run.rollout_tokens:g} tokens over {days:g} days",
                    expected=f"{low * days:g} to {high * days:g} tokens ({low:g}-{high:g} a day)",
                    hint="give the rollout tokens of the whole window, or leave rollout_tokens out",
                )
            )
    return problems


def check_training_durations(scenario: Scenario) -> list[Problem]:
    """Dates need a duration, lie in the window, are ordered, and the duration fits."""
    problems: list[Problem] = []
    for i, run in enumerate(scenario.training):
        path = f"training[{i}]"
        first = run.earliest_start or date(run.window[0], 1, 1)
        last = run.deadline or date(run.window[1], 12, 31)
        if run.duration_days is None:
            for name in ("earliest_start", "deadline"):
                if getattr(run, name) is not None:
                    problems.append(
                        Problem(
                            path=f"{path}.{name}",
                            message=f"{name} is read only for a run with a duration",
                            found=str(getattr(run, name)),
                            expected="duration_days set as well",
                            hint="add duration_days, or drop the date and use window",
                        )
                    )
            continue
        for name, day in (("earliest_start", run.earliest_start), ("deadline", run.deadline)):
            if day is not None and not run.window[0] <= day.year <= run.window[1]:
                problems.append(
                    Problem(
                        path=f"{path}.{name}",
                        message=f"{name} outside the run's window",
                        found=day.isoformat(),
                        expected=f"a date in {run.window[0]}..{run.window[1]}",
                        hint="move the date or widen window",
                    )
                )
        if first > last:
            problems.append(
                Problem(
                    path=f"{path}.earliest_start",
                    message="earliest_start after the deadline",
                    found=first.isoformat(),
                    expected=f"on or before {last.isoformat()}",
                    hint="move earliest_start earlier or the deadline later",
                )
            )
            continue
        span_days = (last - first).days + 1
        if run.duration_days > span_days:
            problems.append(
                Problem(
                    path=f"{path}.duration_days",
                    message="duration longer than the time between earliest start and deadline",
                    found=f"{run.duration_days:g}",
                    expected=f"at most {span_days} days ({first} to {last})",
                    hint="shorten duration_days or widen earliest_start..deadline (or window)",
                )
            )
    return problems
