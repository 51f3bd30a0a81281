"""The shipped frontier_lab scenario: solved once (about ten seconds), its plan holds under
the checker and the binding-limit agreement, serves its demand and finishes its run, its
headline names its price path, and the docs region quoting it is current."""

from __future__ import annotations

import pytest

from planner.docs_gen.examples import frontier_lab_plan
from planner.docs_gen.pages import OWN_TEST, REPO, stale
from planner.results import Plan
from planner.results.checker import check_plan
from tests.test_binding_agrees import assert_limits_agree


@pytest.fixture(scope="module")
def solved() -> Plan:
    return frontier_lab_plan()


def test_frontier_lab_passes_the_checker(solved: Plan) -> None:
    assert solved.status == "optimal"
    assert check_plan(solved) == []


def test_frontier_lab_limits_agree(solved: Plan) -> None:
    assert_limits_agree(solved)


def test_frontier_lab_serves_its_demand_and_builds_the_second_site(solved: Plan) -> None:
    head = solved.headline
    assert head["unmet_inference_tokens"] == 0.0 and head["unmet_training_flops"] == 0.0
    assert head["datacenter_capex_usd"] > 0  # the second site is built, not given
    run = solved.tables["training"].iloc[0]
    assert run["duration_days"] <= 90
    power = solved.tables["power"]
    built = power[power["site"] == "second"]["built_mw_it"]
    assert built.iloc[0] == 0 and built.max() > 0  # greenfield: nothing until built
    assert power[power["site"] == "campus"]["cap_mw"].max() == 1000


def test_frontier_lab_headline_names_its_price_path(solved: Plan) -> None:
    head = solved.headline
    assert head["price_convention"].startswith("prices: ")
    assert head["capex_usd_prices_held"] >= head["capex_usd"] > 0


def test_the_frontier_lab_region_is_current(solved: Plan) -> None:
    assert [str(p.relative_to(REPO)) for p in stale(REPO, OWN_TEST)] == []
