"""The worker: statuses, result rows and the per-process perf-table cache."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from analysis_helpers import EXACT, HAND

from planner.analysis import tasks as tasks_module
from planner.analysis.params import Change, parse_vary, prepare
from planner.analysis.rows import cost_band_usd, lost_revenue_usd
from planner.analysis.tasks import (
    MAX_RUNS,
    FixedPlan,
    Task,
    build_scenario,
    cached_tables,
    check_run_count,
    perf_key,
    run_task,
    sweep_run_count,
    task_key,
)
from planner.errors import InputError
from planner.pipeline import throughput
from planner.scenario import load_scenario


def _task(changes: tuple[Change, ...] = (), scenario_file: str = "power_switch.yaml") -> Task:
    scenario = load_scenario(HAND / scenario_file)
    paths = [parse_vary(f"{c.path}{'*' if c.multiplier else ''}={c.value}") for c in changes]
    doc, _ = prepare(scenario, paths)
    return Task(0, "t", doc, changes, EXACT)


def test_a_row_holds_the_figures_an_analysis_summarises() -> None:
    row = run_task(_task())
    assert row["status"] == "optimal" and row["error"] is None
    # all demand met: no penalty (equal up to the rounding of two sums of the same terms)
    assert row["objective_usd"] == pytest.approx(row["npv_cost_usd"], rel=1e-12)
    assert row["npv_cost_usd"] > 0
    assert set(row["capex_by_year"]) == {"2026", "2027"}
    assert sum(row["capex_by_year"].values()) == row["capex_usd"]
    assert row["peak_mw"] == max(row["mw_by_year"].values()) <= 0.1
    assert set(row["units_bought"]) == {"h100-hgx", "b200-hgx"}
    assert row["binding"] == ["power[dc].2027"]
    assert row["demand_met"] is True and row["unmet_inference_share"] == 0.0
    assert 0 < row["usd_per_mtok"]["chat"] < 10
    # power_switch's hand solution: 4 h100 in 2026; 5 b200 in 2027 (4 b200 + 2 h100 fell
    # short once decode steps paid per-layer launch and collective latency)
    assert row["first_year"] == 2026 and row["first_year_buys"] == {"h100-hgx|dc|2026": 4.0}
    assert row["units_by_year"] == {
        "2026": {"h100-hgx": 4.0},
        "2027": {"b200-hgx": 5.0},
    }
    assert row["cost_band_usd"] == 0.0  # solved exactly
    assert row["lost_revenue_usd"] is None  # no workload prices


def test_lost_revenue_is_read_only_where_work_is_priced() -> None:
    assert lost_revenue_usd({"priced_work": True, "lost_revenue_usd": 12.5}) == 12.5
    assert lost_revenue_usd({"priced_work": False, "lost_revenue_usd": 0.0}) is None
    assert lost_revenue_usd({}) is None


def test_the_cost_band_is_objective_minus_bound_else_gap_times_objective() -> None:
    assert cost_band_usd({"objective_usd": 100.0, "best_bound_usd": 97.0}) == 3.0
    assert cost_band_usd({"objective_usd": 100.0, "best_bound_usd": None, "mip_gap": 0.02}) == 2.0
    assert cost_band_usd({"objective_usd": 100.0, "best_bound_usd": 101.0}) == 0.0
    assert math.isnan(cost_band_usd({"objective_usd": None}))


def test_a_fixed_first_year_is_held_and_the_later_years_re_solved() -> None:
    """Holding 2026 at 5 h100 (one more than optimal): 2027 is re-solved around it and
    the NPV rises by one h100's 2026 unit-year ($124,554.64, the scenario's hand figure:
    price, energy, facility and maintenance of a unit that lives one year)."""
    free = run_task(_task())
    fixed = FixedPlan(2026, (("h100-hgx", "dc", "2026", 5.0),))
    held = run_task(Task(1, "held", _task().document, (), EXACT, fixed))
    assert held["first_year_buys"] == {"h100-hgx|dc|2026": 5.0}
    extra = held["npv_cost_usd"] - free["npv_cost_usd"]
    assert extra == pytest.approx(124_554.64, abs=0.01)
    assert task_key(Task(1, "held", _task().document, (), EXACT, fixed)) != task_key(_task())


def test_failures_become_statuses() -> None:
    invalid = run_task(_task((Change("finance.wacc", 1.5),)))
    assert invalid["status"] == "invalid" and "finance.wacc" in invalid["error"]
    short = run_task(_task((Change("inference[chat].tokens_per_day", 3.0, multiplier=True),)))
    assert short["status"] == "optimal" and short["demand_met"] is False
    assert short["penalties_usd_pv"] > 0 and short["unmet_inference_share"] > 0
    broken = run_task(_task((Change("solver.time_limit_s", 1e-9),)))
    assert broken["status"] in ("no plan", "feasible", "optimal")


def test_perf_key_ignores_what_the_perf_model_does_not_read() -> None:
    scenario = load_scenario(HAND / "power_switch.yaml")
    key = perf_key(scenario)
    same = [
        Change("finance.wacc", 0.2),
        Change("finance.electricity_usd_per_kwh", 0.2),
        Change("hardware[b200-hgx].price_usd", 1.0e5),
        Change("inference[chat].tokens_per_day", 2.0, multiplier=True),
        Change("sites[dc].power_cap_mw", 5.0),
    ]
    other = [
        Change("hardware[b200-hgx].memory_tbps", 4.0),
        Change("inference[chat].slo_tokens_per_s_per_user", 80.0),
        Change("finance.availability", 0.9),
    ]
    for change in same + other:
        variant = build_scenario(_task((change,)))
        assert (perf_key(variant) == key) == (change in same), change.path
        if change in same:  # what the cache would hand out is what the perf model gives
            fresh = throughput(variant)
            for cached_table, fresh_table in zip(throughput(scenario), fresh, strict=True):
                pd.testing.assert_frame_equal(cached_table, fresh_table)


def test_tables_are_computed_once_per_process() -> None:
    tasks_module._TABLES.clear()
    first = build_scenario(_task((Change("finance.wacc", 0.05),)))
    second = build_scenario(_task((Change("finance.wacc", 0.07),)))
    tables, hit = cached_tables(first)
    again, hit_again = cached_tables(second)
    assert (hit, hit_again) == (False, True) and again is tables


def test_sweep_run_count_is_the_base_plus_each_value_or_each_combination() -> None:
    assert sweep_run_count([3, 5], grid=False) == 1 + 3 + 5
    assert sweep_run_count([3, 5], grid=True) == 1 + 3 * 5
    assert sweep_run_count([1000, 1000, 1000], grid=True) == 1_000_000_001


def test_more_runs_than_the_maximum_is_bad_input() -> None:
    check_run_count(MAX_RUNS, "--samples")  # the maximum itself is allowed
    with pytest.raises(
        InputError, match="asks for 100,001 runs; an analysis may have at most"
    ) as caught:
        check_run_count(MAX_RUNS + 1, "--samples")
    assert caught.value.exit_code == 2 and caught.value.problems[0].path == "--samples"
