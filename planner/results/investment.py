"""The investment view of a Plan: revenue, cash costs, margins, payback, IRR, NPV of profit.

Built from the Plan's own tables (``revenue``, ``costs``, ``periods``, ``usd_per_mtok``),
so a spreadsheet can redo it. Two tables and a few headline figures:

* ``investment`` (per year, the scenario): revenue; operating cost (rent, energy,
  facility, maintenance); gross margin = revenue − operating cost; capex (less the
  proceeds of units sold early, ``finance.sell_early``); cash flow =
  gross margin − capex; cumulative cash. The residual (book value of units still in
  their life at the horizon end) is not cash: it has its own column in the last year and
  enters only the IRR and the NPV, booked at the horizon end as in the objective.
* ``investment_by_workload`` (per workload and year): served Mtok, revenue, the cost the
  $/Mtok table attributes to the workload (capital recovery convention, so no up-front
  outlay: payback and IRR are the scenario's), margin, and per Mtok: price, cost and
  unit margin = price − cost.
* headline: ``revenue_usd``, ``revenue_usd_pv``, ``lost_revenue_usd``,
  ``lost_revenue_usd_pv``, ``npv_profit_usd`` = PV of revenue − NPV cost, ``irr``
  (None when the cash flows do not change sign once), ``payback_year`` (None: not
  inside the horizon; read period by period, so a sub-year dip counts),
  ``priced_work`` (False: no price given, the figures are cost only).
"""

from __future__ import annotations

import pandas as pd

from planner.economics.returns import irr, payback_year
from planner.results.costs import RESALE
from planner.results.tables import frame

OPERATING_CATEGORIES = (
    "rent",
    "energy",
    "facility",
    "maintenance",
    "commitment",
    "datacenter_om",
    "datacenter_lease",
)
"""Cost categories that are running (operating) cash costs, procurement's included
(committed rentals, O&M of built datacenter capacity, leases)."""
CAPEX_CATEGORIES = ("capex", "datacenter_capex")
"""Cost categories that are the investment: purchases and datacenter builds."""

INVESTMENT_COLUMNS = [
    "year",
    "revenue_usd",
    "operating_cost_usd",
    "gross_margin_usd",
    "capex_usd",
    "cash_cost_usd",
    "cash_flow_usd",
    "cumulative_cash_usd",
    "residual_credit_usd",
]
BY_WORKLOAD_COLUMNS = [
    "workload",
    "year",
    "served_mtok",
    "revenue_usd",
    "cost_usd",
    "margin_usd",
    "revenue_usd_per_mtok",
    "cost_usd_per_mtok",
    "unit_margin_usd_per_mtok",
]


def investment_table(revenue: pd.DataFrame, costs: pd.DataFrame) -> pd.DataFrame:
    """The scenario's yearly investment view (see the module docstring), USD."""
    years = sorted(int(y) for y in costs["year"].unique())
    by_year = costs.groupby(["year", "category"])["usd"].sum()
    earned = revenue.groupby("year")["revenue_usd"].sum()
    rows = []
    cumulative = 0.0
    for y in years:

        def category(name: str, year: int = y) -> float:
            return float(by_year.get((year, name), 0.0))

        income = float(earned.get(y, 0.0))
        operating = sum(category(c) for c in OPERATING_CATEGORIES)
        capex = sum(category(c) for c in CAPEX_CATEGORIES) + category(RESALE)  # net of sales
        flow = income - operating - capex
        cumulative += flow
        rows.append(
            {
                "year": y,
                "revenue_usd": income,
                "operating_cost_usd": operating,
                "gross_margin_usd": income - operating,
                "capex_usd": capex,
                "cash_cost_usd": operating + capex,
                "cash_flow_usd": flow,
                "cumulative_cash_usd": cumulative,
                "residual_credit_usd": 0.0 - category("residual") + 0.0,
            }
        )
    return frame(rows, INVESTMENT_COLUMNS)


def profit_stream(
    revenue: pd.DataFrame, costs: pd.DataFrame, periods: pd.DataFrame
) -> dict[float, float]:
    """Cash flows ``{years from the horizon start: USD}``, each booked where the NPV
    discounts it: a period's revenue and cash costs at its start, its capex at the
    instant it is paid (``capex_paid_at_year``: the period's middle when its purchases
    arrive through it), the residual credit at the horizon end. So the stream's NPV at
    the wacc is the NPV of profit, and the IRR is the rate that makes that NPV zero."""
    start = float(periods["start_year"].iloc[0])
    end = float(periods["start_year"].iloc[-1] + periods["length_years"].iloc[-1]) - start
    starts = zip(periods["period"], periods["start_year"], strict=True)
    at = {str(p): float(s) - start for p, s in starts}
    paid_column = "capex_paid_at_year" if "capex_paid_at_year" in periods else "start_year"
    paid = zip(periods["period"], periods[paid_column], strict=True)
    paid_at = {str(p): float(s) - start for p, s in paid}
    flows: dict[float, float] = {}
    cash = costs[~costs["category"].str.startswith("penalty") & (costs["category"] != "residual")]
    for (period, category), usd in cash.groupby(["period", "category"])["usd"].sum().items():
        when = (paid_at if category == "capex" else at)[str(period)]
        flows[when] = flows.get(when, 0.0) - float(usd)
    for period, usd in revenue.groupby("period")["revenue_usd"].sum().items():
        flows[at[str(period)]] = flows.get(at[str(period)], 0.0) + float(usd)
    residual = -float(costs.loc[costs["category"] == "residual", "usd"].sum())
    if residual:
        flows[end] = flows.get(end, 0.0) + residual
    return flows


def cumulative_by_period(
    revenue: pd.DataFrame, costs: pd.DataFrame, periods: pd.DataFrame
) -> list[tuple[int, float]]:
    """(year, cumulative cash at the period's end) per period in time order: revenue less
    capex and operating costs, the residual excluded (it is not cash)."""
    cash = costs[costs["category"].isin((*CAPEX_CATEGORIES, RESALE, *OPERATING_CATEGORIES))]
    spent = cash.groupby("period")["usd"].sum()
    earned = revenue.groupby("period")["revenue_usd"].sum()
    out = []
    total = 0.0
    for period, year in zip(periods["period"], periods["year"], strict=True):
        total += float(earned.get(period, 0.0)) - float(spent.get(period, 0.0))
        out.append((int(year), total))
    return out


def by_workload_table(revenue: pd.DataFrame, usd_per_mtok: pd.DataFrame) -> pd.DataFrame:
    """Each priced workload's yearly revenue, attributed cost and margins, USD."""
    inference = revenue[revenue["kind"] == "inference"]
    if inference.empty:
        return frame([], BY_WORKLOAD_COLUMNS)
    earned = inference.groupby(["work", "year"], as_index=False)[["served_mtok", "revenue_usd"]]
    out = earned.sum().rename(columns={"work": "workload"})
    cost = usd_per_mtok.groupby(["workload", "year"], as_index=False)["cost_usd"].sum()
    out = out.merge(cost, on=["workload", "year"], how="left").fillna({"cost_usd": 0.0})
    out["margin_usd"] = out["revenue_usd"] - out["cost_usd"]
    served = out["served_mtok"].where(out["served_mtok"] > 0)
    out["revenue_usd_per_mtok"] = out["revenue_usd"] / served
    out["cost_usd_per_mtok"] = out["cost_usd"] / served
    out["unit_margin_usd_per_mtok"] = out["revenue_usd_per_mtok"] - out["cost_usd_per_mtok"]
    return out[BY_WORKLOAD_COLUMNS]


def investment_tables(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The two investment tables of a Plan's ``tables``."""
    return {
        "investment": investment_table(tables["revenue"], tables["costs"]),
        "investment_by_workload": by_workload_table(tables["revenue"], tables["usd_per_mtok"]),
    }


def investment_figures(
    tables: dict[str, pd.DataFrame], npv_cost_usd: float
) -> dict[str, float | int | bool | None]:
    """The headline's investment figures (see the module docstring)."""
    revenue = tables["revenue"]
    revenue_pv = float(revenue["revenue_usd_pv"].sum())
    flows = profit_stream(revenue, tables["costs"], tables["periods"])
    cumulative = cumulative_by_period(revenue, tables["costs"], tables["periods"])
    priced = not revenue.empty
    return {
        "priced_work": priced,
        "revenue_usd": float(revenue["revenue_usd"].sum()),
        "revenue_usd_pv": revenue_pv,
        "lost_revenue_usd": float(revenue["lost_revenue_usd"].sum()),
        "lost_revenue_usd_pv": float(revenue["lost_revenue_usd_pv"].sum()),
        "npv_profit_usd": revenue_pv - npv_cost_usd,
        "irr": irr(flows) if priced else None,
        "payback_year": payback_year(cumulative) if priced else None,
    }


def workload_summary(by_workload: pd.DataFrame) -> pd.DataFrame:
    """``investment_by_workload`` summed over the horizon, per workload, with its
    average price, cost and unit margin per served Mtok."""
    if by_workload.empty:
        return frame([], [c for c in BY_WORKLOAD_COLUMNS if c != "year"])
    sums = ["served_mtok", "revenue_usd", "cost_usd", "margin_usd"]
    out = by_workload.groupby("workload", as_index=False, sort=False)[sums].sum()
    served = out["served_mtok"].where(out["served_mtok"] > 0)
    out["revenue_usd_per_mtok"] = out["revenue_usd"] / served
    out["cost_usd_per_mtok"] = out["cost_usd"] / served
    out["unit_margin_usd_per_mtok"] = out["revenue_usd_per_mtok"] - out["cost_usd_per_mtok"]
    return out
