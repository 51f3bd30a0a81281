"""Which variables appear in which constraint row; budget and supply limits per period."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, TypedDict

from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key
from planner.scenario.periods import PeriodLabel, flow_in


class Lookups(TypedDict):
    train_at_unit: dict[Key, tuple[str, ...]]
    train_terms: dict[str, tuple[Key, ...]]
    pool_index: tuple[Key, ...]
    pool_train: dict[Key, tuple[Key, ...]]
    pool_inf: dict[Key, tuple[Key, ...]]
    site_train_index: tuple[Key, ...]
    demand_terms: dict[Key, tuple[Key, ...]]
    supply_terms: dict[Key, tuple[str, ...]]
    period_buys: dict[PeriodLabel, tuple[Key, ...]]
    site_fleet: dict[Key, tuple[str, ...]]
    period_fleet: dict[PeriodLabel, tuple[Key, ...]]
    budget_usd: dict[PeriodLabel, float]
    supply_max_units: dict[Key, float]


def lookups(
    ctx: Context,
    *,
    buy_index: tuple[Key, ...],
    fleet_index: tuple[Key, ...],
    train_index: tuple[Key, ...],
    inf_index: tuple[Key, ...],
    demand_rows: tuple[Key, ...],
    places: dict[Key, tuple[str, ...]],
) -> Lookups:
    """Which variables appear in which constraint row; budget and supply limits."""
    train_at_unit: dict[Key, list[str]] = defaultdict(list)
    train_terms: dict[str, list[Key]] = defaultdict(list)
    pool_train: dict[Key, list[Key]] = defaultdict(list)
    for r, h, s, t in train_index:
        train_at_unit[(h, s, t)].append(r)
        train_terms[r].append((h, s, t))
        pool_train[(h, t)].append((r, s))
    pool_inf: dict[Key, list[Key]] = defaultdict(list)
    demand_terms: dict[Key, list[Key]] = {row: [] for row in demand_rows}
    for w, role, h, t in inf_index:
        pool_inf[(h, t)].append((w, role))
        demand_terms[(w, t, "prefill" if role == "prefill" else "output")].append((role, h))
    position = {p.label: p.index for p in ctx.periods}
    pool_index = sorted(set(pool_train) | set(pool_inf), key=lambda k: (position[k[1]], k[0]))
    # A pool with one place is its own training row; otherwise each place needs one.
    site_train = [(h, s, t) for h, s, t in train_at_unit if len(places[(h, t)]) > 1]
    supply_terms: dict[Key, list[str]] = defaultdict(list)
    period_buys: dict[PeriodLabel, list[Key]] = defaultdict(list)
    for h, s, t in buy_index:
        supply_terms[(h, t)].append(s)
        period_buys[t].append((h, s))
    site_fleet: dict[Key, list[str]] = defaultdict(list)
    period_fleet: dict[PeriodLabel, list[Key]] = defaultdict(list)
    for h, s, t in fleet_index:
        site_fleet[(s, t)].append(h)
        period_fleet[t].append((h, s))

    period = {p.label: p for p in ctx.periods}
    budget: dict[PeriodLabel, float] = {}
    capex = ctx.scenario.budget.capex_usd
    if capex is not None:
        budget = {p.label: flow_in(capex, p) for p in ctx.periods}
    supply: dict[Key, float] = {}
    for h, t in supply_terms:
        cap = ctx.choice(h).max_units_per_year
        if cap is not None:
            supply[(h, t)] = flow_in(cap, period[t])

    def frozen(d: dict[Any, list[Any]]) -> dict[Any, tuple[Any, ...]]:
        return {k: tuple(v) for k, v in d.items()}

    return {
        "train_at_unit": frozen(train_at_unit),
        "train_terms": frozen(train_terms),
        "pool_index": tuple(pool_index),
        "pool_train": frozen(pool_train),
        "pool_inf": frozen(pool_inf),
        "site_train_index": tuple(site_train),
        "demand_terms": frozen(demand_terms),
        "supply_terms": frozen(supply_terms),
        "period_buys": frozen(period_buys),
        "site_fleet": frozen(site_fleet),
        "period_fleet": frozen(period_fleet),
        "budget_usd": budget,
        "supply_max_units": supply,
    }
