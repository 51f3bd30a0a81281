"""Early sales (``finance.sell_early``): which owned units may be sold when, and for what.

A unit may be sold at the start of any period it would still work in: a purchase of
period v at the start of any later period of its life, an existing cohort (installed in
year i) at the start of any period of the horizon it is alive in. It fetches its price
times the resale share at its age (:func:`planner.economics.horizon_end.sale_share`,
the curve of ``finance.resale_curve``, as ``horizon_end: resale_curve`` uses): a
purchase its own vintage's price, an existing unit its catalog price. Without
``sell_early`` every index here is empty and the model is unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TypedDict

from planner.economics.horizon_end import sale_share
from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key


class Sales(TypedDict):
    sell_early: bool
    sell_index: tuple[Key, ...]
    sell_existing_index: tuple[Key, ...]
    sale_share: dict[Key, float]
    sale_share_existing: dict[Key, float]
    sales_at: dict[Key, tuple[Key, ...]]
    sales_of: dict[Key, tuple[Key, ...]]


def sales(ctx: Context, buy_index: tuple[Key, ...], existing_index: tuple[Key, ...]) -> Sales:
    """The sale options of every purchase vintage and existing cohort, and their shares."""
    finance = ctx.scenario.finance
    if not finance.sell_early:
        return {
            "sell_early": False,
            "sell_index": (),
            "sell_existing_index": (),
            "sale_share": {},
            "sale_share_existing": {},
            "sales_at": {},
            "sales_of": {},
        }
    curve = finance.resale_curve
    position = {p.label: p.index for p in ctx.periods}
    start = {p.label: p.start for p in ctx.periods}
    sell: list[Key] = []
    share: dict[Key, float] = {}
    at: dict[Key, list[Key]] = defaultdict(list)
    of: dict[Key, list[Key]] = defaultdict(list)
    for h, s, v in buy_index:
        life = ctx.specs[h].lifetime_years
        for p in ctx.alive(position[v], h)[1:]:  # not in the period it was bought
            key = (h, s, v, p.label)
            sell.append(key)
            share[key] = sale_share(p.start - start[v], life, curve)
            at[(h, s, p.label)].append(key)
            of[(h, s, v)].append(key)
    sell_existing: list[Key] = []
    share_existing: dict[Key, float] = {}
    for h, s, i, t in existing_index:
        key = (h, s, i, t)
        sell_existing.append(key)
        share_existing[key] = sale_share(start[t] - i, ctx.specs[h].lifetime_years, curve)
    return {
        "sell_early": True,
        "sell_index": tuple(sell),
        "sell_existing_index": tuple(sell_existing),
        "sale_share": share,
        "sale_share_existing": share_existing,
        "sales_at": {k: tuple(v) for k, v in at.items()},
        "sales_of": {k: tuple(v) for k, v in of.items()},
    }
