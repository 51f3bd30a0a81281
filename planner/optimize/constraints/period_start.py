"""Capacity at the start of a period whose purchases arrive through it."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.constraints.commitments import committed_terms
from planner.optimize.data import RENTED, ModelData
from planner.optimize.linear import Row, Term, add_rows
from planner.optimize.variables import Vars
from planner.scenario.timing import EPS_YEARS


def add_period_start(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """The work at the start of t fits the units there (deliveries through the period).

    At the start of a delivered-through period t (p the period before) the inference
    demand is the demand at p's end, which the share e[w,p] = demand at p's end / p's
    peak of p's assignment serves (1 for a growing series), and t's training runs are
    at work; the units there are ``start[h,s,t]``
    (:mod:`planner.optimize.data.period_start`: p's units less the cohorts whose life
    ends at t's start, plus units on order arriving then) and t's rentals. Pooled per
    hardware, as the capacity rows are::

        Σ_{w,role: w active in t} e[w,p] · x_inf[w,role,h,p] + Σ_{r,s} train[r,h,s,t]
            ≤ α · Σ_s start[h,s,t] + rent[h,t] + committed units of h running in t

    and per owned site where h works in more than one place (a run is tied to one)::

        Σ_r train[r,h,s,t] ≤ α · start[h,s,t]

    (train = x_train, the run's units in t, for a run working whole periods; the whole
    cluster for a run with a duration, below)

    With the end-of-period rows, these make every instant inside t feasible: the fleet
    is linear from t's start to its end and the demand convex (the argument of
    :mod:`planner.optimize.data.deliveries`). A row is written where training works
    on h in t or units leave at t's start. It is conservative: p's inference on h is
    taken to stay on h at t's start, though it could move to other hardware there (a
    plan switching a workload from h to newly rented hardware at t's start while
    training steps up on h is refused). Not held: a rental or a switch between rented
    types at t's start with no training on h (rentals held for whole periods change
    there; p's assignment may not fit t's rentals); ``--resolution-check`` and the
    checker hold the rows as written. A training run with ``duration_days`` counts
    with its whole cluster, ``Σ u · z[r,h,s,u,p]`` over its menu choices covering t
    that started by t's start, not its average occupancy of t as in the capacity rows.
    """
    x_inf = var.x_inf
    active = set(d.demand_index)
    clusters = _whole_clusters(d, var)
    units = d.period_start_units
    rent_keys = frozenset(d.rent_index)
    by_place: dict[tuple, list[str]] = {}
    for h, s, t in units:
        by_place.setdefault((h, t), []).append(s)
    pooled: dict[tuple, Row] = {}
    for t, p in d.previous_period.items():
        if t not in d.ramp_periods:
            continue
        for h in d.hardware:
            train = [
                term
                for r, s in d.pool_train.get((h, t), ())
                for term in _at_work(d, var, clusters, (r, h, s, t))
            ]
            inf = [
                (d.demand_end_share.get((w, p), 1.0), x_inf[(w, role, h, p)])
                for w, role in d.pool_inf.get((h, p), ())
                if (w, t) in active
            ]
            sites = by_place.get((h, t), [])
            leaves = any(units[(h, s, t)][1] or units[(h, s, t)][3] for s in sites)
            if not (train or leaves):
                continue  # nothing steps up or leaves on h at t's start
            terms: list[Term] = [*train, *inf]
            for s in sites:
                terms += _start_units(d, var, h, s, t, -d.availability)
            if (h, t) in rent_keys:
                terms += [(-1.0, var.rent[(h, t)]), *committed_terms(d, var, h, t)]
            pooled[(h, t)] = (None, terms, 0.0)
    add_rows(m, "period_start", pooled, "work at a period's start ≤ units there")
    per_place: dict[tuple, Row] = {}
    for h, s, t in d.site_train_index:
        if s == RENTED or t not in d.ramp_periods:
            continue
        terms = [
            term
            for r in d.train_at_unit[(h, s, t)]
            for term in _at_work(d, var, clusters, (r, h, s, t))
        ]
        if (h, s, t) in units:
            terms += _start_units(d, var, h, s, t, -d.availability)
        per_place[(h, s, t)] = (None, terms, 0.0)
    add_rows(m, "training_period_start", per_place, "training at a period's start ≤ units there")


def _whole_clusters(d: ModelData, var: Vars) -> dict[tuple, list[Term]]:
    """(r, h, s, t) → ``Σ u · z[r,h,s,u,p]`` over the menu choices of a run with a
    duration at work at t's start: those covering t that started by then (a choice
    starts at its period's start, or later at the run's ``earliest_start``)."""
    start = {p.label: p.start for p in d.periods}
    out: dict[tuple, list[Term]] = {}
    for key in d.train_menu_index:
        r, h, s, units, _ = key
        for t, _share in d.train_menu_cover[key]:
            if d.train_menu_start[key] <= start[t] + EPS_YEARS:
                out.setdefault((r, h, s, t), []).append((float(units), var.z_train[key]))
    return out


def _at_work(d: ModelData, var: Vars, clusters: dict[tuple, list[Term]], key: tuple) -> list[Term]:
    """Units of run r on h at s at work at t's start: a run with a duration its whole
    cluster when it runs in t, any other run its units in t (it works the whole period)."""
    if key[0] in d.train_duration_runs:
        return clusters.get(key, [])
    return [(1.0, var.x_train[key])]


def _start_units(d: ModelData, var: Vars, h: str, s: str, t: object, scale: float) -> list[Term]:
    """``scale · start[h,s,t]`` as row terms."""
    held, leaving, arriving, gone = d.period_start_units[(h, s, t)]
    terms: list[Term] = []
    if held is not None:
        terms.append((scale, var.installed[held]))
    for v in leaving:
        terms.append((-scale, var.buy[v]))
        terms += [(scale, var.sell[k]) for k in d.sales_of.get(v, ())]
    terms += [(scale, var.kept[c]) for c in arriving]
    terms += [(-scale, var.kept[c]) for c in gone]
    return terms
