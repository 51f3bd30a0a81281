"""Which inference assignment columns a large LP starts without (column generation).

``x_inf[w,role,h,t]`` (units of h serving workload w's role in period t) is most of a
large model's columns (208,536 of XL's 316,183) and almost all of them are 0 at the
optimum. :func:`held_back` names the ones the one-instance solve
(:mod:`planner.optimize.solvers.lexicographic`) holds back; its LPs price them in from
their duals (:mod:`planner.optimize.solvers.columns`), so which ones start in changes
how many pricing rounds run, never the LP optimum.

Kept from the start, per (workload, role, period): the :data:`PER_GROUP` columns with
the most tokens per dollar-year of the hardware (its price over its life plus energy
and facility at its cheapest site, or its rental, whichever is less), the
:data:`PER_GROUP` with the most tokens per kW (power binds first in most plans), and
every column of hardware the scenario already owns (its units cost nothing to assign).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pyomo.environ as pyo

from planner.optimize.data import ModelData

GENERATE_FROM = 5_000
"""Assignment columns from which they are generated rather than all handed over: below
it the pricing rounds cost more than the columns they save."""
PER_GROUP = 2


def unit_cost_per_year(d: ModelData, h: str, t: Any) -> float:
    """A unit of ``h`` in period ``t`` for a year, USD: bought (price over lifetime,
    plus energy and facility at its cheapest site) or rented, the cheaper; only energy
    and facility when it can be neither (existing units)."""
    running = [
        d.energy_usd_per_unit_year[key] + d.facility_usd_per_unit_year.get(key, 0.0)
        for key in ((h, s, t) for s in d.sites)
        if key in d.energy_usd_per_unit_year
    ]
    run = min(running, default=0.0)
    options = []
    if (h, t) in d.price_usd:
        options.append(d.price_usd[(h, t)] / max(d.lifetime_years[h], 1) + run)
    if (h, t) in d.rent_usd_per_unit_year:
        options.append(d.rent_usd_per_unit_year[(h, t)])
    return min(options) if options else run


def held_keys(d: ModelData) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """The assignment keys the solve starts without, each paired with its pricing group
    (workload, role, period: one demand row's columns), in index order; none below
    :data:`GENERATE_FROM` of them."""
    keys = d.inf_index
    if len(keys) < GENERATE_FROM:
        return []
    owned = {h for h, _s, _i in d.existing_units}
    groups: dict[tuple, list[tuple[Any, ...]]] = defaultdict(list)
    for key in keys:
        w, role, _h, t = key
        groups[(w, role, t)].append(key)
    kept: set[tuple[Any, ...]] = set()
    for members in groups.values():
        rate = {key: d.inf_rate[(key[0], key[1], key[2])] for key in members}
        per_usd = sorted(
            members, key=lambda k: -rate[k] / max(unit_cost_per_year(d, k[2], k[3]), 1e-9)
        )
        per_kw = sorted(members, key=lambda k: -rate[k] / max(d.power_kw[k[2]], 1e-9))
        kept.update(per_usd[:PER_GROUP], per_kw[:PER_GROUP])
        kept.update(k for k in members if k[2] in owned)
    return [(k, (k[0], k[1], k[3])) for k in keys if k not in kept]


def held_back(model: pyo.ConcreteModel, d: ModelData) -> list[tuple[Any, tuple[Any, ...]]]:
    """:func:`held_keys` as (variable, group) pairs of a Pyomo ``model``."""
    return [(model.x_inf[key], group) for key, group in held_keys(d)]
