"""Vendor shoot-out: the optimum with each vendor's hardware alone, and with all together.

Answers "what does going all-AMD (or all-TPU) cost us?". Task 0 is the scenario as
written (all vendors); then one task per vendor in the hardware list, in which:

* only that vendor's hardware may be **bought or rented**;
* the **existing fleet stays** (it is sunk and already installed: a vendor decision is
  about what to buy next), and so do units ``on_order`` (sunk too). Other vendors'
  existing hardware keeps running to the end of its life but cannot be bought again
  (its supply cap is 0, ``max_units_per_year: 0``, and no rental offer is kept).
  ``greenfield=True`` (``--greenfield``) drops other vendors' existing and on-order
  units too;
* ``vendor_share_max`` is dropped: a share cap means nothing in a one-vendor fleet.

Every single-vendor problem is a restriction of the all-vendors one (existing units may
always be switched off), so the all-vendors optimum is never more expensive — unless
the scenario caps vendor shares, which only the all-vendors run obeys (the table says
so). Each row is its own run. A MIP gap can leave the all-vendors solve slightly behind
a single-vendor one: the table then says so in a note (within or beyond the runs' solver
tolerance), and never puts one run's figures on another's row.

Costs are the real cost (NPV of cash costs) with the shortfall beside it; a row that
leaves demand unmet says so. Cloud-only hardware (``purchasable: false`` in the offers
catalog, such as TPU and Trainium, unless the scenario says ``purchasable: true``) is
flagged in ``not_sold_hardware``: the plan rents it (on demand or committed).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from planner.analysis.figures import (
    COST,
    SOLVED,
    WITHIN_TOLERANCE,
    difference_note,
    shortfall,
    value,
    within_tolerance,
)
from planner.analysis.report import Analysis, ChartSpec, runs_frame
from planner.analysis.tasks import Row, SolveSettings, Task
from planner.catalog import offer_catalog
from planner.catalog.software import describe as describe_software
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario

ALL = "all vendors"


def vendors_of(scenario: Scenario) -> dict[str, list[str]]:
    """Vendor → hardware ids of the scenario, in listed order."""
    out: dict[str, list[str]] = {}
    for h, spec in hardware_specs(scenario).items():
        out.setdefault(spec.vendor, []).append(h)
    return out


def vendor_document(scenario: Scenario, vendor: str, *, greenfield: bool = False) -> dict:
    """The scenario document restricted to ``vendor``'s purchases (module docstring)."""
    doc: dict[str, Any] = copy.deepcopy(scenario.model_dump(mode="python", exclude_none=True))
    mine = set(vendors_of(scenario)[vendor])
    if greenfield:
        doc["existing_fleet"] = [f for f in doc["existing_fleet"] if f["hardware"] in mine]
        doc["on_order"] = [f for f in doc["on_order"] if f["hardware"] in mine]
    kept = {f["hardware"] for f in doc["existing_fleet"] + doc["on_order"]}
    hardware = []
    for item in doc["hardware"]:
        if item["id"] in mine:
            hardware.append(item)
        elif item["id"] in kept:  # its units stay; no more can be bought (supply cap 0)
            hardware.append({**item, "max_units_per_year": 0})
    doc["hardware"] = hardware
    doc["rental"] = [r for r in doc["rental"] if r["hardware"] in mine]
    doc["vendor_share_max"] = {}
    return doc


def vendor_tasks(
    scenario: Scenario, *, greenfield: bool = False, settings: SolveSettings | None = None
) -> list[Task]:
    """Task 0: all vendors; then one task per vendor (sorted by name)."""
    settings = settings or SolveSettings()
    tasks = [Task(0, ALL, scenario.model_dump(mode="python", exclude_none=True), (), settings)]
    for vendor in sorted(vendors_of(scenario)):
        doc = vendor_document(scenario, vendor, greenfield=greenfield)
        tasks.append(Task(len(tasks), vendor, doc, (), settings))
    return tasks


def not_sold(scenario: Scenario) -> set[str]:
    """Hardware of the scenario the lab cannot buy: ``purchasable: false`` in the offers
    catalog and not ``purchasable: true`` (a direct purchase deal) in the scenario."""
    offers = offer_catalog()
    deals = {h.id for h in scenario.hardware if h.purchasable is True}
    listed = {h.id for h in scenario.hardware} | {r.hardware for r in scenario.rental}
    return {h for h in listed if h in offers and not offers[h].purchasable and h not in deals}


def vendor_table(
    rows: Sequence[Row], *, share_caps: bool = False, cloud_only: set[str] | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """One row per option, each its own run: real cost and its excess over all vendors
    (with the tolerance note), the shortfall, capex, MW, $/Mtok per workload, the
    hardware bought. Returns the table and notes (a single-vendor plan cheaper than the
    all-vendors solve)."""
    cloud_only = cloud_only or set()
    workloads = sorted({w for r in rows for w in (r.get("usd_per_mtok") or {})})
    records = []
    first = rows[0] if rows else None
    best = value(first, COST)
    for row in rows:
        cost = value(row, COST)
        record: dict[str, Any] = {
            "vendor": row["label"],
            "status": row["status"],
            "npv_cost_usd": cost,
            "vs_all_vendors_usd": cost - best,
            "vs_all_vendors_share": (cost - best) / abs(best) if best else math.nan,
            "vs_all_vendors_note": "" if row is first else difference_note(cost - best, row, first),
            "cost_band_usd": value(row, "cost_band_usd"),
            "shortfall": shortfall(row),
            "unmet_inference_share": value(row, "unmet_inference_share"),
            "unmet_inference_tokens": value(row, "unmet_inference_tokens"),
            "lost_revenue_usd": value(row, "lost_revenue_usd"),
            "penalties_usd_pv": value(row, "penalties_usd_pv"),
            "capex_usd": value(row, "capex_usd"),
            "peak_mw": value(row, "peak_mw"),
            "demand_met": row.get("demand_met") if row["status"] in SOLVED else None,
        }
        for w in workloads:
            found = (row.get("usd_per_mtok") or {}).get(w)
            record[f"usd_per_mtok[{w}]"] = math.nan if found is None else found
        bought = row.get("units_bought") or {}
        record["hardware_bought"] = ", ".join(f"{h} × {u:g}" for h, u in sorted(bought.items()))
        flagged = sorted(cloud_only & {*bought, *(row.get("rented_unit_years") or {})})
        record["not_sold_hardware"] = (
            f"{', '.join(flagged)}: cloud-only (rented; not sold to buy)" if flagged else ""
        )
        record["error"] = row.get("error")
        records.append(record)
    notes = []
    if first is not None and not share_caps:
        for record, row in zip(records[1:], rows[1:], strict=True):
            gap = record["vs_all_vendors_usd"]
            if not math.isnan(gap) and gap < 0:
                how = (
                    WITHIN_TOLERANCE
                    if within_tolerance(gap, row, first)
                    else "beyond solver tolerance: re-run with a tighter --mip-gap"
                )
                notes.append(
                    f"{record['vendor']} alone came out ${-gap:,.0f} cheaper than the "
                    f"all-vendors solve ({how}); every single-vendor plan is also an "
                    "all-vendors plan, so the difference is the solver's, not the vendors'"
                )
    return pd.DataFrame(records), notes


def vendors_analysis(
    scenario: Scenario, rows: Sequence[Row], *, greenfield: bool = False
) -> Analysis:
    table, notes = vendor_table(
        rows, share_caps=bool(scenario.vendor_share_max), cloud_only=not_sold(scenario)
    )
    labels = [
        f"{v} ({s})" if s else v for v, s in zip(table["vendor"], table["shortfall"], strict=True)
    ]
    chart = pd.DataFrame({"vendor choice": labels, "NPV cost": table["npv_cost_usd"]}).dropna()
    software = describe_software(scenario.software, list(vendors_of(scenario)))
    notes.append(f"serving software assumed (planner software): {software}")
    if scenario.vendor_share_max:
        notes.append(
            "the scenario caps vendor shares; only the all-vendors run obeys the caps, so it "
            "may cost more than a single vendor"
        )
    shown = ["vendor", "status", "npv_cost_usd", "vs_all_vendors_usd", "vs_all_vendors_note"]
    shown += ["shortfall", "capex_usd", "peak_mw", "hardware_bought", "not_sold_hardware"]
    return Analysis(
        display={"Vendors": shown},
        kind="vendors",
        scenario=scenario.name,
        rows=list(rows),
        frames={"Vendors": table, "NPV cost by vendor": chart, "Runs": runs_frame(rows)},
        settings={
            "existing fleet": "dropped for other vendors (greenfield)"
            if greenfield
            else "kept (sunk); other vendors' hardware cannot be bought again",
            "vendors": ", ".join(f"{v}: {', '.join(h)}" for v, h in vendors_of(scenario).items()),
        },
        charts=[ChartSpec("columns", "NPV cost by vendor", "NPV cost by vendor choice", "USD")],
        notes=notes,
    )
