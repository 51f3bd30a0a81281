"""Compare scenarios: solve each, then line up headline figures, fleets and costs.

The first scenario is the reference: every difference column is ``other − first``.
The NPV cost stands next to the inference demand served and left unmet and the NPV
cost per served Mtok, so a scenario that serves less never reads as simply cheaper;
when some scenario prices its work, the revenue lost on unmet priced work, the PV of
revenue and the NPV of profit follow.
Labels are the scenario names, made unique with the file name where two scenarios
share a name. ``planner compare`` prints :attr:`Comparison.headline` and writes the
three tables to a workbook (:func:`planner.export.excel.write_comparison_workbook`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from planner.export.charts import power_frame
from planner.export.sheets.book import PERIOD, table
from planner.results import COST_CATEGORIES, Plan
from planner.results.comparison import Comparison, Solved, difference_labels
from planner.results.costs import RESALE
from planner.results.procurement import PROCUREMENT_CATEGORIES
from planner.units import MTOK

PENALTIES = ("penalty_unmet_inference", "penalty_unmet_training")
HEADLINE = (
    # key, label, unit
    ("npv_cost_usd", "NPV of total cost of ownership", "USD"),
    ("served_inference_tokens", "inference demand served", "output tokens"),
    ("unmet_inference_share", "inference demand left unmet", "share of demand"),
    ("usd_per_served_mtok", "NPV cost per served Mtok (whole horizon)", "USD per Mtok"),
    ("lost_revenue_usd", "revenue lost on unmet priced work", "USD"),
    ("revenue_usd_pv", "revenue of priced work (PV)", "USD"),
    ("npv_profit_usd", "NPV of profit (PV of revenue − NPV cost)", "USD"),
    ("objective_pv_usd", "NPV incl. penalties (penalties outside min_cost)", "USD"),
    ("penalties_usd_pv", "penalties for unmet demand (PV)", "USD"),
    ("undiscounted_cost_usd", "undiscounted cash cost", "USD"),
    ("capex_usd", "total capex", "USD"),
    ("peak_mw", "peak facility power", "MW"),
    ("accelerators_end", "owned accelerators at the horizon end", "accelerators"),
    ("usd_per_mtok_last", "realised cost per Mtok, last period (all workloads)", "USD per Mtok"),
    ("unmet_inference_tokens", "unmet inference demand", "output tokens"),
    ("unmet_training_flops", "unmet training work", "FLOP"),
    ("mip_gap", "MIP gap", "share"),
)
PRICED = ("lost_revenue_usd", "revenue_usd_pv", "npv_profit_usd")
"""Headline rows shown only when some scenario prices its work (revenue is then known)."""


def unique_labels(names: Sequence[str], sources: Sequence[Path | None]) -> list[str]:
    """Scenario names; repeated names get the file name, then a number, appended."""
    labels: list[str] = []
    for name, source in zip(names, sources, strict=True):
        label = name
        if names.count(name) > 1 and source is not None:
            label = f"{name} ({source.name})"
        base, n = label, 2
        while label in labels:
            label, n = f"{base} #{n}", n + 1
        labels.append(label)
    return labels


def headline_figures(plan: Plan) -> dict[str, Any]:
    """The figures a comparison lines up, from one plan."""
    h = plan.headline
    fleet = table(plan, "fleet")
    periods = table(plan, "periods")
    last = periods[PERIOD].iloc[-1]
    per_mtok = table(plan, "usd_per_mtok")
    final = per_mtok[per_mtok[PERIOD] == last]
    served = float(final["served_mtok"].sum())
    used = power_frame(plan)["used_mw"]
    demand = plan.tables["served"]
    served_tokens = float(demand["served_tokens"].sum())
    demanded = served_tokens + float(demand["unmet_tokens"].sum())
    return {
        "npv_cost_usd": h["npv_cost_usd"],
        "served_inference_tokens": served_tokens,
        "unmet_inference_share": h["unmet_inference_tokens"] / demanded if demanded else 0.0,
        "usd_per_served_mtok": (
            h["npv_cost_usd"] / (served_tokens / MTOK) if served_tokens > 0 else None
        ),
        "objective_pv_usd": float(plan.tables["costs"]["usd_pv"].sum()),
        "penalties_usd_pv": h["penalties_usd_pv"],
        "undiscounted_cost_usd": h["undiscounted_cost_usd"],
        "capex_usd": h["capex_usd"],
        "peak_mw": float(used.max()) if len(used) else 0.0,
        "accelerators_end": float(fleet.loc[fleet[PERIOD] == last, "accelerators"].sum()),
        "usd_per_mtok_last": float(final["cost_usd"].sum()) / served if served > 0 else None,
        "unmet_inference_tokens": h["unmet_inference_tokens"],
        "unmet_training_flops": h["unmet_training_flops"],
        "mip_gap": h.get("mip_gap"),
        "priced_work": bool(h.get("priced_work", False)),
        **{key: h.get(key, 0.0) for key in PRICED},
    }


def _with_differences(frame: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    for label, name in zip(labels[1:], difference_labels(labels), strict=True):
        frame[name] = frame[label] - frame[labels[0]]
    return frame


def compare(solved: Sequence[Solved]) -> Comparison:
    """Line up the solved scenarios (the first is the reference)."""
    labels = [s.label for s in solved]
    figures = [headline_figures(s.plan) for s in solved]
    rows = []
    priced = any(f["priced_work"] for f in figures)
    for key, name, unit in HEADLINE:
        if key in PRICED and not priced:
            continue
        row: dict[str, Any] = {"metric": name, "unit": unit}
        for label, mine in zip(labels, figures, strict=True):
            row[label] = mine[key]
        rows.append(row)
    headline = pd.DataFrame(rows, columns=["metric", "unit", *labels])
    headline[labels] = headline[labels].astype(float)
    headline = _with_differences(headline, labels)

    fleets = []
    for s in solved:
        fleet = table(s.plan, "fleet")
        fleets.append(fleet.groupby([PERIOD, "hardware"], sort=False)["accelerators"].sum())
    fleet = pd.concat(fleets, axis=1, keys=labels, sort=False).fillna(0.0).reset_index()
    fleet.columns = [PERIOD, "hardware", *labels]
    order = {p: i for s in solved for i, p in enumerate(table(s.plan, "periods")[PERIOD])}
    fleet = fleet.assign(_order=fleet[PERIOD].map(order))
    fleet = fleet.sort_values(["_order", "hardware"]).drop(columns="_order").reset_index(drop=True)
    fleet = _with_differences(fleet, labels)

    pv = [s.plan.tables["costs"].groupby("category")["usd_pv"].sum() for s in solved]
    categories = list(COST_CATEGORIES)
    if any(RESALE in p.index for p in pv):  # early sales: their credit after the residual
        categories.insert(categories.index("residual") + 1, RESALE)
    # procurement (commitments, datacenter builds and leases) where some plan pays for it,
    # before the penalties: a rent-only plan's commitments are its whole cost
    paid = [c for c in PROCUREMENT_CATEGORIES if any(p.get(c, 0.0) != 0.0 for p in pv)]
    at = categories.index(PENALTIES[0])
    categories[at:at] = paid
    costs = pd.concat(pv, axis=1, keys=labels).reindex(categories).fillna(0.0)
    costs.loc["total excl. penalties"] = costs.drop(index=list(PENALTIES)).sum()
    costs = costs.rename_axis("category").reset_index()
    costs = _with_differences(costs, labels)
    return Comparison(labels, headline, fleet, costs, list(solved))


def solve_files(
    paths: Sequence[str | Path],
    *,
    relax: bool = False,
    mip_gap: float | None = None,
    time_limit_s: float | None = None,
    threads: int | None = None,
) -> list[Solved]:
    """Load and validate every scenario file, then solve each, one after the other.

    All files are read first, so a broken last file is reported (exit 2) before any
    time is spent solving the others.
    """
    from planner.pipeline import plan
    from planner.scenario import load_scenario

    scenarios = [(path, load_scenario(path)) for path in map(Path, paths)]
    loaded = []
    for path, scenario in scenarios:
        result = plan(
            scenario, relax=relax, mip_gap=mip_gap, time_limit_s=time_limit_s, threads=threads
        )
        loaded.append((path, scenario, result))
    labels = unique_labels([s.name for _, s, _ in loaded], [p for p, _, _ in loaded])
    return [Solved(label, p, s, r) for label, (p, s, r) in zip(labels, loaded, strict=True)]


def compare_files(paths: Sequence[str | Path], **options: Any) -> Comparison:
    """Solve each scenario file and compare them (options: see :func:`solve_files`)."""
    return compare(solve_files(paths, **options))
