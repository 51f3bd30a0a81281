"""Plan table of early sales (``finance.sell_early``) and the units still held after them."""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from planner.economics.horizon_end import sale_proceeds_usd
from planner.optimize.data import Key, ModelData, PeriodLabel
from planner.optimize.extract import Solution
from planner.results.tables import WHEN, frame, vintage_label, when

SALES_COLUMNS = [
    *WHEN,
    "hardware",
    "site",
    "origin",
    "vintage",
    "units",
    "price_usd",
    "lifetime_years",
    "age_years",
    "resale_share",
    "proceeds_usd",
    "discount_factor",
    "proceeds_pv_usd",
]


def sold_by_purchase(sol: Solution) -> dict[Key, float]:
    """(h, s, v) → units of the purchase vintage sold early, over all periods."""
    out: dict[Key, float] = defaultdict(float)
    for (h, s, v, _), units in sol.sell.items():
        out[(h, s, v)] += units
    return dict(out)


def purchased_units_held(d: ModelData, sol: Solution) -> dict[Key, float]:
    """(h, s, v, t) → units of the purchase (h, s, v) held in t: bought less sold at the
    start of t or before (only periods of its life; zeros left out)."""
    position = {p.label: p.index for p in d.periods}
    sold: dict[Key, list[tuple[int, float]]] = defaultdict(list)
    for (h, s, v, p), units in sol.sell.items():
        sold[(h, s, v)].append((position[p], units))
    out: dict[Key, float] = {}
    for (h, s, t), vintages in d.vintages_alive.items():
        for v in vintages:
            bought = sol.buy.get((h, s, v), 0.0)
            if not bought:
                continue
            gone = sum(u for at, u in sold.get((h, s, v), ()) if at <= position[t])
            held = bought - gone
            if held > 1e-9:
                out[(h, s, v, t)] = held
    return out


def sales_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    """Units sold at the start of each period, by vintage, and their proceeds.

    ``proceeds_usd = units × price_usd × resale_share``, the share read off the resale
    curve at ``age_years`` (0 at or past ``lifetime_years``); ``proceeds_pv_usd`` is
    discounted from the period start. A purchase's price is its vintage's, an existing
    unit's the catalog price."""
    start = {p.label: p.start for p in d.periods}
    rows = []

    def row(
        h: str,
        s: str,
        origin: str,
        vintage: PeriodLabel | int,
        p: PeriodLabel,
        units: float,
        price: float,
        age: float,
        share: float,
    ) -> None:
        proceeds = sale_proceeds_usd(units, price, share)
        rows.append(
            {
                **when(d, p),
                "hardware": h,
                "site": s,
                "origin": origin,
                "vintage": vintage_label(d, vintage),
                "units": units,
                "price_usd": price,
                "lifetime_years": d.lifetime_years[h],
                "age_years": age,
                "resale_share": share,
                "proceeds_usd": proceeds,
                "discount_factor": d.discount_factor[p],
                "proceeds_pv_usd": proceeds * d.discount_factor[p],
            }
        )

    for (h, s, v, p), units in sol.sell.items():
        row(
            h,
            s,
            "purchased",
            v,
            p,
            units,
            d.price_usd[(h, v)],
            start[p] - start[v],
            d.sale_share[(h, s, v, p)],
        )
    for (h, s, i, p), units in sol.sell_existing.items():
        row(
            h,
            s,
            "existing",
            i,
            p,
            units,
            d.existing_price_usd[(h, s, i)],
            start[p] - i,
            d.sale_share_existing[(h, s, i, p)],
        )
    out = frame(rows, SALES_COLUMNS)
    position = {str(p.label): p.index for p in d.periods}
    order = out["period"].map(position) if len(out) else out["period"]
    return (
        out.assign(_o=order)
        .sort_values(["_o", "hardware", "site"], kind="stable")
        .drop(columns="_o")
        .reset_index(drop=True)
    )


def sales_line(sales: pd.DataFrame | None) -> str | None:
    """The run summary's sentence on early sales, with the basis of the proceeds; None
    when nothing was sold."""
    if sales is None or sales.empty or sales["units"].sum() <= 0:
        return None
    return (
        f"early sales (finance.sell_early): {sales['units'].sum():,.0f} units for "
        f"${sales['proceeds_usd'].sum():,.0f} (PV ${sales['proceeds_pv_usd'].sum():,.0f}; "
        "units × price (paid, or catalog for existing units) × the resale_curve share "
        "at their age, credited in the "
        "period sold; not added to the capex budget)"
    )
