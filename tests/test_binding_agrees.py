"""One definition of a binding limit: the Power/Budget/Supply tables, the diagnosis and
the shadow prices agree on every shipped and test scenario."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from planner.pipeline import plan
from planner.results import Plan
from planner.results.diagnosis import _years
from planner.results.limits import binds
from planner.scenario import load_scenario
from tests.conftest import OWN_MODULE

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = [
    p for p in sorted((ROOT / "scenarios").glob("*.yaml")) if p.stem not in OWN_MODULE
] + sorted((ROOT / "tests" / "scenarios").glob("*.yaml"))
NONZERO_USD = 1e-3
"""A shadow price (USD) above this is a non-zero dual (planner.results.limits.DUAL_ZERO
in USD millions)."""


@cache
def solved(path: Path) -> Plan:
    return plan(load_scenario(path))


def test_binds_is_slack_under_one_unit_or_a_nonzero_dual() -> None:
    assert binds(0.18, 1.2)  # 0.18 MW left, one rack needs 1.2 MW
    assert not binds(2.0, 1.2)
    assert binds(2.0, 1.2, dual=-0.5)  # room left, but the LP prices it
    assert not binds(2.0, 1.2, dual=1e-12)
    assert binds(5.5e6, 3.0e6 + 0.1) is False and binds(5.5e6, 5.6e6)  # budget vs a rack


def test_a_budget_with_less_left_than_one_unit_binds() -> None:
    # budget_shortfall.yaml: $600,000 buys 2 h100-hgx at $280,000; $40,000 is left.
    budget = solved(ROOT / "tests" / "scenarios" / "budget_shortfall.yaml").tables["budget"]
    assert budget["slack_usd"].tolist() == [pytest.approx(40_000)]
    assert budget["binding"].tolist() == [True]


def _sentence(plan_: Plan, start: str) -> list[str]:
    return [s for s in plan_.diagnosis if s.startswith(start)]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_tables_diagnosis_and_shadow_prices_agree(path: Path) -> None:
    assert_limits_agree(solved(path))


def assert_limits_agree(result: Plan) -> None:
    """The binding flags of the Power, Budget and Supply tables, the diagnosis's
    sentences and the non-zero LP shadow prices name the same limits."""
    t = result.tables
    periods = t["periods"]
    shadow = t["shadow_prices"]
    lp = shadow[shadow["method"] == "LP relaxation"]
    keys = {"power": "site", "budget": None, "supply": "hardware"}
    for limit, subject in keys.items():
        table = t[limit]
        flagged = {
            (str(r["period"]), r[subject] if subject else "capex")
            for _, r in table.iterrows()
            if bool(r["binding"])
        }
        priced = {
            (str(r["period"]), r["subject"])
            for _, r in lp[lp["limit"] == limit].iterrows()
            if abs(r["value"]) > NONZERO_USD
        }
        assert priced <= flagged, f"{limit}: a non-zero shadow price on a non-binding limit"
        by_subject: dict[str, list[str]] = {}
        for period, name in flagged:
            by_subject.setdefault(name, []).append(period)
        for name, when in by_subject.items():
            years = _years(when, periods)
            start = {
                "power": f"Power binds at {name} in {years}",
                "budget": f"The capex budget binds in {years}",
                "supply": f"The supply cap of {name} binds in {years}.",
            }[limit]
            assert len(_sentence(result, start)) == 1, (limit, name, result.diagnosis)
        opening = {
            "power": "Power binds at",
            "budget": "The capex budget binds",
            "supply": "The supply cap of",
        }
        assert len(_sentence(result, opening[limit])) == len(by_subject), result.diagnosis


def test_shipped_power_constrained_binds_where_it_is_priced() -> None:
    power = solved(ROOT / "scenarios" / "power_constrained.yaml").tables["power"]
    binding = power[power["binding"].astype(bool)]
    assert binding["period"].tolist() == ["2029", "2030", "2031"]
    assert binding["slack_mw"].max() < 1.0  # under one rack's facility MW
