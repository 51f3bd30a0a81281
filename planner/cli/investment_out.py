"""The investment view as ``planner run`` prints it: revenue, margins, payback, IRR."""

from __future__ import annotations

import pandas as pd
from rich.markup import escape

from planner.cli.common import print_frame, stdout_console
from planner.results import Plan
from planner.results.investment import workload_summary

ROWS = (
    "revenue_usd",
    "operating_cost_usd",
    "gross_margin_usd",
    "capex_usd",
    "cash_flow_usd",
    "cumulative_cash_usd",
    "residual_credit_usd",
)


def investment_by_year(plan: Plan) -> pd.DataFrame:
    """The investment table turned to one row per measure, one column per year (USD)."""
    table = plan.tables["investment"].set_index("year")[list(ROWS)]
    wide = table.T.rename_axis("measure").reset_index()
    wide.columns = [str(c) for c in wide.columns]
    wide["measure"] = wide["measure"].str.removesuffix("_usd").str.replace("_", " ")
    wide.attrs["unit"] = "USD"
    return wide


def print_investment(plan: Plan) -> None:
    """The investment lines and tables, when some work carries a price."""
    h = plan.headline
    if not h.get("priced_work"):
        return
    out = stdout_console()
    irr = h.get("irr")
    payback = h.get("payback_year")
    wacc = plan.parameters.get("wacc", float("nan"))
    never_negative = bool((plan.tables["investment"]["cash_flow_usd"] >= 0).all())
    why = "no year's cash flow is negative: nothing to return" if never_negative else None
    out.print(
        f"revenue ${h['revenue_usd']:,.0f} (PV ${h['revenue_usd_pv']:,.0f}); NPV of profit "
        f"${h['npv_profit_usd']:,.0f} (PV of revenue − NPV cost, wacc {wacc:g}); IRR "
        + (
            f"n/a ({why or 'the cash flows do not change sign exactly once'})"
            if irr is None
            else f"{irr:.1%} (cash flows where the NPV books them: capex when paid)"
        )
        + "; payback "
        + ("not inside the horizon" if payback is None else str(payback))
        + " (first year from which undiscounted cumulative cash, residual excluded, stays ≥ 0)"
        + f"; lost revenue on unmet priced work ${h['lost_revenue_usd']:,.0f}"
        + f" (PV ${h['lost_revenue_usd_pv']:,.0f})",
        soft_wrap=True,
    )
    print_frame(investment_by_year(plan), "table", title="Investment by year (USD, cash)")
    summary = workload_summary(plan.tables["investment_by_workload"])
    if len(summary):
        summary = summary.assign(workload=summary["workload"].map(escape))
        print_frame(
            summary,
            "table",
            title="Revenue and margin by workload (horizon; cost by capital recovery, as $/Mtok)",
        )
