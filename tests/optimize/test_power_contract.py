"""Contracted power (``power_cost: contracted``): the whole cap is paid every period.

tests/scenarios/contracted_power.yaml, by hand: a 0.2 MW cap at $500 per kW of
facility cap a year costs 0.2 × 1,000 × 500 = $100,000 in 2026 and in 2027; at a wacc
of 10% booked at each year's start its present value is 100,000 + 100,000 / 1.1 =
$190,909.09. The 4 h100-hgx the demand needs (51 kW of the 200 kW) carry no facility
cost there; under ``installed`` they would pay 4 × 10.2 kW × $1,500 = $61,200 a year,
present value 61,200 × (1 + 1/1.1) = $116,836.36. With no rate given the contract is
the facility rate ÷ PUE, 1,500 / 1.25 = $1,200 per kW of cap: $240,000 a year.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.errors import InputError
from planner.optimize import build_data, build_model
from planner.optimize.rows import build_rows
from planner.optimize.solvers.handoff import model_arrays
from planner.pipeline import plan, throughput
from planner.results import Plan
from planner.scenario import load_scenario
from planner.units import USD_SCALE

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "tests" / "scenarios" / "contracted_power.yaml"
CONTRACT_PV = 100_000 + 100_000 / 1.1
FACILITY_PV = 4 * 10.2 * 1_500 * (1 + 1 / 1.1)


def _variant(tmp_path: Path, **site: Any) -> Path:
    """The scenario with its one site's keys replaced (``None`` drops a key)."""
    raw = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    raw["sites"][0].update(site)
    raw["sites"][0] = {k: v for k, v in raw["sites"][0].items() if v is not None}
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


def _contract_lines(p: Plan) -> dict[str, tuple[float, float]]:
    costs = p.tables["costs"]
    lines = costs[costs["category"] == "power_contract"]
    return {str(r.period): (r.usd, r.usd_pv) for r in lines.itertuples(index=False)}


@pytest.fixture(scope="module")
def contracted() -> Plan:
    return plan(load_scenario(SCENARIO))


def test_the_contract_is_paid_on_the_whole_cap_each_year(contracted: Plan) -> None:
    lines = _contract_lines(contracted)
    assert lines["2026"] == pytest.approx((100_000.0, 100_000.0))
    assert lines["2027"] == pytest.approx((100_000.0, 100_000.0 / 1.1))
    assert sum(pv for _, pv in lines.values()) == pytest.approx(CONTRACT_PV)
    fleet = contracted.tables["fleet"]
    assert fleet["units"].sum() == 8  # 4 units in each year, 51 kW of the 200 kW
    assert fleet["facility_usd"].sum() == 0.0  # the contract replaces the facility rate


def test_npv_is_the_installed_plans_less_its_facility_plus_the_contract(
    contracted: Plan, tmp_path: Path
) -> None:
    installed = plan(
        load_scenario(_variant(tmp_path, power_cost=None, contract_usd_per_kw_year=None))
    )
    costs = installed.tables["costs"]
    facility = costs.loc[costs["category"] == "facility", "usd_pv"].sum()
    assert facility == pytest.approx(FACILITY_PV)
    assert "power_contract" not in set(costs["category"])
    expected = installed.headline["npv_cost_usd"] - FACILITY_PV + CONTRACT_PV
    assert contracted.headline["npv_cost_usd"] == pytest.approx(expected, rel=1e-9)
    # the contract is in the objective the solver reports, and in its bound
    assert contracted.headline["objective_usd"] == pytest.approx(expected, rel=1e-9)
    assert contracted.headline["best_bound_usd"] == pytest.approx(expected, rel=1e-9)


def test_without_a_rate_the_contract_is_the_facility_rate_over_pue(tmp_path: Path) -> None:
    p = plan(load_scenario(_variant(tmp_path, contract_usd_per_kw_year=None)))
    lines = _contract_lines(p)
    assert lines["2026"][0] == pytest.approx(0.2 * 1_000 * 1_500 / 1.25)  # $240,000
    assert lines["2027"][0] == pytest.approx(240_000.0)


def test_both_models_carry_the_contract_as_the_objectives_constant() -> None:
    scenario = load_scenario(SCENARIO)
    data = build_data(scenario, *throughput(scenario))
    handed = model_arrays(build_model(data))
    built = build_rows(data)
    assert handed.offset == pytest.approx(CONTRACT_PV / USD_SCALE, rel=1e-12)
    assert built.arrays().offset == handed.offset
    assert built.arrays("npv").offset == handed.offset
    assert built.arrays("service").offset == 0.0


@pytest.mark.parametrize(
    ("site", "path", "words"),
    [
        ({"contract_usd_per_kw_year": -5}, "sites[0].contract_usd_per_kw_year", ""),
        (
            {"contract_usd_per_kw_year": {2026: 500, 2027: -1}},
            "sites[0].contract_usd_per_kw_year",
            "",
        ),
        ({"power_cost": "take_or_pay"}, "sites[0].power_cost", ""),
        ({"power_cost": None}, "sites[0]", "power_cost: contracted"),
        (
            {"lease": {}},
            "sites[0]",
            "builds or leases",
        ),
    ],
    ids=["negative", "negative-in-a-year", "unknown-kind", "rate-without-contract", "lease"],
)
def test_bad_contract_input_is_refused_with_its_path(
    tmp_path: Path, site: dict[str, Any], path: str, words: str
) -> None:
    with pytest.raises(InputError) as refused:
        load_scenario(_variant(tmp_path, **site))
    assert refused.value.exit_code == 2
    problems = refused.value.problems
    assert any(p.path.startswith(path) for p in problems), [p.path for p in problems]
    assert words in str(refused.value)
