"""The fleet at the START of a period whose purchases arrive through it.

With deliveries through the period (planner.optimize.data.deliveries) the constraints
written at a period's end hold inside it when the units free for inference are
continuous at its start. Two things break that at the start of a delivered-through
period t (the instant the period p before ends), each a jump the model knows:

* a training run may take more units in t than in p (a run starting, a cluster
  growing): training holds its units for a whole period;
* rentals are held for a whole period, so fewer rented in t than in p go at t's start.

A third, a cohort delivered at a period start (the existing fleet, units on order, the
purchases of an opening period) reaching its life's end at t's start, makes t an
opening period today (:func:`planner.optimize.data.deliveries.opening_periods`); the
start units below count such a cohort as gone all the same, so the rows stay right
if that rule changes.

Units on order that arrive at t's start join at once. The units at t's start are::

    start[h,s,t] = installed[h,s,p] − Σ_{v abrupt, life ends at t} (buy[h,s,v] − Σ_q sell[h,s,v,q])
                 − Σ_{i life ends at t} kept[h,s,i,p] + Σ_{i arriving at t} kept[h,s,i,t]

(units sold or switched off in t leave through t and are still there; a cohort
delivered through an earlier period leaves through t and is still there). The start
rows of :mod:`planner.optimize.constraints.period_start` hold the work there at that
instant, the end of p's inference assignment (which served p's end, the same instant)
and t's training, to those units and t's rentals. Opening periods need none: their
purchases are there from their start, so their start fleet holds their end fleet.
"""

from __future__ import annotations

from typing import TypedDict

from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key
from planner.scenario.periods import PeriodLabel

StartUnits = tuple[Key | None, tuple[Key, ...], tuple[Key, ...], tuple[Key, ...]]
"""(installed key of the period before or None, purchases leaving at once (buy keys),
existing cohorts arriving at once (kept keys in t), existing cohorts leaving at once
(kept keys in the period before))."""


class PeriodStart(TypedDict):
    period_start_units: dict[Key, StartUnits]


def period_start_units(
    ctx: Context,
    ramp_periods: frozenset[PeriodLabel],
    vintages_alive: dict[Key, tuple[PeriodLabel, ...]],
    cohorts_alive: dict[Key, tuple[int, ...]],
) -> PeriodStart:
    """(h, s, t) → what the units of h at s at the start of t are made of, for every
    delivered-through period t after the first and every (h, s) holding units at the
    end of the period before or receiving units on order at t's start."""
    out: dict[Key, StartUnits] = {}
    sites_of: dict[tuple[str, PeriodLabel], set[str]] = {}
    for h, s, t in (*vintages_alive, *cohorts_alive):
        sites_of.setdefault((h, t), set()).add(s)
    for before, now in zip(ctx.periods, ctx.periods[1:], strict=False):
        t, p = now.label, before.label
        if t not in ramp_periods:
            continue
        for h in ctx.hardware:
            for s in sorted(sites_of.get((h, p), set()) | sites_of.get((h, t), set())):
                then_v, now_v = vintages_alive.get((h, s, p), ()), vintages_alive.get((h, s, t), ())
                then_c, now_c = cohorts_alive.get((h, s, p), ()), cohorts_alive.get((h, s, t), ())
                was = (h, s, p)
                held = was if (was in vintages_alive or was in cohorts_alive) else None
                leaving = tuple(
                    (h, s, v) for v in then_v if v not in now_v and v not in ramp_periods
                )
                arriving = tuple((h, s, i, t) for i in now_c if i not in then_c)
                gone = tuple((h, s, i, p) for i in then_c if i not in now_c)
                if held is None and not arriving:
                    continue
                out[(h, s, t)] = (held, leaving, arriving, gone)
    return {"period_start_units": out}
