"""Sensitivity signs economics dictates, through one-at-a-time sweeps; the tornado table.

Each sweep solves exactly (MIP gap 0), so "never lowers" is checked to solver precision.
"""

from __future__ import annotations

import itertools
import math

import pytest
from analysis_helpers import EXACT, HAND

from planner.analysis.executors import ExecutorChoice, run_tasks
from planner.analysis.params import parse_vary
from planner.analysis.sweep import layout, spider, sweep_analysis, sweep_tasks, tornado
from planner.analysis.tasks import Row
from planner.scenario import load_scenario

REL = 1e-9


def _npvs(scenario_file: str, flag: str) -> list[float]:
    """NPV TCO (objective) at each value of ``flag``, lowest value first."""
    parameter = parse_vary(flag)
    tasks, base = sweep_tasks(load_scenario(HAND / scenario_file), [parameter], settings=EXACT)
    rows = run_tasks(tasks, executor=ExecutorChoice(workers=0), progress=False)
    assert all(r["status"] == "optimal" for r in rows), [r.get("error") for r in rows]
    [(_, ids)] = layout([parameter], base)  # a base value reads the base run (task 0)
    by_value = sorted(zip(parameter.values, (rows[i] for i in ids), strict=True))
    return [row["objective_usd"] for _, row in by_value]


def _never_lower(npvs: list[float]) -> bool:
    return all(b >= a * (1 - REL) for a, b in itertools.pairwise(npvs))


@pytest.mark.parametrize("scenario_file", ["power_switch.yaml", "rental_spike.yaml"])
def test_higher_electricity_price_never_lowers_npv(scenario_file: str) -> None:
    npvs = _npvs(scenario_file, "finance.electricity_usd_per_kwh=0.03,0.07,0.15,0.4")
    assert _never_lower(npvs) and npvs[-1] > npvs[0]


@pytest.mark.parametrize(
    ("scenario_file", "path"),
    [
        ("power_switch.yaml", "hardware[b200-hgx].price_usd"),
        ("lifetime_rebuy.yaml", "hardware[h100-hgx].price_usd"),
    ],
)
def test_higher_hardware_price_never_lowers_npv(scenario_file: str, path: str) -> None:
    npvs = _npvs(scenario_file, f"{path}=150000,280000,400000,900000")
    assert _never_lower(npvs) and npvs[-1] > npvs[0]


@pytest.mark.parametrize(
    "scenario_file", ["one_hardware_one_year.yaml", "existing_fleet.yaml", "budget_shortfall.yaml"]
)
def test_higher_wacc_never_lowers_npv(scenario_file: str) -> None:
    """One-year horizons: a higher WACC only shrinks the present value of the residual.

    (Over several years the plan pays later costs in cash, which a higher WACC discounts
    more: there the NPV of a fixed plan falls with the WACC, by construction.)
    """
    npvs = _npvs(scenario_file, "finance.wacc=0.0,0.05,0.1,0.2,0.4")
    assert _never_lower(npvs)


@pytest.mark.parametrize(
    ("scenario_file", "flag"),
    [
        ("power_switch.yaml", "inference[chat].tokens_per_day*=0.25,0.5,1,1.5,3"),
        ("rental_spike.yaml", "inference[chat].tokens_per_day.2027*=0.5,1,2"),
        ("training_one_type.yaml", "training[pretrain].tokens=1e13,2e13,4e13"),
    ],
)
def test_more_demand_never_lowers_npv(scenario_file: str, flag: str) -> None:
    npvs = _npvs(scenario_file, flag)
    assert _never_lower(npvs) and npvs[-1] > npvs[0]


def test_more_demand_against_a_binding_budget_leaves_the_npv_flat() -> None:
    """budget_shortfall: from half its demand up, the $600,000 budget buys the same 2
    h100-hgx; with the penalties outside the min_cost objective the NPV stays at 2 units'
    (2 × $106,318.28, see one_hardware_one_year.yaml)."""
    npvs = _npvs("budget_shortfall.yaml", "inference[chat].tokens_per_day*=0.5,1,2,4")
    assert npvs == pytest.approx([212_636.55] * 4, abs=0.01)


def test_tornado_ranks_inputs_by_npv_swing() -> None:
    scenario = load_scenario(HAND / "power_switch.yaml")
    parameters = [
        parse_vary("finance.wacc=0.08,0.12"),
        parse_vary("inference[chat].tokens_per_day*=0.8,1.2"),
        parse_vary("finance.electricity_usd_per_kwh=0.05,0.09"),
    ]
    tasks, base = sweep_tasks(scenario, parameters, settings=EXACT)
    assert [t.label for t in tasks][:3] == ["base", "finance.wacc=0.08", "finance.wacc=0.12"]
    rows: list[Row] = run_tasks(tasks, executor=ExecutorChoice(workers=0), progress=False)
    table = tornado(rows, parameters, base)
    assert table["parameter"].iloc[0] == "inference[chat].tokens_per_day ×"
    assert list(table["swing_usd"]) == sorted(table["swing_usd"], reverse=True)
    wacc = table.set_index("parameter").loc["finance.wacc"]
    assert wacc["base_value"] == 0.1 and wacc["npv_cost_base_usd"] == rows[0]["npv_cost_usd"]
    assert wacc["npv_cost_at_low_usd"] == rows[1]["npv_cost_usd"]
    assert not math.isnan(wacc["usd_per_mtok[chat]_swing"])
    assert wacc["swing_note"] == ""  # exact solves: any difference is real
    analysis = sweep_analysis(scenario, parameters, rows, base, grid=False)
    assert list(analysis.frames) == ["Tornado", "Tornado chart data", "Spider", "Runs"]
    chart = analysis.frames["Tornado chart data"]
    assert chart["input"].iloc[-1] == "inference[chat].tokens_per_day ×"  # drawn on top
    assert list(chart.columns) == ["input", "at lowest value", "at highest value"]


def test_a_value_equal_to_the_base_reuses_the_base_run() -> None:
    """wacc 0.10 and a demand multiplier of 1 are the base: 2 + 1 new runs, not 5."""
    scenario = load_scenario(HAND / "power_switch.yaml")
    parameters = [
        parse_vary("finance.wacc=0.08,0.1,0.12"),
        parse_vary("inference[chat].tokens_per_day*=1,1.2"),
    ]
    tasks, base = sweep_tasks(scenario, parameters, settings=EXACT)
    assert [t.task_id for t in tasks] == [0, 1, 2, 3]
    assert layout(parameters, base)[0][1] == (1, 0, 2)
    assert layout(parameters, base)[1][1] == (0, 3)


def _row(task_id: int, cost: float, band: float, **extra: object) -> Row:
    return {
        "task_id": task_id,
        "label": f"run {task_id}",
        "status": "optimal",
        "npv_cost_usd": cost,
        "cost_band_usd": band,
        "unmet_inference_share": 0.0,
        "demand_met": True,
        **extra,
    }


def test_differences_inside_the_cost_band_are_within_solver_tolerance() -> None:
    """Base $100M with a $5M band (gap); a run $3M cheaper is noise, one $7M dearer is not."""
    parameters = [parse_vary("finance.wacc=0.08,0.12")]
    base = {"finance.wacc": 0.1}
    rows = [_row(0, 100e6, 5e6), _row(1, 97e6, 1e6), _row(2, 107e6, 1e6)]
    table = tornado(rows, parameters, base)
    assert table.loc[0, "swing_usd"] == 10e6 and table.loc[0, "swing_note"] == ""
    points = spider(rows, parameters, base)
    # the base value (the base run) is a point of every line
    assert list(points["note"]) == ["within solver tolerance", "within solver tolerance", ""]
    assert list(points["npv_cost_change_usd"]) == [-3e6, 0.0, 7e6]
    assert list(points["value_vs_base"]) == pytest.approx([0.8, 1.0, 1.2])
    narrow = [_row(0, 100e6, 5e6), _row(1, 97e6, 1e6), _row(2, 101e6, 1e6)]  # swing 4M
    assert tornado(narrow, parameters, base).loc[0, "swing_note"] == "within solver tolerance"


def test_a_non_binding_caps_sweep_marks_every_row_within_tolerance() -> None:
    """power_switch's 2026 cap (0.1 MW) does not bind (4 h100 use 51 kW): raising it or
    cutting it to 0.06 MW leaves the plan, and every run is within tolerance of the base."""
    scenario = load_scenario(HAND / "power_switch.yaml")
    parameters = [parse_vary("sites[dc].power_cap_mw.2026=0.06,0.2,0.5")]
    tasks, base = sweep_tasks(scenario, parameters, settings=EXACT)
    rows = run_tasks(tasks, executor=ExecutorChoice(workers=0), progress=False)
    analysis = sweep_analysis(scenario, parameters, rows, base, grid=False)
    runs = analysis.frames["Runs"]
    assert list(runs["vs_base_note"].iloc[1:]) == ["within solver tolerance"] * 3
    assert list(analysis.frames["Spider"]["note"]) == ["within solver tolerance"] * 4
    assert analysis.frames["Tornado"].loc[0, "swing_note"] == "within solver tolerance"
    assert any("within solver tolerance of the base" in n for n in analysis.notes)


def test_grid_is_the_full_factorial() -> None:
    scenario = load_scenario(HAND / "power_switch.yaml")
    parameters = [parse_vary("finance.wacc=0.08,0.12"), parse_vary("finance.pue=1.1,1.2,1.3")]
    tasks, _ = sweep_tasks(scenario, parameters, grid=True, settings=EXACT)
    assert len(tasks) == 1 + 2 * 3
    assert tasks[-1].label == "finance.wacc=0.12; finance.pue=1.3"
