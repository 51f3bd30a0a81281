"""Deliveries through the period (``horizon.demand_within_period: peak_average``).

Under ``peak_average`` the units bought in a period v arrive uniformly through it, as
real fleets are delivered, and a cohort reaching its life end leaves uniformly through
its departure period v + N (N = ``lifetime_years · P`` periods, when v + N is inside the
horizon): its life in service stays ``lifetime_years``. The fleet then changes linearly
inside every period, from the previous period's end to this period's end.

Why the model's constraints (written at each period's END with the whole fleet) still
hold at every instant: inside a period the capacity c(τ) is linear in τ and a demand
series interpolated geometrically is convex, so c − demand is concave and its minimum
over the period is at one of its two ends. At the end the constraint is the model's
own (the peak of a growing series is its value at the end); at the start the fleet is
the previous period's end fleet, which met that period's end, the same instant. Power is
linear in the fleet too, so a cap met at both ends is met inside (where the cap falls
from one period to the next, the start meets only the previous period's). A
training run's units are taken to work the whole period and rentals are held for the
whole period, so the units free for inference jump at a period's start where training
steps up or rentals fall: the start rows (:mod:`planner.optimize.data.period_start`)
hold the work at that instant to the units there, and the argument then holds for the
units free for inference too.

What changes is the COST timing of a purchase: it is in service on average half of v
(and half of v + N), so its energy, facility and maintenance count for half of v and
half of v + N; its capex is paid on average at the middle of v (each payment, at order
or delivery, is discounted at its period's middle: ``payment_discount_factor``) and its
straight-line age counts from the middle of v (``residual_fraction``).

The argument needs the fleet and demand to be continuous at the period's start. Where
they are not (:func:`opening_periods`: the first period, a workload's first period,
a period at whose start a cohort's life ends), the period's purchases are delivered
at its start instead, with the old timing: the fleet at its start then holds its end
fleet, which meets its end peak and so the demand at its start. Where the work on the
fleet steps up at a period's start (training taking more units, rentals falling), the
start rows of :mod:`planner.optimize.data.period_start` hold that instant.

Units that leave early leave through their period too, so the fleet stays linear:
units sold at p (``finance.sell_early``) run half of p, their price fetched at p's
start and their age counted from their delivery period's start; existing units
switched off (or sold) in t run half of t, so ``(kept[t−1] + kept[t]) / 2`` run in t.
Existing units and units on order are there from the start of the horizon or of their
delivery period, and leave at a period start at their life's end (an opening period
then). Under ``start`` nothing here applies.
"""

from __future__ import annotations

from typing import TypedDict

from planner.economics import discount_factor, maintenance_usd_per_unit_year
from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key, ModelData
from planner.perf.workloads import active_years, serving_workloads
from planner.scenario.periods import PeriodLabel
from planner.scenario.timing import EPS_YEARS, date_year

ARRIVAL_SHARE = 0.5
"""Average share of its delivery period a unit delivered uniformly through it serves."""


class Deliveries(TypedDict):
    deliveries_through_period: bool
    ramp_periods: frozenset[PeriodLabel]
    payment_discount_factor: dict[PeriodLabel, float]
    departure_period: dict[Key, PeriodLabel]


def through_period(ctx: Context) -> bool:
    """True when purchases arrive uniformly through their period (``peak_average``)."""
    return ctx.scenario.horizon.demand_within_period == "peak_average"


def opening_periods(ctx: Context) -> frozenset[int]:
    """Indices of the periods whose purchases are delivered at their START even with
    deliveries through the period: where the fleet or demand jumps at the start, so
    the previous period's end does not cover it. They are the first period (nothing is
    there before it but the existing fleet), a period in which a served workload's
    demand begins (rollouts inside their run's window), and a period at whose start a
    cohort's life ends abruptly (existing units, units on order, and purchases of an
    opening period, all of which arrived at a period start), so its replacements are
    there when it goes."""
    per_year, count = ctx.per_year, len(ctx.periods)
    start = ctx.scenario.horizon.start
    opening = {0}
    for wl in serving_workloads(ctx.scenario):
        years = set(active_years(wl, ctx.scenario))
        opening |= {(y - start) * per_year for y in years if y - 1 not in years}
    for row in ctx.scenario.existing_fleet:
        life = round(ctx.specs[row.hardware].lifetime_years * per_year)
        opening.add((row.installed - start) * per_year + life)
    for order in ctx.scenario.on_order:
        when = date_year(order.delivery)
        first = next(p.index for p in ctx.periods if p.start >= when - EPS_YEARS)
        opening.add(first + round(ctx.specs[order.hardware].lifetime_years * per_year))
    lives = {round(ctx.specs[h].lifetime_years * per_year) for h in ctx.hardware}
    for k in range(count):  # an opening period's cohorts end abruptly too
        if k in opening:
            opening |= {k + life for life in lives}
    return frozenset(k for k in opening if 0 <= k < count)


def delivery_offsets(ctx: Context) -> dict[PeriodLabel, float]:
    """Period → years from its start to its purchases' average delivery."""
    opening = opening_periods(ctx) if through_period(ctx) else frozenset()
    return {
        p.label: 0.0
        if not through_period(ctx) or p.index in opening
        else ARRIVAL_SHARE * p.length_years
        for p in ctx.periods
    }


def deliveries(ctx: Context, buy_index: tuple[Key, ...]) -> Deliveries:
    """Payment discount factors and the departure period of every purchase cohort."""
    first = ctx.periods[0].start
    wacc = ctx.scenario.finance.wacc
    ramp = through_period(ctx)
    offset = delivery_offsets(ctx)
    through = frozenset(label for label, years in offset.items() if years > 0)
    paid = {p.label: discount_factor(wacc, p.start + offset[p.label] - first) for p in ctx.periods}
    position = {p.label: p.index for p in ctx.periods}
    departure: dict[Key, PeriodLabel] = {}
    for h, s, v in buy_index:
        if v not in through:
            continue
        alive = ctx.alive(position[v], h)
        after = alive[-1].index + 1
        if after < len(ctx.periods):
            departure[(h, s, v)] = ctx.periods[after].label
    return {
        "deliveries_through_period": ramp,
        "ramp_periods": through,
        "payment_discount_factor": paid,
        "departure_period": departure,
    }


def departure_keys(departure: dict[Key, PeriodLabel]) -> tuple[Key, ...]:
    """(h, s, t) of every departure period: the running-cost rates they need."""
    return tuple(dict.fromkeys((h, s, t) for (h, s, _), t in departure.items()))


def departure_usd_pv(d: ModelData, h: str, s: str, v: PeriodLabel) -> float:
    """Present value of the half of its departure period a unit delivered through v
    still runs: ``½ · DF_t · L_t · (energy + facility + maintenance)`` at t = v + N
    (0 when its life does not end inside the horizon, or without deliveries through
    the period)."""
    t = d.departure_period.get((h, s, v))
    if t is None:
        return 0.0
    return (
        ARRIVAL_SHARE
        * d.discount_factor[t]
        * d.period_length[t]
        * running_usd_per_unit_year(d, h, s, v, t)
    )


def running_usd_per_unit_year(
    d: ModelData, h: str, s: str, v: PeriodLabel, t: PeriodLabel
) -> float:
    """Energy, facility and maintenance of one unit of vintage v in period t, USD/year."""
    maintenance = maintenance_usd_per_unit_year(d.price_usd[(h, v)], d.maintenance_fraction)
    return (
        d.energy_usd_per_unit_year[(h, s, t)]
        + d.facility_usd_per_unit_year[(h, s, t)]
        + maintenance
    )


def sold_through_usd_pv(d: ModelData, h: str, s: str, v: PeriodLabel, p: PeriodLabel) -> float:
    """Present value of the half of period p a unit of vintage v sold at p still runs
    (it leaves through p; 0 without deliveries through the period)."""
    if not d.deliveries_through_period:
        return 0.0
    return (
        ARRIVAL_SHARE
        * d.discount_factor[p]
        * d.period_length[p]
        * running_usd_per_unit_year(d, h, s, v, p)
    )


def switch_off_usd_pv(d: ModelData, h: str, s: str, i: int, t: PeriodLabel) -> float:
    """The change to an existing unit's coefficient in ``kept[h,s,i,t]`` when units
    switched off (or sold) leave through the period: ``(kept[t−1] + kept[t]) / 2``
    units run in t, so a unit kept in t pays half of the next period's running costs
    (when its cohort is alive then) and half less of t's (when it was alive before)."""
    if not d.deliveries_through_period:
        return 0.0
    previous = d.previous_period.get(t)
    nxt = d.next_period.get(t)
    out = 0.0
    if nxt is not None and (h, s, i, nxt) in d.existing_keys:
        out += (
            ARRIVAL_SHARE
            * d.discount_factor[nxt]
            * d.period_length[nxt]
            * _existing_running(d, h, s, i, nxt)
        )
    if previous is not None and (h, s, i, previous) in d.existing_keys:
        out -= (
            ARRIVAL_SHARE
            * d.discount_factor[t]
            * d.period_length[t]
            * _existing_running(d, h, s, i, t)
        )
    return out


def _existing_running(d: ModelData, h: str, s: str, i: int, t: PeriodLabel) -> float:
    maintenance = maintenance_usd_per_unit_year(
        d.existing_price_usd[(h, s, i)], d.maintenance_fraction
    )
    return (
        d.energy_usd_per_unit_year[(h, s, t)]
        + d.facility_usd_per_unit_year[(h, s, t)]
        + maintenance
    )
