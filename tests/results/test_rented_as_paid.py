"""Rented capacity is priced as paid: committed units at the committed rate, never at
the on-demand one, in the $/Mtok table, the utilisation table and ``compare``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from planner.analysis.compare import compare
from planner.pipeline import plan
from planner.results.checker import check_plan
from planner.results.comparison import Solved
from planner.scenario import load_scenario
from planner.units import MTOK, RENTED

ON_DEMAND, COMMITTED = 2.70, 1.22  # USD per chip-hour
CHIPS = 256  # tpu-v6e-pod256: one unit is a 256-chip pod
HOURS = 8760
TOKENS_PER_DAY = 2.0e11

TPU_RENT_ONLY = {
    "name": "tpu-committed",
    "horizon": {"start": 2026, "years": 2},
    "finance": {"wacc": 0.10, "availability": 1.0, "network_and_storage": False},
    "sites": [{"name": "dc", "power_cap_mw": 10}],
    "rental": [
        {
            "hardware": "tpu-v6e-pod256",
            "usd_per_accelerator_hour": ON_DEMAND,
            "commitments": [{"term_years": 3, "usd_per_accelerator_hour": COMMITTED}],
        }
    ],
    "models": [{"id": "llama-3.1-8b"}],
    "inference": [
        {
            "name": "chat",
            "model": "llama-3.1-8b",
            "tokens_per_day": TOKENS_PER_DAY,
            "slo_tokens_per_s_per_user": 50,
            "peak_to_average": 1.0,
        }
    ],
    "solver": {"mip_gap": 0.0, "time_limit_s": 30},
}


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Solved:
    path = Path(tmp_path_factory.mktemp("tpu")) / "tpu.yaml"
    path.write_text(yaml.safe_dump(TPU_RENT_ONLY))
    scenario = load_scenario(path)
    return Solved("tpu", path, scenario, plan(scenario))


def test_committed_tpu_is_charged_the_committed_rate(solved: Solved) -> None:
    """Demand is steady, so the 3-year commitment carries it all: each year's $/Mtok is
    the committed pods × 256 chips × 8,760 h × $1.22 over the Mtok served (365.25 days ×
    2e11 tokens), not the $2.70 on-demand rate."""
    t = solved.plan.tables
    assert t["rentals"]["units"].sum() == pytest.approx(0.0, abs=1e-9)
    pods = t["commitments"].set_index("period")["units"]
    served_mtok = TOKENS_PER_DAY * 365.25 / MTOK
    for row in t["usd_per_mtok"].itertuples(index=False):
        by_hand = pods[row.period] * CHIPS * HOURS * COMMITTED / served_mtok
        assert row.served_mtok == pytest.approx(served_mtok, rel=1e-9)
        assert row.usd_per_mtok == pytest.approx(by_hand, rel=1e-9)
        assert row.usd_per_mtok < by_hand * ON_DEMAND / COMMITTED / 2  # far from on-demand


def test_rent_only_cost_per_mtok_is_cash_cost_per_served_mtok(solved: Solved) -> None:
    t = solved.plan.tables
    costs = t["costs"].groupby("period")["usd"].sum()
    for row in t["usd_per_mtok"].itertuples(index=False):
        assert row.cost_usd == pytest.approx(costs[row.period], rel=1e-9)
        assert row.rented_cost_usd == pytest.approx(row.cost_usd, rel=1e-12)
    assert check_plan(solved.plan) == []


def test_committed_units_are_rented_units_at_work(solved: Solved) -> None:
    util = solved.plan.tables["utilisation"]
    rented = util[util["site"] == RENTED]
    pods = solved.plan.tables["commitments"].set_index("period")["units"]
    assert list(rented["units"]) == pytest.approx(list(pods[rented["period"]]))
    assert list(rented["utilisation"]) == pytest.approx([1.0] * len(rented))


def test_compare_shows_the_commitment_row(solved: Solved) -> None:
    costs = compare([solved]).costs.set_index("category")["tpu"]
    paid = float(solved.plan.tables["costs"].query("category == 'commitment'")["usd_pv"].sum())
    assert paid > 0
    assert costs["commitment"] == pytest.approx(paid)
    assert costs["total excl. penalties"] == pytest.approx(solved.plan.headline["npv_cost_usd"])


def test_checker_catches_rented_work_charged_on_demand(solved: Solved) -> None:
    """The checker recomputes the rented charge: the on-demand price shows up."""
    t = dict(solved.plan.tables)
    per_mtok = t["usd_per_mtok"].copy()
    per_mtok["rented_cost_usd"] *= ON_DEMAND / COMMITTED
    t["usd_per_mtok"] = per_mtok
    broken = type(solved.plan)(**{**solved.plan.__dict__, "tables": t})
    assert any("charges rented units" in p for p in check_plan(broken))
