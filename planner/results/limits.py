"""Plan tables of the limits: power, budget, supply and vendor share against their caps."""

from __future__ import annotations

import pandas as pd

from planner.economics import (
    facility_mw_per_unit,
)
from planner.optimize.data import ModelData
from planner.results.tables import WHEN, frame, when

BINDING_SHARE = 1e-3
"""A limit with less than this share of room left is reported as binding."""


def _smallest(values: list[float], default: float) -> float:
    return min(values) if values else default


def limits_tables(
    d: ModelData, purchases: pd.DataFrame, fleet: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """Power, budget, supply and vendor-share use against their limits.

    A limit *binds* when the room left is under ``BINDING_SHARE`` of the limit or less
    than one more unit would need (the smallest unit buyable there and then; purchases
    are whole units); relaxed plans use the share alone.
    """
    tiny = BINDING_SHARE
    power_used = fleet.groupby(["period", "site"])["facility_mw"].sum()
    power = []
    for (s, t), cap in d.power_cap_mw.items():
        used = float(power_used.get((str(t), s), 0.0))
        unit_mw = [
            facility_mw_per_unit(d.power_kw[h], d.pue[s])
            for h, site in d.period_buys.get(t, ())
            if site == s
        ]
        room = tiny * cap if d.relax else max(_smallest(unit_mw, 0.0), tiny * cap)
        power.append(
            {
                **when(d, t),
                "site": s,
                "used_mw": used,
                "cap_mw": cap,
                "slack_mw": cap - used,
                "binding": bool(cap - used < room),
            }
        )
    spend = purchases.groupby("period")["capex_usd"].sum()
    budget = []
    for t in d.labels:
        limit = d.budget_usd.get(t, float("nan"))
        capex = float(spend.get(str(t), 0.0))
        prices = [d.price_usd[(h, t)] for h, _ in d.period_buys.get(t, ())]
        room = tiny * limit if d.relax else max(_smallest(prices, 0.0), tiny * limit)
        budget.append(
            {
                **when(d, t),
                "capex_usd": capex,
                "budget_usd": limit,
                "slack_usd": limit - capex,
                "binding": bool(t in d.budget_usd and limit - capex < room),
            }
        )
    bought = purchases.groupby(["period", "hardware"])["units"].sum()
    supply = []
    for (h, t), cap in d.supply_max_units.items():
        units = float(bought.get((str(t), h), 0.0))
        room = tiny * cap if d.relax else max(1.0, tiny * cap)
        supply.append(
            {
                **when(d, t),
                "hardware": h,
                "units_bought": units,
                "max_units": cap,
                "binding": bool(cap - units < room),
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
            share.append(
                {
                    **when(d, t),
                    "vendor": v,
                    "accelerators": mine,
                    "fleet_accelerators": total,
                    "share": mine / total if total else 0.0,
                    "max_share": cap,
                    "binding": bool(total > 0 and mine > 0 and mine / total > cap - tiny),
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
