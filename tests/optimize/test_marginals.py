"""``--marginal`` re-solves (planner/marginals.py): edits and perf tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.perf.training import training_table
from planner.pipeline import plan, throughput
from planner.scenario import load_scenario, paths
from planner.scenario.schema import Scenario

HAND = Path(__file__).resolve().parents[1] / "scenarios"


def _with_availability(scenario: Scenario, availability: float) -> Scenario:
    doc = scenario.model_dump(mode="python")
    return Scenario.model_validate(paths.set_value(doc, "finance.availability", availability))


def test_availability_sets_the_training_cluster() -> None:
    """Hand calculation in availability_cluster.yaml: 5 units at 0.95, 6 at 0.9405."""
    scenario = load_scenario(HAND / "availability_cluster.yaml")
    assert training_table(scenario)["cluster_units"].tolist() == [5]
    assert training_table(_with_availability(scenario, 0.9405))["cluster_units"].tolist() == [6]


def test_availability_marginal_recomputes_the_perf_tables() -> None:
    """The down move of finance.availability is the re-solve of the moved scenario with its
    own throughput tables, not with the base scenario's (which would be 212 USD cheaper)."""
    scenario = load_scenario(HAND / "availability_cluster.yaml")
    result = plan(scenario, relax=True, marginals=["finance.availability"])
    row = result.tables["marginals"].iloc[0]
    assert row["current"] == 0.95 and row["step"] == pytest.approx(0.0095)
    moved = _with_availability(scenario, 0.95 - 0.0095)
    fresh = plan(moved, relax=True).headline["objective_usd"]
    stale = plan(moved, relax=True, tables=throughput(scenario)).headline["objective_usd"]
    assert fresh - stale > 100.0  # the check can tell the two apart
    assert row["objective_down_usd"] == pytest.approx(fresh, rel=1e-9)
    up = plan(_with_availability(scenario, 0.95 + 0.0095), relax=True)
    assert row["objective_up_usd"] == pytest.approx(up.headline["objective_usd"], rel=1e-9)


def test_marginal_of_a_site_field_left_to_the_finance_default() -> None:
    """sites[dc].pue is unset (finance.pue 1.25 applies): the marginal moves it from 1.25."""
    scenario = load_scenario(HAND / "power_switch.yaml")
    assert scenario.sites[0].pue is None
    row = plan(scenario, marginals=["sites[dc].pue"]).tables["marginals"].iloc[0]
    assert row["current"] == 1.25 and row["step"] == pytest.approx(0.0125)
