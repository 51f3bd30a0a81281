"""The Plan's revenue table: what the served work earned and what the unmet work forgoes.

One row per priced workload and period (served and unmet output Mtok times its
revenue per output Mtok) and per valued training run (its value times the share done,
booked in the window's last period). Work without a price earns nothing and has no
row. ``must_serve`` marks a run done whatever it costs under ``objective: max_profit``
(``must_finish``), whose lost revenue is not in that objective. The math is
:mod:`planner.economics.revenue`'s; the checker recomputes each row.
"""

from __future__ import annotations

import pandas as pd

from planner.economics.revenue import lost_run_revenue_usd, revenue_usd, run_revenue_usd
from planner.optimize.data import ModelData
from planner.results.tables import WHEN, frame
from planner.units import MTOK

REVENUE_COLUMNS = [
    *WHEN,
    "kind",
    "work",
    "served_mtok",
    "unmet_mtok",
    "revenue_usd_per_mtok",
    "value_usd",
    "completion",
    "revenue_usd",
    "lost_revenue_usd",
    "discount_factor",
    "revenue_usd_pv",
    "lost_revenue_usd_pv",
    "must_serve",
]


def revenue_table(d: ModelData, served: pd.DataFrame, training: pd.DataFrame) -> pd.DataFrame:
    """Revenue and lost revenue of each priced workload-period and valued run, USD."""
    rows = []
    labels = {str(p.label): p.label for p in d.periods}
    for row in served.itertuples(index=False):
        t = labels[row.period]
        price = d.revenue_usd_per_mtok.get((row.workload, t))
        if price is None:
            continue
        df = d.discount_factor[t]
        earned = revenue_usd(row.served_tokens, price)
        lost = revenue_usd(row.unmet_tokens, price)
        rows.append(
            {
                "period": row.period,
                "year": row.year,
                "kind": "inference",
                "work": row.workload,
                "served_mtok": row.served_tokens / MTOK,
                "unmet_mtok": row.unmet_tokens / MTOK,
                "revenue_usd_per_mtok": price,
                "value_usd": float("nan"),
                "completion": float("nan"),
                "revenue_usd": earned,
                "lost_revenue_usd": lost,
                "discount_factor": df,
                "revenue_usd_pv": earned * df,
                "lost_revenue_usd_pv": lost * df,
                "must_serve": False,
            }
        )
    for row in training.itertuples(index=False):
        value = d.run_value_usd.get(row.run)
        if value is None:
            continue
        t = labels[row.penalty_period]
        df = d.discount_factor[t]
        earned = run_revenue_usd(value, row.flops_required - row.unmet_flops, row.flops_required)
        lost = lost_run_revenue_usd(value, row.unmet_flops, row.flops_required)
        rows.append(
            {
                "period": row.penalty_period,
                "year": row.penalty_year,
                "kind": "training",
                "work": row.run,
                "served_mtok": float("nan"),
                "unmet_mtok": float("nan"),
                "revenue_usd_per_mtok": float("nan"),
                "value_usd": value,
                "completion": row.completion,
                "revenue_usd": earned,
                "lost_revenue_usd": lost,
                "discount_factor": df,
                "revenue_usd_pv": earned * df,
                "lost_revenue_usd_pv": lost * df,
                "must_serve": row.run in d.must_finish_runs,
            }
        )
    return frame(rows, REVENUE_COLUMNS)


def profit_reason(
    d: ModelData, tables: dict[str, pd.DataFrame], work: str, period: str
) -> str | None:
    """Why priced work is left unmet under ``objective: max_profit`` (None: it is not
    priced, is must-serve, or the objective is min_cost): the plan chose not to serve it
    at its price, or a limit held it back; the sentence names the price and what the
    shortfall forgoes, both from the revenue table."""
    if d.objective != "max_profit":
        return None
    revenue = tables["revenue"]
    rows = revenue[(revenue["work"] == work) & (revenue["period"] == period)]
    if rows.empty or bool(rows["must_serve"].iloc[0]):
        return None
    row = rows.iloc[0]
    price = (
        f"${row['revenue_usd_per_mtok']:,.4g} per output Mtok"
        if row["kind"] == "inference"
        else f"a value of ${row['value_usd']:,.0f}"
    )
    return (
        f"objective: max_profit serves priced work only where it pays: at {price}, serving "
        f"more of {work} would cost more than it earns, or a limit holds it back "
        f"(revenue forgone ${row['lost_revenue_usd']:,.0f})."
    )
