"""The independent checker holds on every shipped and test scenario, and catches tampering."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from planner.pipeline import plan
from planner.results import Plan
from planner.results.checker import check_plan
from planner.results.diagnosis import money
from planner.results.shadow import PENALTY_PRICED
from planner.results.shortfall import (
    NOTIONAL,
    NOTIONAL_NOTE,
    lost_revenue_by_period,
    shortfall_line,
)
from planner.scenario import load_scenario
from tests.conftest import OWN_MODULE

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = [
    p for p in sorted((ROOT / "scenarios").glob("*.yaml")) if p.stem not in OWN_MODULE
] + sorted((ROOT / "tests" / "scenarios").glob("*.yaml"))


@pytest.fixture(scope="module")
def plans() -> dict[str, Plan]:
    return {p.stem: plan(load_scenario(p)) for p in SCENARIOS}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_checker_finds_no_violation(path: Path, plans: dict[str, Plan]) -> None:
    assert check_plan(plans[path.stem]) == []


@pytest.mark.parametrize("name", ["baseline", "power_switch", "rental_spike", "disaggregated"])
def test_checker_holds_for_relaxed_plans(name: str) -> None:
    path = next(p for p in SCENARIOS if p.stem == name)
    assert check_plan(plan(load_scenario(path), relax=True)) == []


def _tampered(original: Plan, table: str, column: str, factor: float, row: int = 0) -> Plan:
    tables = dict(original.tables)
    frame = tables[table].copy()
    frame.loc[frame.index[row], column] = frame.loc[frame.index[row], column] * factor
    tables[table] = frame
    return replace(original, tables=tables)


# Each case tampers with one number of a solved plan and names exactly what the checker says.
# power_switch (hand solution in its file): 4 h100-hgx at $100,000 at site dc in 2026, energy
# $6,254.64 per unit-year, objective $2,321,031.11, chat peak 1.0e10 × 1.5 tokens/day in 2026
# served by 4 h100 at 44,431 tokens/s each (was 44,994 and $2,182,931.58 before decode steps
# paid per-layer launch and collective latency); training_one_type needs 9.636e23 FLOP of
# pretraining in 2026; budget_shortfall spends $560,000 of a $600,000 capex budget in 2026.
TAMPERED = [
    pytest.param(
        "power_switch",
        lambda p: _tampered(p, "purchases", "units", 2),  # 8 bought, the fleet still shows 4
        [
            "fleet shows 4.0 of the 8.0 h100-hgx bought in 2026 at dc in 2026",
            "2026 capex: table 400000 USD, recomputed 800000",
            "objective 2321031.11 USD ≠ recomputed present value 2721031.11",
        ],
        id="purchase-doubled",
    ),
    pytest.param(
        "power_switch",
        lambda p: _tampered(p, "assignment_inference", "units", 3),  # 3 × 3.9075 (demand/τ)
        ["2026: 11.7224 units of h100-hgx at dc assigned, 4 available"],
        id="over-assigned",
    ),
    pytest.param(
        "power_switch",
        lambda p: _tampered(p, "assignment_inference", "units", 0.5),  # half the peak
        ["2026: chat peak 1.5e+10 tokens/day, capacity 7.5e+09 + unmet 0"],
        id="under-served",
    ),
    pytest.param(
        "power_switch",
        lambda p: _tampered(p, "fleet", "energy_usd_per_unit_year", 0.5),  # 4 × $6,254.64
        [
            "2026 energy: table 25018.6 USD, recomputed 12509.3",
            "objective 2321031.11 USD ≠ recomputed present value 2308521.83",
        ],
        id="energy-halved",
    ),
    pytest.param(
        "power_switch",
        lambda p: replace(p, headline={**p.headline, "objective_usd": 1.0}),
        ["objective 1 USD ≠ recomputed present value 2321031.11"],
        id="objective-replaced",
    ),
    pytest.param(
        "training_one_type",
        lambda p: _tampered(p, "assignment_training", "units", 0.5),
        ["pretrain: 4.818e+23 FLOP done + 0 unmet < 9.636e+23 required"],
        id="training-halved",
    ),
    pytest.param(
        "budget_shortfall",
        lambda p: _tampered(p, "budget", "budget_usd", 0.1),
        ["2026: capex 560000 exceeds the budget 60000"],
        id="budget-cut",
    ),
    # contracted_power (hand solution in its file): 0.2 MW at $500/kW-year, $100,000 a
    # year; row 8 is 2026's power_contract line (after the fleet's eight categories).
    pytest.param(
        "contracted_power",
        lambda p: _tampered(p, "costs", "usd", 0.5, row=8),
        ["2026 power_contract: table 50000 USD, recomputed 100000"],
        id="contract-line-halved",
    ),
    pytest.param(
        "contracted_power",
        lambda p: replace(
            p, parameters={**p.parameters, "power_contract": [["dc", "2026", 250.0]]}
        ),
        [
            "2026 power_contract: table 100000 USD, recomputed 50000",
            "2027 power_contract: table 100000 USD, recomputed 0",
            "objective 867445.35 USD ≠ recomputed present value 726536.259",
        ],
        id="contract-rate-halved",
    ),
]


@pytest.mark.parametrize(("name", "tamper", "expected"), TAMPERED)
def test_checker_names_each_tampered_number(
    name: str, tamper: Callable[[Plan], Plan], expected: list[str], plans: dict[str, Plan]
) -> None:
    assert check_plan(tamper(plans[name])) == expected


MONEY_IN = re.compile(r"\$[\d.,]+[kMBT]? in (\S+?)(?=,|;|\)|$)")


def test_no_diagnosis_quotes_a_penalty_unlabelled(plans: dict[str, Plan]) -> None:
    """Across every shipped and test scenario: a $ value the notional penalty sets
    (a shadow price in a period with unmet demand) is quoted only with its label, and
    never where the shortfall there is priced; a priced shortfall under a binding limit
    is quoted as the revenue it loses."""
    unmet_plans = 0
    for name, solved in plans.items():
        shadow = solved.tables["shadow_prices"]
        penalty_set = {
            str(p)
            for p, meaning in zip(shadow["period"], shadow["meaning"].astype(str), strict=True)
            if meaning.endswith(PENALTY_PRICED)
        }
        lost = lost_revenue_by_period(solved.tables["revenue"])
        unmet_plans += bool(penalty_set)
        for sentence in solved.diagnosis:
            for period in MONEY_IN.findall(sentence):
                if period in penalty_set:
                    assert lost.get(period, 0.0) == 0.0, (name, sentence)
                    assert NOTIONAL_NOTE in sentence, (name, sentence)
            if "binds" in sentence and "not quoted" in sentence:
                assert "loses revenue of $" in sentence, (name, sentence)
        if solved.headline.get("lost_revenue_usd", 0.0) > 0 and any(
            "binds" in s and p in s for s in solved.diagnosis for p in penalty_set
        ):
            assert any("loses revenue of $" in s for s in solved.diagnosis), name
    assert unmet_plans >= 3  # the scan reads plans that leave demand unmet


def test_shipped_power_constrained_values_its_shortfall_as_lost_revenue(
    plans: dict[str, Plan],
) -> None:
    solved = plans["power_constrained"]
    power = next(s for s in solved.diagnosis if s.startswith("Power binds"))
    assert "loses revenue of $" in power and "worth" not in power
    line = shortfall_line(solved.headline, solved.parameters)
    assert line is not None and line.startswith("unmet demand valued as lost revenue")
    assert "penalty" not in line


def test_checker_flags_a_penalty_value_quoted_for_a_priced_shortfall(
    plans: dict[str, Plan],
) -> None:
    solved = plans["power_constrained"]
    shadow = solved.tables["shadow_prices"]
    row = shadow[(shadow["limit"] == "power") & shadow["meaning"].str.endswith(PENALTY_PRICED)]
    first = row.iloc[0]
    sentence = (
        f"Power binds at {first['subject']} in {first['period']} (LP relaxation: +1 MW worth "
        f"{money(first['value_in_year_usd'])} in {first['period']})."
    )
    tampered = replace(solved, diagnosis=[sentence])
    assert any("where the shortfall is priced" in p for p in check_plan(tampered))


def test_unpriced_shortfall_names_the_notional_penalty() -> None:
    headline = {"unmet_inference_tokens": 1e12, "unmet_training_flops": 0.0}
    headline |= {"priced_work": False, "penalties_usd_pv": 2.5e9}
    line = shortfall_line(headline, {"penalty_usd_per_mtok": 1000, "penalty_usd_per_pflop": 5})
    assert line is not None and line.startswith(NOTIONAL)
    assert "$2,500,000,000 PV at $1,000/Mtok" in line
    assert shortfall_line(headline | {"unmet_inference_tokens": 0.0}, {}) is None
