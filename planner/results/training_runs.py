"""When each training run ran, on how big a cluster, and its accelerator-hours.

A run with a duration has one chosen (hardware, place, size u, start) from the model's
``z_train``: it runs from its start for the menu size's days on u units, so its
accelerator-hours are ``u · accelerators · days · 24``. A run spread over a window has
no fixed cluster: its start and end are those of its first and last period worked, its
cluster the most units it used in a period, its accelerator-hours
``Σ_t x_train[t] · accelerators · length(t) · 8,766``.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from planner.optimize.data import ModelData
from planner.optimize.extract import Solution
from planner.units import DAYS_PER_YEAR, HOURS_PER_DAY

SCHEDULE_COLUMNS = [
    "fixed_cluster",
    "start_year_fraction",
    "start_date",
    "end_date",
    "duration_days",
    "cluster_units",
    "cluster_accelerators",
    "goodput",
    "accelerator_hours",
]
"""Columns the training table gains from :func:`run_schedules`."""


def as_date(year_fraction: float) -> str:
    """A fractional year as an ISO date (the day it falls in): 2026.5 → ``2026-07-02``."""
    year = int(year_fraction)
    first = date(year, 1, 1)
    days = (date(year + 1, 1, 1) - first).days
    return (first + timedelta(days=int((year_fraction - year) * days + 1e-6))).isoformat()


def chosen_clusters(d: ModelData, sol: Solution) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(r, h, s) → the chosen size and start of each run with a duration that was done."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for key, value in sol.z_train.items():
        if value < 0.5:
            continue
        r, h, s, units, _ = key
        size = d.train_menu_size[(r, h, units)]
        start = d.train_menu_start[key]
        out[(r, h, s)] = {
            "start": start,
            "end": start + size.days / DAYS_PER_YEAR,
            "days": size.days,
            "units": units,
            "accelerators": size.accelerators,
            "goodput": size.goodput,
            "flops_per_s_per_unit": size.flops_per_s_per_unit,
        }
    return out


def run_schedules(d: ModelData, sol: Solution) -> dict[str, dict[str, Any]]:
    """r → the :data:`SCHEDULE_COLUMNS` of run r (None where it did not run)."""
    fixed = {r: c for (r, _, _), c in chosen_clusters(d, sol).items()}
    periods = d.period_by_label
    worked: dict[str, list[tuple[Any, str, float]]] = {}
    for (r, h, _, t), units in sol.x_train.items():
        worked.setdefault(r, []).append((t, h, units))
    out: dict[str, dict[str, Any]] = {}
    for r in d.runs:
        row: dict[str, Any] = dict.fromkeys(SCHEDULE_COLUMNS)
        row["fixed_cluster"] = r in d.train_duration_runs
        if r in fixed:
            c = fixed[r]
            row |= {
                "start_year_fraction": c["start"],
                "start_date": as_date(c["start"]),
                "end_date": as_date(c["end"]),
                "duration_days": c["days"],
                "cluster_units": c["units"],
                "cluster_accelerators": c["accelerators"],
                "goodput": c["goodput"],
                "accelerator_hours": c["accelerators"] * c["days"] * HOURS_PER_DAY,
            }
        elif r not in d.train_duration_runs and worked.get(r):
            cells = worked[r]
            first = min(periods[t].start for t, _, _ in cells)
            last = max(periods[t].start + periods[t].length_years for t, _, _ in cells)
            peak = max(units for _, _, units in cells)
            hours = sum(
                units * d.accelerators[h] * periods[t].length_years * DAYS_PER_YEAR * HOURS_PER_DAY
                for t, h, units in cells
            )
            row |= {
                "start_year_fraction": first,
                "start_date": as_date(first),
                "end_date": as_date(last - 1e-9),
                "duration_days": (last - first) * DAYS_PER_YEAR,
                "cluster_units": peak,
                "cluster_accelerators": peak * d.accelerators[cells[0][1]],
                "accelerator_hours": hours,
            }
        out[r] = row
    return out
