"""Path → value edits of a scenario (planner/scenario/variants.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario
from planner.scenario.variants import Change, apply_changes, prepare, whole_number

BASELINE = Path(__file__).resolve().parents[2] / "scenarios" / "baseline.yaml"
YEARS = list(range(2026, 2032))


def test_a_set_of_edits_gives_the_scenario_with_exactly_those_values() -> None:
    scenario = load_scenario(BASELINE)
    edits = [
        Change("sites[texas].power_cap_mw.2028", 250.0),
        Change("hardware[gb200-nvl72].price_usd", 3.0e6),
        Change("inference[0].cache_hit_rate", 0.7),
        Change("inference[chat].tokens_per_day", 2.0, multiplier=True),
        Change("sites[texas].pue", 1.3),
        Change("existing_fleet[0].units", 1.2, multiplier=True),
    ]
    doc, base = prepare(scenario, edits)
    assert base == {
        "sites[texas].power_cap_mw.2028": 200.0,
        "hardware[gb200-nvl72].price_usd": 3.4e6,  # the catalog price, written out
        "inference[0].cache_hit_rate": 0.5,
        "inference[chat].tokens_per_day": None,  # a whole series
        "sites[texas].pue": 1.25,  # finance.pue, the site's default
        "existing_fleet[0].units": 500.0,
    }
    assert Scenario.model_validate(doc) == scenario.model_copy(
        update={
            "sites": [scenario.sites[0].model_copy(update={"pue": 1.25})],
            "hardware": [
                h.model_copy(update={"price_usd": 3.4e6}) if h.id == "gb200-nvl72" else h
                for h in scenario.hardware
            ],
        }
    )
    variant = Scenario.model_validate(apply_changes(doc, edits, YEARS))
    # One year of a held series: the other years keep what hold-forward gave them.
    assert variant.sites[0].power_cap_mw == {
        2026: 60,
        2027: 120,
        2028: 250,
        2029: 200,
        2030: 400,
        2031: 400,
    }
    assert variant.hardware[3].price_usd == 3.0e6
    assert variant.inference[0].cache_hit_rate == 0.7
    assert variant.inference[0].tokens_per_day == {2026: 6.0e11, 2031: 3.0e13}
    assert variant.sites[0].pue == 1.3
    assert variant.existing_fleet[0].units == 600  # whole units stay whole
    assert whole_number(doc, "existing_fleet[0].units")
    assert not whole_number(doc, "sites[texas].power_cap_mw.2028")


def test_one_year_of_a_geometric_series_is_written_out_interpolated() -> None:
    scenario = load_scenario(BASELINE)
    doc, _ = prepare(scenario, [Change("inference[chat].tokens_per_day.2027", 0.0)])
    moved = apply_changes(doc, [Change("inference[chat].tokens_per_day.2027", 1.0e12)], YEARS)
    series = moved["inference"][0]["tokens_per_day"]
    growth = (1.5e13 / 3.0e11) ** (1 / 5)  # 2026 → 2031, constant rate
    assert series[2027] == 1.0e12
    assert series[2028] == pytest.approx(3.0e11 * growth**2, rel=1e-12)


def test_bad_paths_are_reported_together_with_the_chosen_prefix() -> None:
    scenario = load_scenario(BASELINE)
    with pytest.raises(InputError) as caught:
        prepare(
            scenario,
            [Change("finance.wac", 0.0), Change("sites[texas].power_cap_mw.2040", 0.0)],
            where="--marginal {path}",
        )
    problems = caught.value.problems
    assert [p.path for p in problems] == [
        "--marginal finance.wac",
        "--marginal sites[texas].power_cap_mw.2040",
    ]
    assert "did you mean 'wacc'" in problems[0].message
    assert problems[1].message == "2040 is outside the horizon 2026-2031"
