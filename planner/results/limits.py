"""Plan tables of the limits: power, budget, supply and vendor share against their caps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from planner.economics import (
    facility_mw_per_unit,
)
from planner.optimize.data import ModelData
from planner.results.fleet import capex_by_payment_period
from planner.results.tables import WHEN, frame, when

BINDING_SHARE = 1e-3
"""In a relaxed plan (purchases continuous: no whole unit) a limit with less than this
share of room left binds."""
DUAL_ZERO = 1e-9
"""LP duals (model units) smaller than this are zero."""

Duals = Mapping[str, Mapping[Any, float]]


def binds(slack: float, unit: float, dual: float | None = None) -> bool:
    """The one definition of a binding limit: its slack is smaller than one purchasable
    unit (``unit``, in the limit's own unit: one unit's facility MW, one unit's price,
    one unit of supply) or its LP dual is non-zero."""
    return slack < unit or (dual is not None and abs(dual) > DUAL_ZERO)


def vendor_unit(d: ModelData, v: str, t: Any, cap: float) -> float:
    """One purchasable unit of a vendor-share cap, in accelerators of slack: buying one
    unit of the vendor's hardware with the fewest accelerators (a) in period ``t`` adds a
    to the vendor's and to the fleet's count, so the slack σ·total − mine falls by
    (1 − σ)·a. Zero when the vendor has nothing to buy in ``t``."""
    sizes = [d.accelerators[h] for h, _ in d.period_buys.get(t, ()) if d.vendor[h] == v]
    return (1.0 - cap) * min(sizes) if sizes else 0.0


def _smallest(values: list[float], default: float) -> float:
    return min(values) if values else default


def limits_tables(
    d: ModelData,
    purchases: pd.DataFrame,
    fleet: pd.DataFrame,
    duals: Duals | None = None,
    datacenter_capex_usd: Mapping[str, float] | None = None,
) -> dict[str, pd.DataFrame]:
    """Power, budget, supply and vendor-share use against their limits.

    The budget's capex is the purchases' plus ``datacenter_capex_usd`` (period label →
    capex of the blocks paid in it), as in the budget row.

    Power, budget and supply bind as :func:`binds` says, with ``duals`` the LP
    relaxation's (the shadow prices'): the unit is the smallest one installable at the
    site in that period (power), the cheapest one buyable in that period (budget), one
    unit (supply), the fewest accelerators one purchase of the vendor's hardware takes
    from the share's slack (vendor share, :func:`vendor_unit`; slack in accelerators
    σ·fleet − vendor's); in a relaxed plan, ``BINDING_SHARE`` of the limit. A vendor
    share of an empty fleet does not bind.
    """
    tiny = BINDING_SHARE
    duals = duals or {}
    power_dual, budget_dual, supply_dual, share_dual = (
        duals.get(name, {}) for name in ("power", "budget", "supply", "vendor_share")
    )
    power_used = fleet.groupby(["period", "site"])["facility_mw"].sum()
    unit_mw: dict[tuple[str, Any], list[float]] = {}
    for h, s, t in d.fleet_index:
        unit_mw.setdefault((s, t), []).append(facility_mw_per_unit(d.power_kw[h], d.pue[s]))
    power = []
    for (s, t), cap in d.power_cap_mw.items():
        used = float(power_used.get((str(t), s), 0.0))
        room = tiny * cap if d.relax else _smallest(unit_mw.get((s, t), []), 0.0)
        power.append(
            {
                **when(d, t),
                "site": s,
                "used_mw": used,
                "cap_mw": cap,
                "slack_mw": cap - used,
                "binding": binds(cap - used, room, power_dual.get((s, t))),
            }
        )
    spend = capex_by_payment_period(purchases)
    budget = []
    for t in d.labels:
        limit = d.budget_usd.get(t, float("nan"))
        capex = float(spend.get(str(t), 0.0)) + (datacenter_capex_usd or {}).get(str(t), 0.0)
        prices = [d.price_usd[(h, t)] for h, _ in d.period_buys.get(t, ())]
        room = tiny * limit if d.relax else _smallest(prices, 0.0)
        budget.append(
            {
                **when(d, t),
                "capex_usd": capex,
                "budget_usd": limit,
                "slack_usd": limit - capex,
                "binding": t in d.budget_usd and binds(limit - capex, room, budget_dual.get(t)),
            }
        )
    bought = purchases.groupby(["period", "hardware"])["units"].sum()
    supply = []
    for (h, t), cap in d.supply_max_units.items():
        units = float(bought.get((str(t), h), 0.0))
        room = tiny * cap if d.relax else 1.0
        supply.append(
            {
                **when(d, t),
                "hardware": h,
                "units_bought": units,
                "max_units": cap,
                "binding": binds(cap - units, room, supply_dual.get((h, t))),
            }
        )
    share = []
    owned = fleet.assign(vendor=fleet["hardware"].map(d.vendor))
    by_period = dict(tuple(owned.groupby("period")))
    for t in d.labels:
        here = by_period.get(str(t), owned.iloc[:0])
        total = float(here["accelerators"].sum())
        for v, cap in d.vendor_share_max.items():
            mine = float(here.loc[here["vendor"] == v, "accelerators"].sum())
            room = tiny * cap * total if d.relax else vendor_unit(d, v, t, cap)
            slack = cap * total - mine
            share.append(
                {
                    **when(d, t),
                    "vendor": v,
                    "accelerators": mine,
                    "fleet_accelerators": total,
                    "share": mine / total if total else 0.0,
                    "max_share": cap,
                    "binding": total > 0 and binds(slack, room, share_dual.get((v, t))),
                }
            )
    return {
        "power": frame(power, [*WHEN, "site", "used_mw", "cap_mw", "slack_mw", "binding"]),
        "budget": frame(budget, [*WHEN, "capex_usd", "budget_usd", "slack_usd", "binding"]),
        "supply": frame(supply, [*WHEN, "hardware", "units_bought", "max_units", "binding"]),
        "vendor_share": frame(
            share,
            [
                *WHEN,
                "vendor",
                "accelerators",
                "fleet_accelerators",
                "share",
                "max_share",
                "binding",
            ],
        ),
    }
