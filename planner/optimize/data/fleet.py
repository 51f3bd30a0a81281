"""Owned hardware: purchases, existing cohorts, and which of them are alive when."""

from __future__ import annotations

import datetime as dt
import itertools
from collections import defaultdict
from typing import TypedDict

from planner import deadline
from planner.catalog.schema import HardwareSpec
from planner.economics import price_convention, unit_price_usd
from planner.economics.addons import network_storage_usd_per_unit
from planner.economics.horizon_end import HORIZON_END_CONVENTIONS, horizon_end_fraction
from planner.optimize.data.context import Context
from planner.optimize.data.deliveries import delivery_offsets
from planner.optimize.data.model_data import Key
from planner.optimize.data.procurement import rent_only
from planner.scenario.periods import Period, PeriodLabel
from planner.scenario.timing import (
    AT_ORDER_SHARE,
    EPS_YEARS,
    available_from_year,
    date_year,
    lead_periods,
)

Balance = tuple[Key | None, tuple[Key, ...], tuple[Key, ...], tuple[Key, ...], tuple[Key, ...]]


class Purchases(TypedDict):
    buy_index: tuple[Key, ...]
    price_usd: dict[Key, float]
    price_held_usd: dict[Key, float]
    price_convention: str
    residual_fraction: dict[Key, float]
    horizon_end_convention: str
    residual_by_convention: dict[str, dict[Key, float]]
    resale_curve: tuple[tuple[float, float], ...]
    buy_order_period: dict[Key, PeriodLabel]
    capex_payments: dict[Key, tuple[tuple[PeriodLabel, float], ...]]
    first_year_rows: dict[str, tuple[tuple[PeriodLabel, ...], float]]


class Existing(TypedDict):
    existing_units: dict[Key, int]
    existing_price_usd: dict[Key, float]
    existing_index: tuple[Key, ...]


class Fleet(TypedDict):
    fleet_index: tuple[Key, ...]
    vintages_alive: dict[Key, tuple[PeriodLabel, ...]]
    cohorts_alive: dict[Key, tuple[int, ...]]
    fleet_balance: dict[Key, Balance]


def purchases(ctx: Context, useful: set[str]) -> Purchases:
    """Purchases of useful hardware at the sites it may go to, by delivery period, and
    the share of each price credited at the horizon end under every convention.

    A key ``(h, s, v)`` is a delivery in v of units ordered ``k = ceil(L·P/12)`` periods
    earlier (planner.scenario.timing): v must start at or after h's ``available_from``,
    its order period must lie inside the horizon and in a year up to h's
    ``end_of_sale``. The price is the order period's; it is paid per
    ``finance.capex_payment`` (``capex_payments``: (period, share) pairs); the residual
    value counts the unit's age from delivery (from the middle of v when purchases
    arrive through the period: planner.optimize.data.deliveries).
    """
    horizon_end = ctx.periods[-1].end
    finance = ctx.scenario.finance
    at_order = AT_ORDER_SHARE[finance.capex_payment]
    by_convention: dict[str, dict[Key, float]] = {c: {} for c in HORIZON_END_CONVENTIONS}
    buy_index: list[Key] = []
    price: dict[Key, float] = {}
    held: dict[Key, float] = {}
    residual: dict[Key, float] = {}
    ordered: dict[Key, PeriodLabel] = {}
    payments: dict[Key, tuple[tuple[PeriodLabel, float], ...]] = {}
    first_year: dict[str, tuple[tuple[PeriodLabel, ...], float]] = {}
    offset = delivery_offsets(ctx)
    for h in ctx.hardware:
        choice, spec = ctx.choice(h), ctx.specs[h]
        if h not in useful or rent_only(choice):
            continue
        allowed = choice.sites or list(ctx.sites)
        life = spec.lifetime_years
        lead = lead_periods(spec.lead_time_months, ctx.per_year)
        launch: list[PeriodLabel] = []
        for p in ctx.periods[lead:]:
            order = ctx.periods[p.index - lead]
            if not ctx.released(h, p) or not orderable(spec, order.year):
                continue
            key = (h, p.label)
            ordered_at = order.start + offset[order.label]
            extra = network_storage_usd_per_unit(ctx.scenario, spec)
            price[key] = unit_price_usd(choice, spec, ordered_at, ctx.specs) + extra
            listed = spec.price_usd if choice.price_usd is None else price[key] - extra
            held[key] = listed + extra
            delivered_at = p.start + offset[p.label]
            for convention, shares in by_convention.items():
                shares[key] = horizon_end_fraction(
                    convention, delivered_at, life, horizon_end, finance.wacc, finance.resale_curve
                )
            residual[key] = by_convention[finance.horizon_end][key]
            if lead:
                ordered[key] = order.label
                payments[key] = tuple(
                    (label, share)
                    for label, share in ((order.label, at_order), (p.label, 1.0 - at_order))
                    if share
                )
            if p.start < available_from_year(spec) + 1.0 - EPS_YEARS:
                launch.append(p.label)
            buy_index += [(h, s, p.label) for s in ctx.sites if s in allowed]
        if spec.first_year_max_units is not None and launch:
            first_year[h] = (tuple(launch), float(spec.first_year_max_units))
    return {
        "buy_index": tuple(buy_index),
        "price_usd": price,
        "price_held_usd": held,
        "price_convention": price_convention(ctx.scenario, ctx.specs),
        "residual_fraction": residual,
        "horizon_end_convention": finance.horizon_end,
        "residual_by_convention": by_convention,
        "resale_curve": tuple(sorted((finance.resale_curve or {}).items())),
        "buy_order_period": ordered,
        "capex_payments": payments,
        "first_year_rows": first_year,
    }


def orderable(spec: HardwareSpec, year: int) -> bool:
    """True when ``spec`` can still be ordered in ``year`` (up to its ``end_of_sale``)."""
    return spec.end_of_sale is None or year <= spec.end_of_sale


def existing(ctx: Context) -> Existing:
    """Existing cohorts (hardware, site, year installed) and the periods they live in.

    Units ``on_order`` are cohorts too, keyed by their delivery period's label (the
    first period starting at or after ``delivery``) and alive from it: ordered and paid
    before the horizon, they are sunk like the existing fleet. (For a yearly plan the
    label is the year, so units on order for the first year join the cohort installed
    that year: both live from the first period.)
    """
    units: dict[Key, int] = defaultdict(int)
    first: dict[Key, int] = {}
    start = ctx.scenario.horizon.start
    for row in ctx.scenario.existing_fleet:
        key: Key = (row.hardware, row.site, row.installed)
        units[key] += row.units
        first[key] = (row.installed - start) * ctx.per_year
    for order in ctx.scenario.on_order:
        p = delivery_period(ctx, order.delivery)
        key = (order.hardware, order.site, p.label)
        units[key] += order.units
        first[key] = p.index
    index = [(h, s, i, p.label) for (h, s, i) in units for p in ctx.alive(first[(h, s, i)], h)]
    return {
        "existing_units": dict(units),
        "existing_price_usd": {
            e: ctx.specs[e[0]].price_usd
            + network_storage_usd_per_unit(ctx.scenario, ctx.specs[e[0]])
            for e in units
        },
        "existing_index": tuple(index),
    }


def delivery_period(ctx: Context, delivery: int | dt.date) -> Period:
    """The first period starting at or after ``delivery`` (a year or a date); the
    scenario checks keep it inside the horizon."""
    when = date_year(delivery)
    return next(p for p in ctx.periods if p.start >= when - EPS_YEARS)


def fleet(ctx: Context, buy_index: tuple[Key, ...], existing_index: tuple[Key, ...]) -> Fleet:
    """Owned capacity: which purchase vintages and existing cohorts are alive when."""
    position = {p.label: p.index for p in ctx.periods}
    vintages: dict[Key, list[PeriodLabel]] = defaultdict(list)
    for h, s, v in buy_index:
        for p in ctx.alive(position[v], h):
            vintages[(h, s, p.label)].append(v)
    cohorts: dict[Key, list[int]] = defaultdict(list)
    for h, s, installed, t in existing_index:
        cohorts[(h, s, t)].append(installed)
    index = sorted(set(vintages) | set(cohorts), key=lambda k: (position[k[2]], k[0], k[1]))
    previous = {b.label: a.label for a, b in itertools.pairwise(ctx.periods)}
    balance: dict[Key, Balance] = {}
    for h, s, t in index:
        deadline.check("the model data (fleet)")
        before = previous.get(t)
        was = (h, s, before)
        now_v, then_v = vintages.get((h, s, t), []), vintages.get(was, [])
        now_c, then_c = cohorts.get((h, s, t), []), cohorts.get(was, [])
        balance[(h, s, t)] = (
            was if was in vintages or was in cohorts else None,
            tuple((h, s, v) for v in now_v if v not in then_v),
            tuple((h, s, v) for v in then_v if v not in now_v),
            tuple((h, s, i, t) for i in now_c),
            tuple((h, s, i, before) for i in then_c),
        )
    return {
        "fleet_index": tuple(index),
        "vintages_alive": {k: tuple(v) for k, v in vintages.items()},
        "cohorts_alive": {k: tuple(v) for k, v in cohorts.items()},
        "fleet_balance": balance,
    }
