"""Vendor shoot-outs and near-optimal alternatives."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_helpers import EXACT, SHIPPED

from planner.analysis.alternatives import alternatives, alternatives_analysis
from planner.analysis.executors import ExecutorChoice, run_tasks
from planner.analysis.tasks import SOLVED, SolveSettings
from planner.analysis.vendors import vendor_table, vendor_tasks
from planner.results.checker import check_plan
from planner.scenario import load_scenario

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
    assert [t.label for t in tasks] == ["all vendors", "AMD", "Google", "NVIDIA"]
    rows = run_tasks(tasks, executor=ExecutorChoice(workers=2), progress=False)
    assert all(r["status"] in SOLVED for r in rows)
    best = rows[0]["objective_usd"]
    for row in rows[1:]:
        assert best <= row["objective_usd"] * (1 + 1e-9), row["label"]
    table = vendor_table(rows)
    assert (table["vs_all_vendors_usd"] >= -1e-6 * abs(best)).all()
    amd = table.set_index("vendor").loc["AMD"]
    assert not amd["demand_met"] and "mi" in amd["hardware_bought"]


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


def test_the_all_vendors_row_reports_the_best_plan_found() -> None:
    rows = [
        {"task_id": 0, "label": "all vendors", "status": "optimal", "objective_usd": 101.0},
        {"task_id": 1, "label": "AMD", "status": "optimal", "objective_usd": 100.0},
        {"task_id": 2, "label": "NVIDIA", "status": "invalid", "error": "fits on no hardware"},
    ]
    table = vendor_table(rows).set_index("vendor")
    assert table.loc["all vendors", "npv_tco_usd"] == 100.0
    assert table.loc["all vendors", "best_plan"] == "AMD only"
    assert table.loc["AMD", "vs_all_vendors_usd"] == 0.0
    capped = vendor_table(rows, share_caps=True).set_index("vendor")
    assert capped.loc["all vendors", "npv_tco_usd"] == 101.0  # caps: AMD alone breaks them


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
    assert verdicts <= {"forced", "taste", "never"}


def test_alternatives_of_the_baseline() -> None:
    scenario = load_scenario(SHIPPED / "baseline.yaml")
    found = alternatives(scenario, slack=0.02, count=2, settings=SolveSettings())
    best = found[0].objective_usd
    assert len(found) == 3
    for alternative in found:
        assert alternative.objective_usd <= best * 1.02 * (1 + 1e-9)
        assert alternative.violations == []
