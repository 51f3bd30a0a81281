"""The checker's revenue part: the revenue table and the investment figures recomputed.

From the Plan's tables only: each inference row's revenue is the served table's served
tokens times the row's price, its lost revenue the unmet tokens times it; each run's,
its value times the training table's completion; the present values use discount
factors recomputed from the periods table; the headline totals are the table's sums.
"""

from __future__ import annotations

import pandas as pd

from planner.economics import period_discount_factors
from planner.results.plan import Plan
from planner.units import MTOK

REL = 1e-6
"""Relative tolerance (the rows are products of table values: only round-off differs)."""


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= REL * max(abs(a), abs(b), scale)


def _factors(plan: Plan) -> dict[str, float]:
    periods = plan.tables["periods"].set_index("period")
    start = periods["start_year"].iloc[0]
    return period_discount_factors(plan.parameters["wacc"], periods["start_year"].to_dict(), start)


def objective_lost_revenue_pv(plan: Plan) -> float:
    """PV of the revenue forgone that ``objective: max_profit`` minimises (must-serve
    rows excluded), recomputed from the served and training tables."""
    revenue = plan.tables.get("revenue")
    if revenue is None or revenue.empty:
        return 0.0
    factor = _factors(plan)
    unmet = plan.tables["served"].set_index(["workload", "period"])["unmet_tokens"]
    runs = plan.tables["training"].set_index("run")
    total = 0.0
    for row in revenue[~revenue["must_serve"].astype(bool)].itertuples(index=False):
        if row.kind == "inference":
            lost = unmet[(row.work, row.period)] / MTOK * row.revenue_usd_per_mtok
        else:
            run = runs.loc[row.work]
            lost = row.value_usd * run["unmet_flops"] / run["flops_required"]
        total += lost * factor[row.period]
    return total


def check_revenue(plan: Plan) -> list[str]:
    """Every revenue row and the headline's revenue figures, recomputed."""
    revenue = plan.tables.get("revenue")
    if revenue is None:
        return []
    factor = _factors(plan)
    served = plan.tables["served"].set_index(["workload", "period"])
    runs = plan.tables["training"].set_index("run")
    scale = max(1.0, float(revenue["revenue_usd"].abs().sum()) * 1e-6) if len(revenue) else 1.0
    out = []
    total = 0.0
    total_pv = 0.0
    for row in revenue.itertuples(index=False):
        if row.kind == "inference":
            s = served.loc[(row.work, row.period)]
            earned = s["served_tokens"] / MTOK * row.revenue_usd_per_mtok
            lost = s["unmet_tokens"] / MTOK * row.revenue_usd_per_mtok
        else:
            run = runs.loc[row.work]
            earned = row.value_usd * (1 - run["unmet_flops"] / run["flops_required"])
            lost = row.value_usd * run["unmet_flops"] / run["flops_required"]
        pv = earned * factor[row.period]
        total += earned
        total_pv += pv
        for name, table, mine in (
            ("revenue", row.revenue_usd, earned),
            ("lost revenue", row.lost_revenue_usd, lost),
            ("revenue PV", row.revenue_usd_pv, pv),
        ):
            if not _close(table, mine, scale):
                out.append(
                    f"{row.period} {row.work}: {name} table {table:.9g} USD, recomputed {mine:.9g}"
                )
    head = plan.headline
    for key, mine in (("revenue_usd", total), ("revenue_usd_pv", total_pv)):
        if key in head and not _close(head[key], mine, scale):
            out.append(f"headline {key} {head[key]:.9g} USD ≠ recomputed {mine:.9g}")
    if "npv_profit_usd" in head and not _close(
        head["npv_profit_usd"], total_pv - head["npv_cost_usd"], scale
    ):
        out.append("headline npv_profit_usd ≠ PV of revenue − NPV cost")
    return out + _check_investment(plan, revenue, scale)


def _check_investment(plan: Plan, revenue: pd.DataFrame, scale: float) -> list[str]:
    """The investment table's cash flow and cumulative cash from its own columns."""
    table = plan.tables.get("investment")
    if table is None or table.empty:
        return []
    out = []
    earned = revenue.groupby("year")["revenue_usd"].sum()
    cumulative = 0.0
    for row in table.itertuples(index=False):
        flow = float(earned.get(row.year, 0.0)) - row.operating_cost_usd - row.capex_usd
        cumulative += flow
        if not _close(row.cash_flow_usd, flow, scale) or not _close(
            row.cumulative_cash_usd, cumulative, scale
        ):
            out.append(f"investment {row.year}: cash flow or cumulative cash does not add up")
    return out
