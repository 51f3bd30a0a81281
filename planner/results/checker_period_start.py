"""Independent check of the instant a delivered-through period starts.

With deliveries through the period (``peak_average``) the work at the start of a
period t whose purchases arrive through it is the share of the period p before's
inference assignment that serves p's end (p's demand at its end over its peak, from
the served table; for the workloads still served in t) and t's training; it must
fit the units there and t's rentals. The units of a cohort at t's start are what it
held at p's end, except that t's own purchases have not arrived yet (0 at t's start),
units on order arriving at t's start are there (a cohort with no row in p), and a
cohort delivered at a period start whose life ends at t's start has left (it has no
row in t). A run with a duration holds its whole cluster at every such start inside
its span (training table), not its average units of t. Recomputed from the fleet,
assignment, training, rental and periods tables only.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from planner.results.checker_procurement import rented_with_commitments
from planner.results.plan import Plan
from planner.scenario.timing import EPS_YEARS
from planner.units import DAYS_PER_YEAR, RENTED

REL = 1e-5


def _at_most(a: float, b: float) -> bool:
    return a <= b + REL * max(abs(b), 1.0)


def start_units(plan: Plan) -> dict[tuple[str, str, str], float]:
    """(period, hardware, site) → owned units at the start of each delivered-through
    period after the first."""
    t = plan.tables
    through = plan.ramp_periods
    order = [str(p) for p in t["periods"]["period"]]
    previous = dict(zip(order[1:], order, strict=False))
    fleet = t["fleet"]
    held = {
        (r.hardware, r.site, r.origin, str(r.vintage), str(r.period)): float(r.units)
        for r in fleet.itertuples(index=False)
    }
    units: dict[tuple[str, str, str], float] = defaultdict(float)
    for (h, s, origin, v, period), end in held.items():
        before = previous.get(period)
        if period not in through or before is None:
            continue
        if origin == "purchased" and v == period:
            at_start = 0.0
        else:
            at_start = held.get((h, s, origin, v, before), end)
        units[(period, h, s)] += at_start
    return dict(units)


@dataclass(frozen=True)
class _Clusters:
    runs: frozenset[str]
    """Runs with a fixed cluster (``duration_days``)."""
    rows: list[tuple[str, str, str, str, float]]
    """(period, run, hardware, site, cluster units) where such a run is at work at a
    delivered-through period's start."""


def _clusters_at_start(plan: Plan) -> _Clusters:
    """A run with a duration holds its whole cluster at the start of every
    delivered-through period inside [its start, its end), from the training table."""
    t = plan.tables
    through = plan.ramp_periods
    starts = {str(r.period): float(r.start_year) for r in t["periods"].itertuples(index=False)}
    first = str(t["periods"]["period"].iloc[0])
    training = t["training"]
    if "fixed_cluster" not in training or training.empty:
        return _Clusters(frozenset(), [])
    fixed = training[training["fixed_cluster"].fillna(False).astype(bool)]
    rows = []
    for r in fixed.itertuples(index=False):
        begin = float(r.start_year_fraction)
        end = begin + float(r.duration_days) / DAYS_PER_YEAR
        for period, at in starts.items():
            if period in through and period != first and begin <= at + EPS_YEARS < end:
                rows.append((period, r.run, r.hardware, r.site, float(r.cluster_units)))
    return _Clusters(frozenset(fixed["run"]), rows)


def check_period_start(plan: Plan) -> list[str]:
    """Work at each delivered-through period's start ≤ the units there (pooled per
    hardware where training works on it, and per owned site for training), as the
    model's start rows are written (planner.optimize.constraints.period_start)."""
    if not plan.parameters.get("deliveries_through_period"):
        return []
    t = plan.tables
    through = plan.ramp_periods
    availability = float(plan.parameters["availability"])
    order = [str(p) for p in t["periods"]["period"]]
    previous = dict(zip(order[1:], order, strict=False))
    served = {(str(r.period), r.workload) for r in t["served"].itertuples(index=False)}
    end_share = {
        (str(r.period), r.workload): r.peak_tokens_per_day_at_end / r.peak_tokens_per_day
        if r.peak_tokens_per_day > 0
        else 1.0
        for r in t["served"].itertuples(index=False)
    }
    owned = start_units(plan)
    rented = rented_with_commitments(t["rentals"], plan)
    work: dict[tuple[str, str], float] = defaultdict(float)
    site_training: dict[tuple[str, str, str], float] = defaultdict(float)
    trains: set[tuple[str, str]] = set()  # the model writes a pooled row where h trains
    clusters = _clusters_at_start(plan)
    at_work = [
        (period, r.run, r.hardware, r.site, float(r.units))
        for r in t["assignment_training"].itertuples(index=False)
        if (period := str(r.period)) in through and period in previous
    ]
    at_work = [row for row in at_work if row[1] not in clusters.runs] + clusters.rows
    for period, _run, h, site, units in at_work:
        work[(period, h)] += units
        trains.add((period, h))
        if site != RENTED:
            site_training[(period, h, site)] += units
    after = {p: t_ for t_, p in previous.items()}
    for r in t["assignment_inference"].itertuples(index=False):
        nxt = after.get(str(r.period))
        if nxt in through and (nxt, r.workload) in served:
            share = end_share.get((str(r.period), r.workload), 1.0)
            work[(nxt, r.hardware)] += share * float(r.units)
    pooled: dict[tuple[str, str], float] = defaultdict(float)
    for (period, h, _s), units in owned.items():
        pooled[(period, h)] += availability * units
    out = []
    for (period, h), need in sorted(work.items()):
        if (period, h) not in trains:
            continue
        have = pooled.get((period, h), 0.0) + rented.get((period, h), 0.0)
        if not _at_most(need, have):
            out.append(
                f"{period}: {need:.6g} units of {h} at work at its start "
                f"(the end of {previous[period]}'s inference and {period}'s training), "
                f"{have:.6g} there"
            )
    for (period, h, s), need in sorted(site_training.items()):
        have = availability * owned.get((period, h, s), 0.0)
        if not _at_most(need, have):
            out.append(
                f"{period}: {need:.6g} units of {h} training at {s} at its start, {have:.6g} there"
            )
    return out
