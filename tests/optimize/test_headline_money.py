"""The headline's undiscounted cost gross, with the residual credit on its own; and
``--marginal`` of a hardware field named by its id."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.pipeline import plan
from planner.scenario import load_scenario

HAND = Path(__file__).resolve().parents[1] / "scenarios"
RUNNING = 10.2 * 1.25 * 0.8 * 8760 * 0.07 + 10.2 * 1500 + 0.03 * 280_000


def test_undiscounted_cost_is_gross_with_the_residual_credit_apart() -> None:
    """one_hardware_one_year: 4 h100-hgx bought in 2026 for one year; the residual
    credit is 4/5 of the price (undiscounted)."""
    h = plan(load_scenario(HAND / "one_hardware_one_year.yaml")).headline
    assert h["undiscounted_gross_cost_usd"] == pytest.approx(4 * (280_000 + RUNNING), rel=1e-9)
    assert h["residual_credit_usd"] == pytest.approx(4 * 280_000 * 4 / 5, rel=1e-9)
    assert h["undiscounted_cost_usd"] == pytest.approx(
        h["undiscounted_gross_cost_usd"] - h["residual_credit_usd"], rel=1e-12
    )


def test_a_marginal_names_hardware_by_its_id() -> None:
    """+1 USD on the h100-hgx price costs each of the 4 units 1 USD, 3% maintenance and
    less 0.8 / 1.1 of residual: the cost saved is −4 × (1.03 − 0.8 / 1.1)."""
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    by_id = plan(scenario, marginals=["hardware[h100-hgx].price_usd"])
    by_index = plan(scenario, marginals=["hardware[0].price_usd"])
    value = [
        float(p.tables["shadow_prices"].query("limit == 'marginal'")["value"].iloc[0])
        for p in (by_id, by_index)
    ]
    assert value[0] == pytest.approx(-4 * (1.03 - 0.8 / 1.1), rel=1e-9)
    assert value[0] == value[1]
