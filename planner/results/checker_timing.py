"""Independent checks of when purchases are ordered, delivered and paid (issue 17).

Reads only the plan: its ``purchases`` and ``fleet`` tables, the periods table and the
``parameters`` (lead times, availability dates, end of sale, launch caps, payment
rule). A delivery must come in the first period starting at or after its order plus
the lead time, no earlier than the hardware's ``available_from``, from an order placed
inside the horizon and by its ``end_of_sale`` year; the part of the price paid at order
is the payment rule's; launch-year deliveries stay within ``first_year_max_units``; and
a cohort (existing or on order) is in the fleet only from its delivery.
"""

from __future__ import annotations

import math
from collections import defaultdict

import pandas as pd

from planner.results.plan import Plan

REL = 1e-5
EPS_YEARS = 1e-9
AT_ORDER = {"at_delivery": 0.0, "at_order": 1.0, "split": 0.5}
"""Share of the price paid at order, by ``finance.capex_payment`` (restated here)."""


def capex_paid(purchases: pd.DataFrame) -> dict[str, float]:
    """Purchase capex by payment period, recomputed: the at-order part in the order
    period, the rest in the delivery period."""
    out: dict[str, float] = defaultdict(float)
    for row in purchases.itertuples(index=False):
        out[str(row.order_period)] += row.capex_at_order_usd
        out[str(row.period)] += row.units * row.price_usd - row.capex_at_order_usd
    return out


def check_timing(plan: Plan) -> list[str]:
    """Violations of order, delivery, payment and availability rules."""
    t, par = plan.tables, plan.parameters
    periods = t["periods"]
    start = dict(zip(periods["period"].astype(str), periods["start_year"], strict=True))
    year = dict(zip(periods["period"].astype(str), periods["year"], strict=True))
    ordered = sorted(start, key=lambda label: start[label])
    lead = par.get("lead_time_months", {})
    available = par.get("available_from_year", {})
    end_of_sale = par.get("end_of_sale", {})
    share = AT_ORDER[par.get("capex_payment", "at_delivery")]
    out: list[str] = []
    launch: dict[str, float] = defaultdict(float)
    for row in t["purchases"].itertuples(index=False):
        h, v, o = row.hardware, str(row.period), str(row.order_period)
        what = f"{row.units:g} {h} delivered {v}"
        if o not in start:
            out.append(f"{what}: ordered {o}, outside the horizon")
            continue
        due = start[o] + lead.get(h, 0) / 12
        arrival = next((p for p in ordered if start[p] >= due - EPS_YEARS), None)
        if arrival != v:
            months = lead.get(h, 0)
            out.append(f"{what}: ordered {o} with a {months}-month lead time, due {arrival}")
        first = available.get(h, -math.inf)
        if start[v] < first - EPS_YEARS:
            out.append(f"{what}: before it is available ({first:g})")
        if h in end_of_sale and year[o] > end_of_sale[h]:
            out.append(f"{what}: ordered {o}, after its end of sale {end_of_sale[h]}")
        expected = row.units * row.price_usd * (share if o != v else 0.0)
        if abs(row.capex_at_order_usd - expected) > REL * max(1.0, abs(expected)):
            paid = row.capex_at_order_usd
            out.append(f"{what}: {paid:.6g} paid at order, the rule gives {expected:.6g}")
        if start[v] < first + 1.0 - EPS_YEARS:
            launch[h] += row.units
    for h, cap in par.get("first_year_max_units", {}).items():
        if launch.get(h, 0.0) > cap + REL * max(1.0, cap):
            out.append(f"{launch[h]:g} {h} delivered in its launch year, cap {cap:g}")
    fleet = t["fleet"]
    for row in fleet[fleet["origin"] == "existing"].itertuples(index=False):
        vintage = str(row.vintage)
        since = start.get(vintage, float(vintage) if vintage.isdigit() else -math.inf)
        if start[str(row.period)] < since - EPS_YEARS:
            cohort = f"{row.units:g} {row.hardware} of cohort {vintage}"
            out.append(f"{cohort} in the fleet in {row.period}, before its delivery")
    return out
