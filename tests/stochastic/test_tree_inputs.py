"""An ``uncertainty:`` tree that cannot be planned exits 2 naming the field; the shipped
example plans from the command line with every future checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

BASE = """\
name: tree
horizon: {start: 2026, years: 2}
sites: [{name: dc, power_cap_mw: 10}]
hardware: [{id: h100-hgx}]
models: [{id: llama-3.1-8b}]
inference: [{name: chat, model: llama-3.1-8b, tokens_per_day: 1.0e+10}]
uncertainty:
  first_stage_through: FIRST
  futures:
    - {name: a, probability: PA, set: {SET}}
    - {name: b, probability: 0.5}
"""


@pytest.mark.parametrize(
    ("first", "pa", "edit", "path", "words"),
    [
        ("2026", "0.4", "", "uncertainty.futures", "do not sum to 1"),
        ("2030", "0.5", "", "uncertainty.first_stage_through", "outside the horizon"),
        ("2026", "0.5", "horizon.years: 3", "uncertainty.futures[0].set.horizon.years", "may not"),
        (
            "2026",
            "0.5",
            "'inference[nochat].tokens_per_day': 1.0",
            "uncertainty.futures[0].set.inference[nochat].tokens_per_day",
            "nochat",
        ),
        (
            "2026",
            "0.5",
            "'inference[chat].tokens_per_day': -5.0",
            "uncertainty.futures[0]",
            "tokens_per_day",
        ),
    ],
)
def test_a_tree_that_cannot_be_planned_exits_2_naming_the_field(
    first: str, pa: str, edit: str, path: str, words: str, tmp_path: Path, run_cli
) -> None:
    file = tmp_path / "tree.yaml"
    text = BASE.replace("FIRST", first).replace("PA", pa).replace("SET", edit)
    file.write_text(text, encoding="utf-8")
    for command in ("validate", "stochastic"):
        result = run_cli(command, file)
        assert result.code == 2, result.out + result.err
        shown = result.out + result.err
        assert path in shown and words in shown, shown
        assert "Traceback" not in shown


def test_a_scenario_without_a_tree_is_told_to_add_one(run_cli) -> None:
    result = run_cli("stochastic", REPO / "scenarios" / "baseline.yaml")
    assert result.code == 2 and "uncertainty" in result.err and "planner run" in result.err


def test_the_shipped_tree_plans_from_the_command_line(run_cli) -> None:
    """scenarios/stochastic_orders.yaml: four futures share 2026-2027's orders; each
    future's plan passes the checker, which reads the shared orders from its tables."""
    result = run_cli(
        "stochastic",
        REPO / "scenarios" / "stochastic_orders.yaml",
        "--no-values",
        "--format",
        "json",
    )
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert out["checker_problems"] == []
    head = out["headline"]
    assert head["futures"] == 4 and head["first_stage_through"] == 2027
    futures = {row["future"]: row for row in out["futures"]}
    assert set(futures) == {"low", "base", "high", "rubin-slips"}
    expected = sum(row["probability"] * row["npv_cost_usd"] for row in out["futures"])
    assert head["expected_npv_cost_usd"] == pytest.approx(expected, rel=1e-12)
    # more demand costs more, on the same first stage
    assert futures["low"]["npv_cost_usd"] < futures["base"]["npv_cost_usd"]
    assert futures["base"]["npv_cost_usd"] < futures["high"]["npv_cost_usd"]
    assert head["cvar_npv_cost_usd"] == pytest.approx(futures["high"]["npv_cost_usd"])
    assert any(row["decision"] == "buy" for row in out["first_stage"])


def test_a_datacenter_block_is_first_stage_when_it_is_paid() -> None:
    """A block that powers on in 2027 after a year's build is paid, so decided, in 2026:
    it belongs to a first stage through 2026 (as an order does by its order period)."""
    from planner.optimize import build_data
    from planner.optimize.rows import build_rows
    from planner.pipeline import throughput
    from planner.scenario import load_scenario
    from planner.stochastic.equivalent import first_stage

    scenario = load_scenario(REPO / "tests" / "scenarios" / "datacenter_build.yaml")
    data = build_data(scenario, *throughput(scenario))
    keys = first_stage(data, build_rows(data), 2026)
    blocks = [key for family, key in keys if family == "dc_build"]
    assert blocks and all(data.dc_build_paid_period[key] == 2026 for key in blocks)
    assert all(key[-1] == 2027 for key in blocks)  # powered on a year later


def test_a_future_edits_a_value_the_scenario_inherits_from_the_catalog(tmp_path: Path) -> None:
    """h100-hgx's price comes from the catalog: a future scaling it by 1.2 prices it at
    1.2 × the catalog's, as a sweep of the same path would."""
    from planner.catalog import hardware_catalog
    from planner.scenario import load_scenario
    from planner.scenario.futures import future_scenarios

    file = tmp_path / "tree.yaml"
    text = BASE.replace("FIRST", "2026").replace("PA", "0.5").replace("SET", "")
    text = text.replace(
        "{name: a, probability: 0.5, set: {}}",
        "{name: a, probability: 0.5, scale: {'hardware[h100-hgx].price_usd': 1.2}}",
    )
    file.write_text(text, encoding="utf-8")
    (_, dearer), (_, same) = future_scenarios(load_scenario(file))
    catalog = hardware_catalog()["h100-hgx"].price_usd
    assert dearer.hardware[0].price_usd == pytest.approx(1.2 * catalog)
    assert same.hardware[0].price_usd is None
