"""Runs with a duration: the (cluster size, start) choices and the capacity each occupies.

A choice ``(r, h, s, u, p)`` runs r on u units of h at s from ``start(p) = max(start of
period p, earliest start)`` for ``days(u)`` days (:mod:`planner.perf.training_menu`). It
exists only if it ends by the deadline and every period it touches has the assignment
key ``(r, h, s, t)``. In each period t it occupies, on average over t,

    c[r,h,s,u,p,t] = u · |[start, start + days/365.25] ∩ t| / length(t)     units,

so a 78-day run on 2,048 units in a yearly period occupies 2,048 · 78/365.25 units.
"""

from __future__ import annotations

from typing import TypedDict

from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key
from planner.perf.training_menu import MenuSize, days_in_years, run_menu, run_span_years
from planner.scenario.periods import PeriodLabel
from planner.scenario.resolve import model_specs

_EPS_YEARS = 1e-9


class TrainingMenu(TypedDict):
    train_duration_runs: tuple[str, ...]
    train_menu_index: tuple[Key, ...]
    train_menu_cover: dict[Key, tuple[tuple[PeriodLabel, float], ...]]
    train_menu_start: dict[Key, float]
    train_menu_size: dict[Key, MenuSize]


def training_menu(ctx: Context, train_index: tuple[Key, ...]) -> TrainingMenu:
    """Every allowed (run, hardware, place, size, start period) and its occupancy."""
    runs = [run for run in ctx.scenario.training if run.duration_days is not None]
    models = model_specs(ctx.scenario)
    assigned = set(train_index)
    index: list[Key] = []
    cover: dict[Key, tuple[tuple[PeriodLabel, float], ...]] = {}
    starts: dict[Key, float] = {}
    sizes: dict[Key, MenuSize] = {}
    places: dict[tuple[str, str], list[str]] = {}
    for r, h, s, _ in train_index:
        if s not in places.setdefault((r, h), []):
            places[(r, h)].append(s)
    for run in runs:
        earliest, deadline = run_span_years(run)
        for h in ctx.hardware:
            if (run.name, h) not in places:
                continue
            scale = ctx.scenario.throughput_scale.training
            for size in run_menu(run, ctx.specs[h], models[run.model], scale):
                sizes[(run.name, h, size.units)] = size
                length = days_in_years(size.days)
                for p in ctx.periods:
                    start = max(p.start, earliest)
                    if start >= p.start + p.length_years or start + length > deadline + _EPS_YEARS:
                        continue
                    shares = [
                        (
                            q.label,
                            (min(q.start + q.length_years, start + length) - max(q.start, start))
                            / q.length_years,
                        )
                        for q in ctx.periods
                        if q.start < start + length and start < q.start + q.length_years
                    ]
                    for s in places[(run.name, h)]:
                        if all((run.name, h, s, t) in assigned for t, _ in shares):
                            key = (run.name, h, s, size.units, p.label)
                            index.append(key)
                            cover[key] = tuple((t, size.units * share) for t, share in shares)
                            starts[key] = start
    return {
        "train_duration_runs": tuple(run.name for run in runs),
        "train_menu_index": tuple(index),
        "train_menu_cover": cover,
        "train_menu_start": starts,
        "train_menu_size": sizes,
    }
