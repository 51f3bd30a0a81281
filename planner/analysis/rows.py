"""What a result row holds: the figures of a plan an analysis summarises.

:func:`plan_row` turns a :class:`~planner.results.Plan` into a JSON-ready dict (numbers,
text, lists, string-keyed dicts), so no Pyomo or pandas object crosses a process
boundary. Money in USD, power in MW, tokens as counts.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from planner.results import Plan
from planner.units import DAYS_PER_YEAR

Row = dict[str, Any]

UNMET_SHARE = 1e-6
"""Demand counts as met when less than this share of it is left unserved."""


# --- what a row holds --------------------------------------------------------------------


def _by(frame: pd.DataFrame, key: str, column: str) -> dict[str, float]:
    if frame.empty:
        return {}
    grouped = frame.groupby(key)[column].sum()
    return {str(k): float(v) for k, v in grouped.items() if v}


def _when(frame: pd.DataFrame) -> str:
    """The time column of a plan table: ``period`` (``2027``, ``2027Q3``), else ``year``."""
    return "period" if "period" in frame.columns else "year"


def binding_limits(plan: Plan) -> list[str]:
    """Binding limits as path-like names: ``power[dc].2027``, ``budget.2026Q3``, …"""
    out = []
    for name, subject in (
        ("power", "site"),
        ("budget", None),
        ("supply", "hardware"),
        ("vendor_share", "vendor"),
    ):
        frame = plan.tables.get(name)
        if frame is None or frame.empty:
            continue
        when = _when(frame)
        for row in frame[frame["binding"].astype(bool)].to_dict(orient="records"):
            who = f"[{row[subject]}]" if subject else ""
            out.append(f"{name}{who}.{row[when]}")
    return sorted(out)


def _peak_mw_by_year(power: pd.DataFrame) -> dict[str, float]:
    """Facility MW used, all sites, at the year's busiest period."""
    if power.empty:
        return {}
    keys = ["year", "period"] if "period" in power.columns else ["year"]
    per_period = power.groupby(keys, as_index=False)["used_mw"].sum()
    return {str(k): float(v) for k, v in per_period.groupby("year")["used_mw"].max().items()}


def _per_mtok(table: pd.DataFrame) -> dict[str, float | None]:
    """Each workload's $/Mtok over the horizon: its cost over its served Mtok."""
    out: dict[str, float | None] = {}
    for workload, rows in table.groupby("workload", sort=True):
        served = float(rows["served_mtok"].sum())
        out[str(workload)] = float(rows["cost_usd"].sum()) / served if served else None
    return out


def cost_band_usd(headline: dict[str, Any]) -> float:
    """The absolute cost band of a plan from its MIP gap, USD: how far its cost may lie
    above the best possible (objective − best bound; gap × |objective| without a bound).
    Two plans whose costs differ by less than the larger band are not told apart."""
    objective = headline.get("objective_usd")
    if objective is None:
        return math.nan
    bound = headline.get("best_bound_usd")
    if bound is not None and math.isfinite(bound):
        return max(float(objective) - float(bound), 0.0)
    gap = headline.get("mip_gap")
    return abs(float(objective)) * float(gap) if gap is not None and math.isfinite(gap) else 0.0


def lost_revenue_usd(headline: dict[str, Any]) -> float | None:
    """Revenue lost to unmet priced work, USD (undiscounted), from the plan's headline;
    None when no workload or run carries a price (``priced_work`` false or absent)."""
    if not headline.get("priced_work") or headline.get("lost_revenue_usd") is None:
        return None
    return float(headline["lost_revenue_usd"])


def purchase_key(hardware: str, site: str, period: str) -> str:
    """How a row names one purchase option: ``HARDWARE|SITE|PERIOD``."""
    return f"{hardware}|{site}|{period}"


def _first_year_buys(purchases: pd.DataFrame, year: int) -> dict[str, float]:
    """Purchases ordered in ``year`` (keyed by delivery period, as
    :class:`planner.optimize.fixed.FixedPurchases` fixes them): with a lead time an
    order of ``year`` may be delivered later. Period labels start with their year."""
    if "order_period" in purchases.columns:
        ordered = purchases["order_period"].astype(str).str[:4].astype(int)
    else:
        ordered = purchases["year"]
    mine = purchases[(ordered == year) & (purchases["units"] > 0)]
    return {
        purchase_key(str(r.hardware), str(r.site), str(r.period)): float(r.units)
        for r in mine.itertuples(index=False)
    }


def _units_by_year(purchases: pd.DataFrame) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    if purchases.empty:
        return out
    for (year, hardware), units in purchases.groupby(["year", "hardware"])["units"].sum().items():
        if units:
            out.setdefault(str(year), {})[str(hardware)] = float(units)
    return out


def plan_row(plan: Plan) -> Row:
    """The figures of a plan an analysis summarises (USD, MW, units, tokens).

    Per-year figures are keyed by calendar year (text): capex adds up over a year's
    periods, MW is the year's peak.
    """
    t, h = plan.tables, plan.headline
    periods = t["periods"]
    years = [str(y) for y in dict.fromkeys(periods["year"])]
    capex = _by(t["purchases"], "year", "capex_usd")
    mw = _peak_mw_by_year(t["power"])
    served = t["served"]
    demand = float((served["tokens_per_day"] * DAYS_PER_YEAR * served["length_years"]).sum())
    unmet = float(h["unmet_inference_tokens"])
    training = t["training"]
    flops_needed = float(training["flops_required"].sum()) if len(training) else 0.0
    unmet_flops = float(h["unmet_training_flops"])
    fleet = t["fleet"]
    when = _when(periods)
    last = fleet[fleet[_when(fleet)].astype(str) == str(periods[when].iloc[-1])]
    rentals = t["rentals"]
    first_year = int(periods["year"].iloc[0])
    return {
        "status": plan.status,
        "follow_ups_skipped": list(h.get("follow_ups_skipped") or ()),
        "objective_usd": h.get("objective_usd"),
        "npv_cost_usd": h["npv_cost_usd"],
        "penalties_usd_pv": h["penalties_usd_pv"],
        "undiscounted_cost_usd": h["undiscounted_cost_usd"],
        "capex_usd": h["capex_usd"],
        "mip_gap": h.get("mip_gap"),
        "cost_band_usd": cost_band_usd(h),
        "lost_revenue_usd": lost_revenue_usd(h),
        "capex_by_year": {y: capex.get(y, 0.0) for y in years},
        "mw_by_year": {y: mw.get(y, 0.0) for y in years},
        "peak_mw": max(mw.values(), default=0.0),
        "units_bought": _by(t["purchases"], "hardware", "units"),
        "units_by_year": _units_by_year(t["purchases"]),
        "first_year": first_year,
        "first_year_buys": _first_year_buys(t["purchases"], first_year),
        "capex_by_hardware": _by(t["purchases"], "hardware", "capex_usd"),
        "rented_unit_years": _by(
            rented_unit_years(rentals, t.get("commitments")), "hardware", "unit_years"
        ),
        "final_fleet_units": _by(last, "hardware", "units"),
        "unmet_inference_tokens": unmet,
        "unmet_inference_share": unmet / demand if demand else 0.0,
        "unmet_training_flops": unmet_flops,
        "demand_met": bool(
            unmet <= UNMET_SHARE * max(demand, 1.0)
            and unmet_flops <= UNMET_SHARE * max(flops_needed, 1.0)
        ),
        "usd_per_mtok": _per_mtok(t["usd_per_mtok"]),
        "binding": binding_limits(plan),
    }


def clean(value: Any) -> Any:
    """JSON-safe: NaN and infinities become None, tuples lists, keys text."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        return clean(value.item())
    return value


def rented_unit_years(rentals: pd.DataFrame, commitments: pd.DataFrame | None) -> pd.DataFrame:
    """Unit-years rented per row, on demand (``rentals``) and committed (``commitments``,
    one row per period a commitment covers): a committed cloud-only platform is rented
    too, though it appears in no on-demand row."""
    parts = [rentals.assign(unit_years=rentals["units"] * rentals["length_years"])]
    if commitments is not None and not commitments.empty:
        parts.append(
            commitments.assign(unit_years=commitments["units"] * commitments["length_years"])
        )
    return pd.concat([p[["hardware", "unit_years"]] for p in parts], ignore_index=True)
