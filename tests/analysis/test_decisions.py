"""Decisions and statistics of a Monte Carlo: regret of first-year plans, bootstrap
intervals, drivers, purchases by year, and warnings about inert varied inputs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_helpers import EXACT, HAND, SHIPPED

from planner.analysis.decisions import first_year_plans, purchases_by_year
from planner.analysis.executors import ExecutorChoice, run_tasks
from planner.analysis.inert import inert_inputs
from planner.analysis.mcstats import bootstrap_ci, convergence, drivers, sample_counts
from planner.analysis.montecarlo import montecarlo_tasks
from planner.analysis.params import parse_dist, parse_vary
from planner.analysis.regret import (
    base_task,
    candidates,
    regret_frames,
    regret_tasks,
)
from planner.scenario import load_scenario


@pytest.fixture(scope="module")
def regret_case() -> dict:
    """power_switch, 3 samples of demand and the h100 price, 2 candidate plans, exact."""
    scenario = load_scenario(HAND / "power_switch.yaml")
    parameters = [
        parse_dist("inference[chat].tokens_per_day*=uniform:0.6:1.6"),
        parse_dist("hardware[h100-hgx].price_usd=uniform:80000:150000"),
    ]
    tasks = montecarlo_tasks(scenario, parameters, samples=3, seed=3, settings=EXACT)
    tasks.append(base_task(tasks))
    rows = run_tasks(tasks, executor=ExecutorChoice(workers=0), progress=False)
    chosen = candidates(rows[3], rows[:3], 2)
    fixed = run_tasks(
        regret_tasks(tasks, rows, chosen), executor=ExecutorChoice(workers=0), progress=False
    )
    frames, sentence = regret_frames(tasks, rows, chosen, fixed)
    return {"rows": rows, "chosen": chosen, "fixed": fixed, "frames": frames, "sentence": sentence}


def test_the_base_plan_has_no_regret_in_the_base_scenario(regret_case: dict) -> None:
    matrix = regret_case["frames"]["Regret by scenario"]
    assert regret_case["chosen"][0].name.startswith("base plan")
    assert regret_case["chosen"][0].buys == {"h100-hgx|dc|2026": 4.0}  # the hand solution
    at_base = matrix[(matrix["scenario"] == "base") & matrix["candidate"].str.startswith("base")]
    assert at_base["cost_regret_usd"].tolist() == [0.0]
    assert at_base["shortfall_regret_share"].tolist() == [0.0]
    # power_switch's hand solution (5 b200 in 2027 since decode steps pay launch latency)
    assert at_base["npv_cost_usd"].iloc[0] == pytest.approx(2_321_031.11, abs=0.01)


def test_regret_is_never_negative_and_the_robust_choice_has_the_least_worst_case(
    regret_case: dict,
) -> None:
    matrix = regret_case["frames"]["Regret by scenario"]
    table = regret_case["frames"]["Regret"]
    assert len(matrix) == 2 * 4
    assert (matrix["cost_regret_usd"] >= 0).all() and (matrix["shortfall_regret_share"] >= 0).all()
    assert (matrix["cost_regret_usd"] > 1000).any()  # the candidates do differ somewhere
    # cost regret: the real cost less the cheapest plan evaluated in that scenario (the
    # free optimum included) that serves at least as much demand
    rows = {r["label"]: r for r in regret_case["rows"]}
    for scenario, group in matrix.groupby("scenario"):
        free = rows[scenario]
        plans = [(free["unmet_inference_share"], free["npv_cost_usd"])]
        plans += list(zip(group["unmet_inference_share"], group["npv_cost_usd"], strict=True))
        for unmet, cost, regret in zip(
            group["unmet_inference_share"],
            group["npv_cost_usd"],
            group["cost_regret_usd"],
            strict=True,
        ):
            best = min(c for u, c in plans if u <= unmet + 1e-6)
            assert regret == pytest.approx(cost - best, abs=1e-6)
    assert table["robust_choice"].tolist() == [True, False]
    assert table["worst_regret_usd"].iloc[0] <= table["worst_regret_usd"].iloc[1]
    assert regret_case["sentence"].startswith("robust choice: buy h100-hgx × ")
    # a candidate's re-solve holds its first year: the fixed runs buy exactly the plan
    for row, task_label in ((r, r["label"]) for r in regret_case["fixed"]):
        name = task_label.split(" | ")[0]
        plan = next(c for c in regret_case["chosen"] if c.name == name)
        assert row["first_year_buys"] == plan.buys


def test_percentile_intervals_shrink_as_samples_grow() -> None:
    """Seeded lognormal draws: the 95% interval on P10, P50 and P90 narrows from 40 to
    640 samples (width falls roughly as 1/√n, so by about 4×)."""
    draws = np.random.Generator(np.random.PCG64(11)).lognormal(0.0, 0.5, 640)
    small, large = bootstrap_ci(draws[:40], seed=1), bootstrap_ci(draws, seed=1)
    for q in (10, 50, 90):
        wide = small[f"p{q}_ci_high"] - small[f"p{q}_ci_low"]
        narrow = large[f"p{q}_ci_high"] - large[f"p{q}_ci_low"]
        assert narrow < wide / 2, q
        assert large[f"p{q}_ci_low"] <= np.percentile(draws, q) <= large[f"p{q}_ci_high"]
    assert bootstrap_ci(draws, seed=1) == large  # seeded: the same interval again


def test_convergence_counts_and_percentiles() -> None:
    assert sample_counts(7) == [7]
    assert sample_counts(250) == [10, 20, 50, 100, 200, 250]
    runs = pd.DataFrame({"npv_cost_usd": [float(v) for v in range(1, 21)]})
    frame = convergence(runs, "npv_cost_usd")
    assert frame["samples"].tolist() == [10, 20]
    assert frame["P50"].tolist() == [5.5, 10.5]  # medians of 1..10 and 1..20


def test_drivers_rank_inputs_by_rank_correlation() -> None:
    """cost rises with x exactly in rank (ρ = 1), falls with y (ρ = −1); z is constant."""
    runs = pd.DataFrame(
        {
            "input:x": [1.0, 2.0, 3.0, 4.0],
            "input:y": [4.0, 3.0, 2.0, 1.0],
            "input:z": [5.0, 5.0, 5.0, 5.0],
            "npv_cost_usd": [10.0, 20.0, 40.0, 80.0],
        }
    )
    frame = drivers(runs, {"npv_cost_usd": "npv_cost"})
    assert frame["input"].tolist()[:2] == ["x", "y"] or frame["input"].tolist()[:2] == ["y", "x"]
    values = dict(zip(frame["input"], frame["rank_corr_npv_cost"], strict=True))
    assert values["x"] == pytest.approx(1.0) and values["y"] == pytest.approx(-1.0)
    assert math.isnan(values["z"])


def test_purchases_by_year_and_first_year_plans() -> None:
    def row(i: int, first: dict, by_year: dict) -> dict:
        return {
            "task_id": i,
            "label": f"sample {i}",
            "status": "optimal",
            "first_year": 2026,
            "first_year_buys": first,
            "units_by_year": by_year,
        }

    rows = [
        row(0, {"gb200|tx|2026": 120.0}, {"2026": {"gb200": 120.0}, "2027": {"b200": 10.0}}),
        row(1, {"gb200|tx|2026": 120.0}, {"2026": {"gb200": 120.0}}),
        row(2, {"gb200|tx|2026": 100.0}, {"2026": {"gb200": 100.0}, "2027": {"b200": 30.0}}),
        {"task_id": 3, "label": "sample 3", "status": "no plan"},
    ]
    table = purchases_by_year(rows).set_index(["year", "hardware"])
    assert table.loc[(2026, "gb200"), "share_of_runs"] == 1.0
    assert table.loc[(2026, "gb200"), "units_p50"] == 120.0
    assert table.loc[(2027, "b200"), "runs_buying"] == 2
    assert table.loc[(2027, "b200"), "units_mean"] == pytest.approx(40 / 3)
    plans = first_year_plans(rows)
    assert plans["plan"].tolist() == ["gb200 × 120", "gb200 × 100"]
    assert plans["share_of_runs"].tolist() == pytest.approx([2 / 3, 1 / 3])


def test_a_shadowed_or_unreachable_varied_input_is_named() -> None:
    """baseline's Texas site sets its own electricity price: the finance default is inert."""
    baseline = load_scenario(SHIPPED / "baseline.yaml")
    found = inert_inputs(baseline, [parse_vary("finance.electricity_usd_per_kwh=0.05,0.09")])
    assert len(found) == 1 and found[0].path == "finance.electricity_usd_per_kwh"
    assert "every site sets its own" in found[0].message
    assert found[0].hint == "vary sites[texas].electricity_usd_per_kwh (one site) instead"
    assert inert_inputs(baseline, [parse_vary("sites[texas].electricity_usd_per_kwh=0.05")]) == []
    penalties = inert_inputs(baseline, [parse_vary("penalties.unmet_inference_usd_per_mtok=1,2")])
    assert "does not change the plan" in penalties[0].message
    switch = load_scenario(HAND / "power_switch.yaml")  # its site leaves the price to finance
    assert inert_inputs(switch, [parse_vary("finance.electricity_usd_per_kwh=0.05")]) == []


def test_the_readme_spec_and_help_examples_vary_only_inputs_that_reach_baseline(
    tmp_path: Path,
) -> None:
    """The spec of docs/concepts/analysis.md and the help texts' examples must not vary
    a shadowed input."""
    from planner.analysis.params import read_spec
    from planner.cli import analysis_cmds

    readme = (SHIPPED.parent / "docs" / "concepts" / "analysis.md").read_text()
    block = readme.split("A spec file (`--spec`)", 1)[1].split("```yaml", 1)[1].split("```")[0]
    (tmp_path / "spec.yaml").write_text(block)
    spec = read_spec(tmp_path / "spec.yaml")
    baseline = load_scenario(SHIPPED / "baseline.yaml")
    assert inert_inputs(baseline, spec.parameters) == []
    helps = " ".join(c.help or "" for c in (analysis_cmds.sweep, analysis_cmds.montecarlo))
    assert "finance.electricity_usd_per_kwh" not in helps
    assert "finance.electricity_usd_per_kwh" not in readme.split("```bash", 2)[1].split("```")[0]


def test_first_year_buys_are_the_orders_placed_that_year() -> None:
    """With a lead time a 2026 order is delivered (keyed) in 2027: it is a 2026 decision,
    as FixedPurchases fixes it; a 2026 delivery ordered before the horizon is not."""
    import pandas as pd

    from planner.analysis.rows import _first_year_buys

    purchases = pd.DataFrame(
        {
            "period": ["2027", "2026Q3", "2027"],
            "year": [2027, 2026, 2027],
            "order_period": ["2026", "2026Q1", "2027"],
            "hardware": ["b200-hgx", "h100-hgx", "h100-hgx"],
            "site": ["dc", "dc", "dc"],
            "units": [4.0, 2.0, 3.0],
        }
    )
    assert _first_year_buys(purchases, 2026) == {"b200-hgx|dc|2027": 4.0, "h100-hgx|dc|2026Q3": 2.0}
    assert _first_year_buys(purchases.drop(columns="order_period"), 2026) == {
        "h100-hgx|dc|2026Q3": 2.0
    }
