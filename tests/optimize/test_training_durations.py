"""Training runs with a duration: a fixed cluster from a menu of sizes, for its whole time."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import yaml

from planner import api
from planner.catalog import hardware_catalog, model_catalog
from planner.perf.training_menu import run_menu, year_fraction
from planner.results.checker import check_plan
from planner.scenario.schema import TrainingRun

SCENARIOS = Path(__file__).parents[1] / "scenarios"
LLAMA = SCENARIOS / "llama_405b_duration.yaml"
# Meta Llama 3.1 model card (github.com/meta-llama/llama-models, July 2024): 405B took
# 30.84M H100-80GB GPU-hours; the Llama 3 paper (arXiv 2407.21783, 3.3) ran 16,384 H100s.
LLAMA_GPU_HOURS = 30.84e6


def test_year_fraction_by_hand() -> None:
    # 2026 has 365 days; 1 July is day 182, so 181 days have passed at its start.
    assert year_fraction(date(2026, 7, 1)) == pytest.approx(2026 + 181 / 365)
    assert year_fraction(date(2026, 12, 31), end_of_day=True) == 2027.0


def test_llama_405b_menu_starts_at_16384_gpus() -> None:
    """6 · 405e9 · 15.6e12 = 3.79e25 FLOP at 989 TFLOPS · 0.46 (stage MFU) · 0.876
    (scaling efficiency at 16,384 GPUs, 16M-token batches: TP8 PP16 DP128) and goodput
    0.904: 74.3 days; 8,192 GPUs would take ~140 days, over the 78 allowed."""
    run = TrainingRun(
        name="l", model="llama-3.1-405b", tokens=15.6e12, window=[2026, 2026], duration_days=78
    )
    menu = run_menu(run, hardware_catalog()["h100-hgx"], model_catalog()["llama-3.1-405b"])
    assert [m.accelerators for m in menu] == [16_384, 32_768, 65_536]
    assert menu[0].goodput == pytest.approx(0.904, abs=0.002)
    assert menu[0].days == pytest.approx(74.3, abs=0.1)
    # bigger: sooner, lower goodput
    assert [m.days for m in menu] == sorted(m.days for m in menu)[::-1]
    assert [m.goodput for m in menu] == sorted(m.goodput for m in menu)[::-1]


def test_llama_405b_plan_near_the_reported_run() -> None:
    plan = api.plan(api.load(LLAMA))
    row = plan.tables["training"].iloc[0]
    assert row["cluster_accelerators"] == 16_384
    assert row["start_date"] == "2026-01-01"
    assert row["accelerator_hours"] == pytest.approx(LLAMA_GPU_HOURS, rel=0.10)  # 29.2M: −5.3%
    assert row["unmet_flops"] == 0.0
    # a yearly period: 2,048 units for 74.3 of 365.25 days is 416.8 units on average
    units = plan.tables["assignment_training"]["units"].sum()
    assert units == pytest.approx(2048 * 74.3253 / 365.25, rel=1e-4)
    # ... but the fleet is constant inside the year, so the whole cluster must be bought
    # (availability 1 in this scenario), not its 420-unit average
    assert plan.tables["purchases"]["units"].sum() == 2048
    assert check_plan(plan) == []


def _deadline_case(earliest: str) -> dict:
    """Quarterly 2026, H100s at catalog price; a run of 4.4e22 FLOP due by 30 June.

    One 8-GPU unit does 8 · 989e12 · 0.40 · goodput (≈0.999) ≈ 3.16e15 FLOP/s: the run
    takes 161 days on 1 unit, 80.5 on 2, 40.3 on 4. From 1 January (181 days to the
    deadline) the single unit fits and is cheapest (one unit bought, not two). From
    1 April (91 days) only 2 or 4 units finish in time: the 2-unit cluster is chosen.
    """
    return {
        "name": "deadline",
        "horizon": {"start": 2026, "years": 1, "periods_per_year": 4},
        "finance": {"wacc": 0.1, "pue": 1.25, "electricity_usd_per_kwh": 0.07, "availability": 1.0},
        "sites": [{"name": "dc", "power_cap_mw": 10}],
        "hardware": [{"id": "h100-hgx"}],
        "models": [{"id": "llama-3.1-8b"}],
        "training": [
            {
                "name": "run",
                "model": "llama-3.1-8b",
                "tokens": 1e12,
                "flops": 4.4e22,
                "duration_days": (date(2026, 6, 30) - date.fromisoformat(earliest)).days + 1,
                "earliest_start": earliest,
                "deadline": "2026-06-30",
            }
        ],
        "solver": {"mip_gap": 0.0, "time_limit_s": 30},
    }


@pytest.mark.parametrize(
    ("earliest", "units", "bought"), [("2026-01-01", 1, 1), ("2026-04-01", 2, 2)]
)
def test_deadline_chooses_small_or_big_cluster(earliest: str, units: int, bought: int) -> None:
    plan = api.plan(api.load(_deadline_case(earliest)))
    row = plan.tables["training"].iloc[0]
    assert row["cluster_units"] == units
    assert earliest <= row["start_date"] <= "2026-04-02"  # 2026Q2 starts at 2026.25
    assert row["end_date"] <= "2026-06-30"
    assert plan.tables["purchases"]["units"].sum() == bought
    assert check_plan(plan) == []


def test_checker_sees_a_resized_cluster() -> None:
    plan = api.plan(api.load(_deadline_case("2026-01-01")))
    work = plan.tables["assignment_training"]
    work.loc[work.index[0], "units"] *= 0.5
    assert any("occupies" in p for p in check_plan(plan))


def test_checker_sees_a_cluster_bigger_than_the_fleet() -> None:
    """Llama's 2,048-unit cluster on a fleet cut to the 420-unit yearly average (the
    unit-years would fit, the cluster would not)."""
    plan = api.plan(api.load(LLAMA))
    assert check_plan(plan) == []
    fleet = plan.tables["fleet"]
    fleet.loc[fleet.index[0], "units"] = 420.0
    assert any("a cluster of 2048 units" in p for p in check_plan(plan))


def test_model_size_with_a_duration() -> None:
    """Quarterly case from 1 January, deadline 30 June (2026.4959): 1 unit (161 days =
    0.441 years) fits only from Q1 (2026.0); 2 units (0.220 y) and 4 units (0.110 y) also
    from Q2 (2026.25): 5 binaries, Q3 and Q4 outside the span."""
    from planner.optimize.data import build_data
    from planner.optimize.model import build_model, model_size
    from planner.pipeline import throughput

    scenario = api.load(_deadline_case("2026-01-01"))
    data = build_data(scenario, *throughput(scenario))
    assert len(data.train_menu_index) == 5
    assert data.train_index == tuple(("run", "h100-hgx", "dc", f"2026Q{q}") for q in (1, 2))
    size = model_size(build_model(data))
    assert size["constraints"] > 0


def _bad(tmp_path: Path, **changes: object) -> Path:
    doc = yaml.safe_load(LLAMA.read_text(encoding="utf-8"))
    doc["training"][0].update(changes)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("changes", "where"),
    [
        ({"duration_days": 400}, "training[0].duration_days"),
        (
            {"earliest_start": "2026-09-01", "deadline": "2026-03-01"},
            "training[0].earliest_start",
        ),
        ({"deadline": "2026-02-01"}, "training[0].duration_days"),
        ({"duration_days": None, "deadline": "2026-06-01"}, "training[0].deadline"),
    ],
)
def test_bad_durations_exit_2_with_the_path(tmp_path: Path, run_cli, changes, where) -> None:
    result = run_cli("run", _bad(tmp_path, **changes))
    assert result.code == 2, result.err
    assert where in result.err


def test_lp_first_rounds_to_one_size_and_start() -> None:
    """Rounding the LP picks one (size, start) per chosen cluster: the same plan."""
    case = _deadline_case("2026-04-01")
    case["solver"]["strategy"] = "lp-first"
    plan = api.plan(api.load(case))
    assert plan.tables["training"].iloc[0]["cluster_units"] == 2
    assert check_plan(plan) == []
