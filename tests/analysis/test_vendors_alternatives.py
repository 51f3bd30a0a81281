"""Vendor shoot-outs and near-optimal alternatives."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from analysis_helpers import EXACT, SHIPPED

from planner.analysis.alternatives import (
    Alternative,
    alternatives,
    alternatives_analysis,
    choices_table,
)
from planner.analysis.executors import ExecutorChoice, run_tasks
from planner.analysis.tasks import SOLVED, SolveSettings
from planner.analysis.vendors import not_sold, vendor_table, vendor_tasks
from planner.api import load
from planner.results.checker import check_plan
from planner.scenario import load_scenario
from planner.scenario.resolve import hardware_specs

TWO_VENDORS = """
name: two-vendors
horizon: {start: 2026, years: 2}
finance: {wacc: 0.10, availability: 1.0}
sites: [{name: dc, power_cap_mw: 10}]
hardware: [{id: h100-hgx}, {id: mi300x-oam8}]
existing_fleet: [{hardware: h100-hgx, site: dc, units: 2, installed: 2025}]
models: [{id: llama-3.1-8b}]
inference:
  - {name: chat, model: llama-3.1-8b, tokens_per_day: {2026: 1.0e10, 2027: 3.0e10},
     slo_tokens_per_s_per_user: 50}
solver: {mip_gap: 0.0, time_limit_s: 30}
"""

THREE_CHOICES = """
name: three-choices
horizon: {start: 2026, years: 2}
finance: {wacc: 0.10, availability: 1.0}
sites: [{name: dc, power_cap_mw: 10}]
hardware: [{id: h100-hgx}, {id: h200-hgx}, {id: b200-hgx}]
models: [{id: llama-3.1-8b}]
inference:
  - {name: chat, model: llama-3.1-8b, tokens_per_day: {2026: 2.0e10, 2027: 4.0e10},
     slo_tokens_per_s_per_user: 50}
solver: {mip_gap: 0.0, time_limit_s: 30}
"""


def _scenario(tmp_path: Path, text: str):
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return load_scenario(path)


def test_all_vendors_is_never_dearer_than_one_vendor() -> None:
    scenario = load_scenario(SHIPPED / "vendor_shootout.yaml")
    tasks = vendor_tasks(scenario, settings=EXACT)
    assert [t.label for t in tasks] == ["all vendors", "AMD", "AWS", "Google", "NVIDIA"]
    rows = run_tasks(tasks, executor=ExecutorChoice(workers=2), progress=False)
    assert all(r["status"] in SOLVED for r in rows)
    best = rows[0]["objective_usd"]
    for row in rows[1:]:
        assert best <= row["objective_usd"] * (1 + 1e-9), row["label"]
    table, _ = vendor_table(rows, cloud_only=not_sold(scenario))
    assert (table["vs_all_vendors_usd"] >= -1e-6 * abs(best)).all()
    for record, row in zip(table.to_dict(orient="records"), rows, strict=True):
        assert record["vendor"] == row["label"]  # each row is its own run
        assert record["npv_cost_usd"] == row["npv_cost_usd"]
    by_vendor = table.set_index("vendor")
    amd = by_vendor.loc["AMD"]
    assert not amd["demand_met"] and "mi" in amd["hardware_bought"]
    assert amd["shortfall"].startswith("unmet ")
    assert not_sold(scenario) == {"tpu-v6e-pod256", "tpu-ironwood-slice256", "trn2-ultraserver64"}
    # Google and AWS can only rent (committed or on demand): their rows say so, though
    # they buy nothing (committed rentals count as rented)
    assert by_vendor.loc["Google", "hardware_bought"] == ""
    assert by_vendor.loc["Google", "not_sold_hardware"].startswith("tpu-")
    assert by_vendor.loc["AWS", "not_sold_hardware"].startswith("trn2-ultraserver64: cloud-only")


def test_a_vendor_run_keeps_the_existing_fleet_but_buys_only_its_own(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, TWO_VENDORS)
    kept = run_tasks(vendor_tasks(scenario, settings=EXACT), executor=ExecutorChoice(workers=0))
    green = run_tasks(
        vendor_tasks(scenario, greenfield=True, settings=EXACT), executor=ExecutorChoice(workers=0)
    )
    amd, amd_green = kept[1], green[1]
    assert amd["label"] == amd_green["label"] == "AMD"
    assert set(amd["units_bought"]) == {"mi300x-oam8"}
    assert amd["final_fleet_units"].get("h100-hgx", 0) > 0  # still running, not bought
    assert "h100-hgx" not in amd_green["final_fleet_units"]
    assert amd["objective_usd"] <= amd_green["objective_usd"]  # sunk units only help
    for rows in (kept, green):
        assert all(rows[0]["objective_usd"] <= r["objective_usd"] * (1 + 1e-9) for r in rows)


def test_a_single_vendor_cheaper_than_all_vendors_is_a_note_never_a_swap() -> None:
    rows = [
        {
            "task_id": 0,
            "label": "all vendors",
            "status": "optimal",
            "npv_cost_usd": 101.0,
            "cost_band_usd": 2.0,
        },
        {
            "task_id": 1,
            "label": "AMD",
            "status": "optimal",
            "npv_cost_usd": 100.0,
            "cost_band_usd": 0.0,
        },
        {"task_id": 2, "label": "NVIDIA", "status": "invalid", "error": "fits on no hardware"},
        {
            "task_id": 3,
            "label": "Google",
            "status": "optimal",
            "npv_cost_usd": 90.0,
            "cost_band_usd": 0.0,
        },
    ]
    table, notes = vendor_table(rows)
    table = table.set_index("vendor")
    assert table.loc["all vendors", "npv_cost_usd"] == 101.0  # its own run, not AMD's
    assert table.loc["AMD", "vs_all_vendors_usd"] == -1.0
    assert table.loc["AMD", "vs_all_vendors_note"] == "within solver tolerance"
    assert table.loc["Google", "vs_all_vendors_note"] == ""
    assert len(notes) == 2 and "AMD alone came out $1 cheaper" in notes[0]
    assert "within solver tolerance" in notes[0] and "beyond solver tolerance" in notes[1]
    _, capped = vendor_table(rows, share_caps=True)
    assert capped == []  # with share caps only the all-vendors run obeys them


@pytest.mark.parametrize("slack", [0.03, 0.15])
def test_alternatives_stay_within_the_slack_and_pass_the_checker(
    tmp_path: Path, slack: float
) -> None:
    scenario = _scenario(tmp_path, THREE_CHOICES)
    found = alternatives(scenario, slack=slack, count=3, settings=EXACT)
    best = found[0].objective_usd
    assert found[0].index == 0 and found[0].plan.status == "optimal"
    mixes = []
    for alternative in found:
        assert alternative.objective_usd <= best + slack * abs(best) + 1e-6 * abs(best)
        assert alternative.objective_usd >= best * (1 - 1e-9)
        assert check_plan(alternative.plan) == []
        assert alternative.violations == []
        mixes.append(set(alternative.plan.tables["purchases"]["hardware"]))
    if slack >= 0.15:
        assert len(found) >= 2 and mixes[1] != mixes[0]  # a genuinely different fleet
    analysis = alternatives_analysis(scenario, found, slack=slack, count=3)
    verdicts = set(analysis.frames["Choices"]["verdict"])
    assert verdicts <= {"forced", "choice", "minor", "existing only"}
    assert "slack above the optimum by design" in analysis.notes[0]


def _fake(purchases: dict[str, float], rented: dict[str, float]) -> Alternative:
    """A plan with these units bought and rented (one accelerator per unit) and an
    existing fleet of 8 h100 accelerators."""
    tables = {
        "purchases": pd.DataFrame({"hardware": list(purchases), "units": list(purchases.values())}),
        "rentals": pd.DataFrame({"hardware": list(rented), "units": list(rented.values())}),
        "fleet": pd.DataFrame(
            {
                "period": ["2026"],
                "hardware": ["h100-hgx"],
                "origin": ["existing"],
                "accelerators": [8.0],
            }
        ),
    }
    acc = {"b200-hgx": 1, "mi300x-oam8": 1, "h100-hgx": 1}
    plan = SimpleNamespace(tables=tables, parameters={"accelerators_per_unit": acc})
    return Alternative(0, plan, [])  # type: ignore[arg-type]


def test_choices_need_a_material_share_and_show_the_existing_fleet() -> None:
    """Optimum: 100 b200 and 1.6 rented h100 (1.6% of additions: minor, not forced);
    alternative: 50 b200 and 50 mi300x. b200 is material in both (forced), mi300x in
    one (a choice); the existing 8 h100 accelerators stand beside, not as a choice."""
    found = [
        _fake({"b200-hgx": 100.0}, {"h100-hgx": 1.6}),
        _fake({"b200-hgx": 50.0, "mi300x-oam8": 50.0}, {}),
    ]
    table = choices_table(found).set_index("hardware")
    assert table["verdict"].to_dict() == {
        "b200-hgx": "forced",
        "h100-hgx": "minor",
        "mi300x-oam8": "choice",
    }
    assert table.loc["h100-hgx", "existing_accelerators"] == 8.0
    assert table.loc["h100-hgx", "max_share_of_additions"] == pytest.approx(1.6 / 101.6)
    assert table.loc["mi300x-oam8", "plans_material"] == 1


def test_alternatives_of_the_baseline() -> None:
    scenario = load_scenario(SHIPPED / "baseline.yaml")
    found = alternatives(scenario, slack=0.02, count=2, settings=SolveSettings())
    best = found[0].objective_usd
    assert len(found) == 3
    for alternative in found:
        assert alternative.objective_usd <= best * 1.02 * (1 + 1e-9)
        assert alternative.violations == []


def test_not_sold_reads_the_offers_catalog_and_the_scenarios_purchase_deal() -> None:
    scenario = load_scenario(SHIPPED / "vendor_shootout.yaml")
    cloud = {"tpu-v6e-pod256", "tpu-ironwood-slice256", "trn2-ultraserver64"}
    assert not_sold(scenario) == cloud
    # A direct purchase deal makes a TPU buyable; its catalog notes still say "Not sold".
    doc = scenario.model_dump(mode="python", exclude_none=True)
    for h in doc["hardware"]:
        if h["id"] == "tpu-v6e-pod256":
            h["purchasable"] = True
            h.pop("max_units_per_year", None)
    dealt = load(doc)
    assert "not sold" in (hardware_specs(dealt)["tpu-v6e-pod256"].notes or "").lower()
    assert not_sold(dealt) == cloud - {"tpu-v6e-pod256"}
    rows = [
        {"label": "all vendors", "status": "optimal", "npv_cost_usd": 1.0, "units_bought": {}},
        {
            "label": "Google",
            "status": "optimal",
            "npv_cost_usd": 2.0,
            "units_bought": {},
            "rented_unit_years": {"tpu-v6e-pod256": 3.0},
        },
    ]
    table, _ = vendor_table(rows, cloud_only=not_sold(scenario))
    assert table["not_sold_hardware"].tolist() == [
        "",
        "tpu-v6e-pod256: cloud-only (rented; not sold to buy)",
    ]
