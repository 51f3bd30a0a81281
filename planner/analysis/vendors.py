"""Vendor shoot-out: the optimum with each vendor's hardware alone, and with all together.

Answers "what does going all-AMD (or all-TPU) cost us?". Task 0 is the scenario as
written (all vendors); then one task per vendor in the hardware list, in which:

* only that vendor's hardware may be **bought or rented**;
* the **existing fleet stays** (it is sunk and already installed: a vendor decision is
  about what to buy next). Other vendors' existing hardware keeps running to the end of
  its life but cannot be bought again (its ``release_year`` is moved past the horizon).
  ``greenfield=True`` (``--greenfield``) drops other vendors' existing fleet too;
* ``vendor_share_max`` is dropped: a share cap means nothing in a one-vendor fleet.

Every single-vendor problem is a restriction of the all-vendors one (existing units may
always be switched off), so the all-vendors optimum is never more expensive — unless
the scenario caps vendor shares, which only the all-vendors run obeys (the table says
so). The all-vendors row reports the cheapest plan found among all runs, since a MIP
gap can leave the all-vendors solve slightly behind a single-vendor one.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from planner.analysis.report import Analysis, ChartSpec, runs_frame
from planner.analysis.tasks import SOLVED, Row, SolveSettings, Task
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
    kept = {f["hardware"] for f in doc["existing_fleet"]}
    never = scenario.horizon.end + 1
    hardware = []
    for item in doc["hardware"]:
        if item["id"] in mine:
            hardware.append(item)
        elif item["id"] in kept:
            hardware.append({**item, "release_year": never})
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


def _value(row: Row, key: str) -> float:
    if row["status"] not in SOLVED or row.get(key) is None:
        return math.nan
    return float(row[key])


def vendor_table(rows: Sequence[Row], *, share_caps: bool = False) -> pd.DataFrame:
    """One row per option: NPV TCO and its excess over all vendors, capex, MW, demand met,
    $/Mtok per workload, the hardware bought.

    Without vendor share caps every single-vendor plan is also an all-vendors plan; if
    one is cheaper than the all-vendors run's (a MIP gap lets that happen), the
    all-vendors row reports it and says so in ``best_plan``.
    """
    workloads = sorted({w for r in rows for w in (r.get("usd_per_mtok") or {})})
    records = []
    for row in rows:
        record: dict[str, Any] = {
            "vendor": row["label"],
            "status": row["status"],
            "npv_tco_usd": _value(row, "objective_usd"),
            "npv_cost_usd": _value(row, "npv_cost_usd"),
            "capex_usd": _value(row, "capex_usd"),
            "peak_mw": _value(row, "peak_mw"),
            "demand_met": row.get("demand_met") if row["status"] in SOLVED else None,
            "unmet_inference_share": _value(row, "unmet_inference_share"),
        }
        for w in workloads:
            value = (row.get("usd_per_mtok") or {}).get(w)
            record[f"usd_per_mtok[{w}]"] = math.nan if value is None else value
        bought = row.get("units_bought") or {}
        record["hardware_bought"] = ", ".join(f"{h} × {u:g}" for h, u in sorted(bought.items()))
        record["best_plan"] = row["label"]
        record["error"] = row.get("error")
        records.append(record)
    if not records:
        return pd.DataFrame(records)
    if not share_caps:
        cheapest = min(
            (r for r in records if not math.isnan(r["npv_tco_usd"])),
            key=lambda r: r["npv_tco_usd"],
            default=None,
        )
        first = records[0]
        if (
            cheapest is not None
            and cheapest is not first
            and (math.isnan(first["npv_tco_usd"]) or cheapest["npv_tco_usd"] < first["npv_tco_usd"])
        ):
            keep = {"vendor": first["vendor"], "best_plan": f"{cheapest['vendor']} only"}
            records[0] = {**cheapest, **keep, "error": None}
    best = records[0]["npv_tco_usd"]
    frame = pd.DataFrame(records)
    frame.insert(3, "vs_all_vendors_usd", frame["npv_tco_usd"] - best)
    frame.insert(4, "vs_all_vendors_share", (frame["npv_tco_usd"] - best) / abs(best))
    return frame


def vendors_analysis(
    scenario: Scenario, rows: Sequence[Row], *, greenfield: bool = False
) -> Analysis:
    table = vendor_table(rows, share_caps=bool(scenario.vendor_share_max))
    chart = table[["vendor", "npv_tco_usd"]].dropna()
    notes = []
    if scenario.vendor_share_max:
        notes.append(
            "the scenario caps vendor shares; only the all-vendors run obeys the caps, so it "
            "may cost more than a single vendor"
        )
    return Analysis(
        kind="vendors",
        scenario=scenario.name,
        rows=list(rows),
        frames={"Vendors": table, "NPV by vendor": chart, "Runs": runs_frame(rows)},
        settings={
            "existing fleet": "dropped for other vendors (greenfield)"
            if greenfield
            else "kept (sunk); other vendors' hardware cannot be bought again",
            "vendors": ", ".join(f"{v}: {', '.join(h)}" for v, h in vendors_of(scenario).items()),
        },
        charts=[ChartSpec("columns", "NPV by vendor", "NPV TCO by vendor choice", "USD")],
        notes=notes,
    )
