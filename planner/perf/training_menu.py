"""Training runs with a duration: the menu of fixed cluster sizes the optimiser picks from.

A run given ``duration_days`` runs on one fixed cluster from its start to its end. The
menu offers the smallest ``cluster_menu_sizes`` powers of two in *units* whose
goodput-adjusted time finishes the run within the duration (docs/concepts/performance.md: a bigger
cluster finishes sooner at a lower goodput). Each size's wall-clock time is

    T(n) = F / (n · a · s(n · a) · goodput(n · a))      seconds,

with F the run's FLOPs, a accelerators per unit, s(N) sustained FLOP/s per accelerator
in a cluster of N (:func:`planner.perf.training.rate_at_size`: the stage rate times the
scaling efficiency) and goodput from :func:`planner.perf.training.goodput`.
Availability is not in T: the optimiser's capacity rows already hold spare units
(assigned ≤ availability · installed).

Dates become fractional years as periods count time (2027Q3 starts at 2027.5):
``year + (day of year − 1) / days in that year``; a deadline is the *end* of its day.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.perf.training import (
    MAX_ACCELERATORS,
    goodput,
    rate_at_size,
    training_flops,
    training_mfu,
)
from planner.perf.training_scale import smallest_cluster
from planner.scenario.schema import TrainingRun
from planner.units import DAYS_PER_YEAR, SECONDS_PER_DAY, TERA


@dataclass(frozen=True)
class MenuSize:
    """One cluster size a run may use for its whole duration."""

    units: int
    accelerators: int
    goodput: float
    days: float
    """Wall-clock days the run takes on this cluster."""
    flops_per_s_per_unit: float
    """Goodput-adjusted FLOP/s of one unit at this cluster size."""


def year_fraction(day: date, *, end_of_day: bool = False) -> float:
    """``day`` in fractional years: 2026-07-02 → 2026 + 182/365 ≈ 2026.4986."""
    first = date(day.year, 1, 1)
    in_year = (date(day.year + 1, 1, 1) - first).days
    return day.year + ((day - first).days + (1 if end_of_day else 0)) / in_year


def run_span_years(run: TrainingRun) -> tuple[float, float]:
    """When the run may start and by when it must end, in fractional years.

    Defaults: 1 January of the window's first year and the end of its last year."""
    first, last = run.window
    start = year_fraction(run.earliest_start) if run.earliest_start else float(first)
    end = year_fraction(run.deadline, end_of_day=True) if run.deadline else float(last + 1)
    return start, end


def cluster_menu(
    flops: float,
    sustained_flops_per_accel: float | Callable[[int], float],
    duration_s: float,
    mtbf_hours_per_accelerator: float,
    checkpoint_stall_s: float,
    restart_s: float,
    accelerators_per_unit: int,
    sizes: int,
    max_accelerators: int = MAX_ACCELERATORS,
    min_accelerators: int = 1,
) -> list[MenuSize]:
    """The smallest ``sizes`` powers of two in units finishing ``flops`` within ``duration_s``.

    A size enters only if it is faster than the one before it (past the size where
    failures cost more than extra accelerators add, doubling slows the run down).
    Empty when no power of two up to ``max_accelerators`` finishes in time.
    """
    rate = (
        sustained_flops_per_accel
        if callable(sustained_flops_per_accel)
        else (lambda _n, s=float(sustained_flops_per_accel): s)
    )
    a = accelerators_per_unit
    menu: list[MenuSize] = []
    units = 1
    while units * a < min_accelerators:  # the state needs at least this many
        units *= 2
    while units * a <= max_accelerators and len(menu) < sizes:
        g = goodput(units * a, mtbf_hours_per_accelerator, checkpoint_stall_s, restart_s)
        per_unit = a * rate(units * a) * g
        seconds = flops / (units * per_unit) if per_unit > 0 else math.inf
        if menu and seconds >= menu[-1].days * SECONDS_PER_DAY:
            break
        if seconds <= duration_s:
            menu.append(MenuSize(units, units * a, g, seconds / SECONDS_PER_DAY, per_unit))
        units *= 2
    return menu


def run_menu(
    run: TrainingRun, hw: HardwareSpec, model: ModelSpec, scale: float = 1.0
) -> list[MenuSize]:
    """:func:`cluster_menu` for ``run`` on ``hw`` (empty if ``hw`` cannot train it);
    ``scale``: the scenario's ``throughput_scale.training``."""
    if run.duration_days is None or hw.prefill_only or not hw.is_native(run.precision):
        return []
    mfu = run.mfu if run.mfu is not None else training_mfu(hw, run.precision)
    peak = hw.peak_tflops(run.precision)
    smallest = smallest_cluster(model, hw, run.kind)
    if peak is None or mfu <= 0 or smallest is None:
        return []
    return cluster_menu(
        training_flops(model.active_params_b, run.tokens, flops=run.flops, kind=run.kind),
        rate_at_size(run, hw, model, peak * TERA * mfu, scale),
        run.duration_days * SECONDS_PER_DAY,
        run.mtbf_hours_per_accelerator or hw.mtbf_hours_per_accelerator,
        run.checkpoint_stall_s,
        run.restart_s,
        hw.accelerators,
        run.cluster_menu_sizes,
        min_accelerators=smallest,
    )


def days_in_years(days: float) -> float:
    """Days as years of :data:`DAYS_PER_YEAR` days (the period clock's year)."""
    return days / DAYS_PER_YEAR
