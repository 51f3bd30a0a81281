"""Shadow prices in one convention: positive = saved per +1 of a limit, cost per +1 of
demand; LP rows and finite-difference rows (``--marginal``) carry the same sign."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.marginals import is_demand
from planner.pipeline import plan
from planner.scenario import load_scenario

HAND = Path(__file__).resolve().parents[1] / "scenarios"


def test_demand_paths_are_told_from_limits() -> None:
    assert is_demand("inference[chat].tokens_per_day.2028")
    assert is_demand("training[pretrain].flops")
    assert not is_demand("sites[texas].power_cap_mw.2028")
    assert not is_demand("hardware[h100-hgx].price_usd")


def test_lp_and_finite_difference_of_demand_agree_in_sign_and_size() -> None:
    """one_hardware_one_year relaxed: +1 token/day of chat costs the LP demand row's
    value per Mtok/day, divided by 10⁶; both positive (cost per +1 of demand)."""
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    result = plan(scenario, relax=True, marginals=["inference[chat].tokens_per_day.2026"])
    shadow = result.tables["shadow_prices"]
    lp = shadow[(shadow["limit"] == "demand") & (shadow["method"] == "LP relaxation")]
    fd = shadow[shadow["limit"] == "marginal"]
    lp_value, fd_value = float(lp["value"].iloc[0]), float(fd["value"].iloc[0])
    assert lp_value > 0 and fd_value > 0
    assert fd_value * 1e6 == pytest.approx(lp_value, rel=1e-6)
    assert fd["unit"].iloc[0] == "cost per +1 of the value"
    assert lp["unit"].iloc[0] == "cost per Mtok/day"


def test_lp_and_finite_difference_of_a_binding_budget_agree_in_sign() -> None:
    """budget_shortfall relaxed: +1 USD of budget serves more of the unmet demand, which
    saves penalty: both rows positive, the same size."""
    scenario = load_scenario(HAND / "budget_shortfall.yaml")
    result = plan(scenario, relax=True, marginals=["budget.capex_usd.2026"])
    shadow = result.tables["shadow_prices"]
    lp = shadow[shadow["limit"] == "budget"]
    fd = shadow[shadow["limit"] == "marginal"]
    lp_value, fd_value = float(lp["value"].iloc[0]), float(fd["value"].iloc[0])
    assert lp_value > 1 and fd_value > 1
    assert fd_value == pytest.approx(lp_value, rel=1e-6)
    assert lp["unit"].iloc[0].startswith("saved per USD of budget")
    # both set by the penalty (demand is left unmet in 2026), and both say so
    assert fd["unit"].iloc[0] == "saved per +1 of the value (set by the notional penalty)"
    assert lp["unit"].iloc[0].endswith("(set by the notional penalty)")
