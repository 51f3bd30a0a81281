"""What lifting each binding limit would serve (planner.relief), the diagnosis that reads
it, and the checker that reads every diagnosis sentence back against the tables."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from planner.deadline import Deadline
from planner.economics import facility_mw_per_unit
from planner.optimize import build_data
from planner.optimize.objective import CostWithServiceHeld, ServiceFirst, service_scale
from planner.pipeline import build_and_solve, plan, solver_options, throughput
from planner.relief import MIN_SECONDS_LEFT, relief_tables
from planner.results import Plan
from planner.results.checker import check_plan
from planner.results.diagnosis import with_relief
from planner.results.diagnosis_check import check_diagnosis
from planner.results.limits import binds, vendor_unit
from planner.results.relief_text import NO_ESTIMATES
from planner.scenario import Scenario, load_scenario
from planner.units import NO_CALIBRATION

ROOT = Path(__file__).resolve().parents[1]
BUDGET = ROOT / "tests" / "scenarios" / "budget_shortfall.yaml"
POWER = ROOT / "scenarios" / "power_constrained.yaml"
PRICE_H100 = 280_000.0
BUDGET_USD = 600_000.0


@pytest.fixture(scope="module")
def budget_plan() -> Plan:
    return plan(load_scenario(BUDGET))


def _power_scenario() -> Scenario:
    """power_constrained under the built-in efficiency priors: the plan these tests take
    apart (with the shipped calibration the shortfall starts in 2029 and no supply cap
    binds in the MILP plan)."""
    return load_scenario(POWER).model_copy(update={"calibration": NO_CALIBRATION})


@pytest.fixture(scope="module")
def power_plan() -> Plan:
    return plan(_power_scenario())


def _row(frame: pd.DataFrame, **match: object) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for column, value in match.items():
        mask &= frame[column] == value
    rows = frame[mask]
    assert len(rows) == 1, (match, frame)
    return rows.iloc[0]


def test_lifting_the_budget_buys_the_missing_units_by_hand(budget_plan: Plan) -> None:
    # Peak 1.0e10 × 1.5 / 86,400 tokens/s on h100-hgx at tau tokens/s each (availability
    # 1): the LP with the budget lifted buys peak/tau units, $280,000 each, and serves all.
    tau = float(budget_plan.inference_throughput["output_tokens_per_s_per_unit"].iloc[0])
    peak = 1.0e10 * 1.5 / 86_400.0
    t = budget_plan.tables
    lifted = _row(t["relief_use"], relief="the capex budget", limit="budget")
    assert lifted["lp_extra"] == pytest.approx(PRICE_H100 * peak / tau - BUDGET_USD, rel=1e-6)
    assert bool(lifted["lifted"]) and lifted["unit"] == "USD"
    served = t["relief_served"]
    assert _row(served, relief="the capex budget")["shortfall_served_share"] == pytest.approx(1.0)
    # With nothing lifted the LP spends the $40,000 the MILP cannot: 1/7 of a unit more.
    extra_units = BUDGET_USD / PRICE_H100 - 2
    share = extra_units * tau / (peak - 2 * tau)
    assert _row(served, relief="no limit")["shortfall_served_share"] == pytest.approx(
        share, rel=1e-6
    )
    sentence = next(s for s in budget_plan.diagnosis if s.startswith("2026: 49% of chat"))
    assert sentence.endswith(
        "Binding: the capex budget. LP estimates (purchases continuous) of the share of it "
        "served: 100% with the capex budget lifted, 7% with no limit lifted."
    )
    assert (
        "LP estimate with the capex budget lifted: its plan uses $494k more capex budget "
        "in 2026." in budget_plan.diagnosis
    )


def test_power_alone_would_meet_a_supply_cap_and_the_diagnosis_says_so(power_plan: Plan) -> None:
    t = power_plan.tables
    use = t["relief_use"]
    alone = use[use["relief"] == "power at texas"]
    held = alone[~alone["lifted"].astype(bool)]
    assert set(zip(held["limit"], held["subject"], held["period"], strict=True)) == {
        ("supply", "gb200-nvl72", "2029"),
        ("supply", "gb200-nvl72", "2030"),
    }
    together = use[use["relief"] == "all binding limits"]
    assert set(zip(together["limit"], together["subject"], strict=True)) == {
        ("power", "texas"),
        ("supply", "gb200-nvl72"),
    }
    assert together["lifted"].astype(bool).all() and (together["lp_extra"] > 0).all()
    by_relief = t["relief_served"].groupby("relief")["shortfall_served_share"]
    served, most = by_relief.min(), by_relief.max()  # over the 2030 and 2031 shortfalls
    # Power is what holds the 2030-2031 chat shortfall: any relief lifting it serves it all;
    # the supply cap lifted alone serves almost none of it (power still binds).
    assert served["power at texas"] > 0.999 and served["all binding limits"] > 0.999
    assert most["gb200-nvl72 supply"] < 1e-3
    words = " ".join(power_plan.diagnosis)
    assert "Not lifted and binding in that LP plan: gb200-nvl72 supply in 2029, 2030." in words
    assert "more gb200-nvl72 units than its supply cap in 2030" in words
    assert "about" not in words  # no more one-limit-at-a-time guesses
    assert check_plan(power_plan) == []


def test_power_constrained_leaves_no_servable_demand_unserved(power_plan: Plan) -> None:
    """The case where a plan called optimal once left 13.21 MW unused in 2031 and its
    demand unserved: the lexicographic plan serves all the limits allow."""
    t = power_plan.tables
    scenario = _power_scenario()
    data = build_data(scenario, *throughput(scenario))
    smallest = min(
        facility_mw_per_unit(data.power_kw[h], data.pue["texas"]) for h, _, _ in data.fleet_index
    )
    binding = t["power"][t["power"]["binding"].astype(bool)]
    assert binding["period"].tolist() == ["2029", "2030", "2031"]
    served_table = t["served"]
    short = set(served_table[served_table["unmet_share"] > 1e-4]["period"].astype(str))
    assert short == {"2030", "2031"}  # peak_average: 2030 is sized to its end peak
    # where demand is unmet, no room for one more unit of anything
    assert (binding[binding["period"].isin(short)]["slack_mw"] < smallest).all()
    # The LP of the same limits (purchases continuous) serves under 0.1 % more of any
    # shortfall: what is left unmet is what whole units cannot serve.
    served = t["relief_served"]
    assert (served[served["relief"] == "no limit"]["shortfall_served_share"] < 1e-3).all()
    # The service optimum proven at gap 0 is the plan's.
    options = replace(solver_options(scenario), mip_gap=0.0)
    best, _, _ = build_and_solve(data, options, extend=ServiceFirst())
    assert best.objective is not None
    assert power_plan.headline["weighted_unserved_share"] == pytest.approx(
        best.objective / service_scale(data), rel=1e-6
    )


def _with_diagnosis(original: Plan, old: str, new: str) -> Plan:
    sentences = [s.replace(old, new) for s in original.diagnosis]
    assert sentences != original.diagnosis, old
    return replace(original, diagnosis=sentences)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("Power binds at texas in 2029–2031", "Power binds at texas in 2031", "binds in"),
        ("loses revenue of $13.4B", "loses revenue of $3.1B", "revenue lost in"),
        ("52% of chat demand", "80% of chat demand", "unmet share is 52%"),
        ("1.17e+13 tokens/day", "1.5e+13 tokens/day", "unmet peak is 1.17e+13"),
        ("0% with no limit lifted", "5% with no limit lifted", "relief_served table says"),
        ("MW more power at texas in 2031", "MW more power at texas in 2029", "relief_use"),
        ("Binding: power at texas,", "Binding: gb300-nvl72 supply,", "does not bind there"),
        ("Power binds at texas", "Power limits texas", "no known form"),
    ],
)
def test_the_checker_reads_every_diagnosis_sentence(
    power_plan: Plan, old: str, new: str, expected: str
) -> None:
    found = check_diagnosis(_with_diagnosis(power_plan, old, new))
    assert found and all(expected in v for v in found), found


def test_the_checker_reads_the_relief_tables(power_plan: Plan) -> None:
    tables = dict(power_plan.tables)
    served = tables["relief_served"].copy()
    served.loc[0, "unmet_share_plan"] = 0.5
    tables["relief_served"] = served
    found = check_diagnosis(replace(power_plan, tables=tables))
    assert any("plan share is not the plan's" in v for v in found), found


def _two_vendors(tmp_path: Path) -> Path:
    text = (ROOT / "tests" / "scenarios" / "one_hardware_one_year.yaml").read_text()
    text = text.replace(
        "hardware: [{id: h100-hgx, price_decline_per_year: 0}]",
        "hardware: [{id: h100-hgx, price_decline_per_year: 0}, {id: mi355x-oam8}]",
    )
    assert "mi355x-oam8" in text
    path = tmp_path / "two_vendors.yaml"
    path.write_text(text + "vendor_share_max: {NVIDIA: 0.5, AMD: 0.5}\n")
    return path


def test_vendor_share_binds_by_the_one_definition(tmp_path: Path) -> None:
    # One h100-hgx (8 GPUs) bought at a 50 % cap takes (1 − 0.5) × 8 = 4 GPUs of slack.
    scenario = load_scenario(_two_vendors(tmp_path))
    data = build_data(scenario, *throughput(scenario))
    assert vendor_unit(data, "NVIDIA", 2026, 0.5) == 4.0
    result = plan(scenario)
    share = result.tables["vendor_share"]
    for row in share.itertuples(index=False):
        slack = row.max_share * row.fleet_accelerators - row.accelerators
        unit = vendor_unit(data, row.vendor, 2026, row.max_share)
        assert bool(row.binding) == binds(slack, unit)
    assert share["binding"].astype(bool).all()  # half and half: neither may add a unit
    assert "The NVIDIA share cap binds in 2026." in result.diagnosis
    assert check_plan(result) == []


def test_marginal_of_a_hardware_price_by_id() -> None:
    # d cost / d price of the 4 h100-hgx in one_hardware_one_year: each unit pays its
    # price and 3 % maintenance in 2026 and gets back 4/5 of it, discounted a year.
    scenario = load_scenario(ROOT / "tests" / "scenarios" / "one_hardware_one_year.yaml")
    result = plan(scenario, marginals=["hardware[h100-hgx].price_usd"])
    row = result.tables["marginals"].iloc[0]
    assert row["subject"] == "hardware[h100-hgx].price_usd"
    assert row["value"] == pytest.approx(-4 * (1 + 0.03 - 0.8 / 1.1), rel=1e-9)


def test_with_too_little_run_time_left_the_plan_keeps_no_estimate(budget_plan: Plan) -> None:
    scenario = load_scenario(BUDGET)
    data = build_data(scenario, *throughput(scenario))

    def never(_: object) -> None:
        raise AssertionError("no re-solve may start")

    with Deadline(MIN_SECONDS_LEFT / 2):
        relief = relief_tables(data, budget_plan.tables, never)
    assert relief["relief_served"].empty and relief["relief_use"].empty
    rewritten = with_relief(data, budget_plan, relief)
    assert any(s.endswith(NO_ESTIMATES) for s in rewritten.diagnosis)
    assert check_plan(rewritten) == []


def test_the_cost_stage_starts_from_the_service_stages_plan() -> None:
    """The cost stage's MIP starts from the service stage's whole-unit decisions (which
    meet the held service; on the M benchmark HiGHS found no other plan in 100 s)."""
    scenario = load_scenario(BUDGET)
    data = build_data(scenario, *throughput(scenario))
    options = solver_options(scenario)
    service, first, _ = build_and_solve(data, options, extend=ServiceFirst())
    assert first is not None and service.objective is not None
    assert first.buy == {("h100-hgx", "dc", 2026): 2.0}
    seen: dict[object, float | None] = {}

    def held_then_look(model: object, d: object) -> None:
        CostWithServiceHeld(service.objective, start=first)(model, d)  # type: ignore[arg-type]
        seen.update({k: v.value for k, v in model.buy.items()})  # type: ignore[attr-defined]

    result, solution, _ = build_and_solve(data, options, extend=held_then_look)
    assert seen == {("h100-hgx", "dc", 2026): 2.0}
    assert result.status.value == "optimal" and solution is not None
    assert solution.buy == first.buy


def test_the_re_solves_stop_at_their_own_time_budget(
    budget_plan: Plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    import planner.relief

    scenario = load_scenario(BUDGET)
    data = build_data(scenario, *throughput(scenario))
    calls: list[object] = []
    monkeypatch.setattr(planner.relief, "BUDGET_S", -1.0)  # spent before the first
    relief = relief_tables(data, budget_plan.tables, calls.append)  # type: ignore[arg-type]
    assert calls == [] and relief["relief_served"].empty
