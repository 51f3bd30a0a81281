"""Revenue and the investment view, by hand (tests/scenarios/one_purchase_priced.yaml).

Also the pure functions: revenue per output Mtok from split prices, IRR and payback.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from planner.economics.returns import irr, payback_year, stream_npv
from planner.economics.revenue import (
    TokenPrices,
    lost_run_revenue_usd,
    revenue_usd,
    revenue_usd_per_output_mtok,
    run_revenue_usd,
)
from planner.pipeline import plan
from planner.results import Plan
from planner.results.checker import check_plan
from planner.results.investment import profit_stream
from planner.scenario import load_scenario

HERE = Path(__file__).resolve().parent / "scenarios"
RUNNING = 4 * (10.2 * 1.25 * 0.8 * 8760 * 0.07 + 10.2 * 1500 + 0.03 * 280_000)
REVENUE = 1.0e10 * 365.25 / 1e6 * 0.20
FLOWS = {0.0: REVENUE - 1_120_000 - RUNNING, 1.0: REVENUE - RUNNING, 2.0: REVENUE - RUNNING}
RESIDUAL = 1_120_000 * 2 / 5


def cubic_irr() -> float:
    """The IRR as the root of the cubic in x = 1/(1+r), by numpy (not our bisection)."""
    c0, c1, c2 = FLOWS[0.0], FLOWS[1.0], FLOWS[2.0]
    roots = np.roots([RESIDUAL, c2, c1, c0])  # RESIDUAL x^3 + c2 x^2 + c1 x + c0 = 0
    x = next(float(r.real) for r in roots if abs(r.imag) < 1e-12 and 0 < r.real < 1)
    return 1 / x - 1


@pytest.fixture(scope="module")
def priced() -> Plan:
    return plan(load_scenario(HERE / "one_purchase_priced.yaml"))


def test_split_prices_make_one_price_per_output_mtok() -> None:
    prices = TokenPrices(
        output_usd_per_mtok=10.0, input_usd_per_mtok=2.5, cached_input_usd_per_mtok=1.25
    )
    # 10 + 4 x (0.75 x 2.5 + 0.25 x 1.25) = 10 + 4 x 2.1875 = 18.75
    assert revenue_usd_per_output_mtok(prices, 4.0, 0.25) == pytest.approx(18.75, rel=1e-12)
    assert revenue_usd(3.0e6, 18.75) == pytest.approx(56.25, rel=1e-12)
    assert run_revenue_usd(1000.0, 7.5, 10.0) == 750.0
    assert lost_run_revenue_usd(1000.0, 2.5, 10.0) == 250.0


def test_irr_and_payback_of_the_hand_flows() -> None:
    flows = {**FLOWS, 3.0: RESIDUAL}
    rate = irr(flows)
    assert rate == pytest.approx(cubic_irr(), abs=1e-8)
    assert rate == pytest.approx(1.0121559, abs=1e-6)
    assert stream_npv(rate, flows) == pytest.approx(0.0, abs=1e-3)
    cumulative = [(2026, -509_318.56), (2027, 101_362.88), (2028, 712_044.32)]
    assert payback_year(cumulative) == 2027
    assert payback_year([(2026, -1.0), (2027, 2.0), (2028, -1.0)]) is None  # ends below zero
    assert payback_year([(2026, -1.0), (2027, 2.0), (2028, -0.5), (2029, 3.0)]) == 2029
    # quarters: the dip in 2027's second quarter puts the payback in 2027, not 2026
    quarters = [(2026, -1.0), (2026, 0.5), (2027, -0.1), (2027, 0.2), (2028, 1.0)]
    assert payback_year(quarters) == 2027
    assert irr({0.0: 100.0, 1.0: 50.0}) is None  # never negative: no rate makes NPV zero


def test_the_plan_reports_revenue_cash_flow_payback_and_irr(priced: Plan) -> None:
    assert priced.tables["purchases"]["units"].tolist() == [4]
    revenue = priced.tables["revenue"]
    assert revenue["revenue_usd_per_mtok"].tolist() == pytest.approx([0.20] * 3, rel=1e-12)
    assert revenue["revenue_usd"].tolist() == pytest.approx([730_500.0] * 3, rel=1e-9)
    table = priced.tables["investment"].set_index("year")
    assert table["capex_usd"].tolist() == pytest.approx([1_120_000.0, 0.0, 0.0], abs=1e-6)
    assert table["operating_cost_usd"].tolist() == pytest.approx([RUNNING] * 3, rel=1e-9)
    assert table["gross_margin_usd"].tolist() == pytest.approx([610_681.44] * 3, rel=1e-9)
    assert table["cash_flow_usd"].tolist() == pytest.approx(
        [-509_318.56, 610_681.44, 610_681.44], rel=1e-9
    )
    assert table["cumulative_cash_usd"].tolist() == pytest.approx(
        [-509_318.56, 101_362.88, 712_044.32], rel=1e-9
    )
    assert table["residual_credit_usd"].tolist() == pytest.approx([0.0, 0.0, 448_000.0])
    head = priced.headline
    assert head["payback_year"] == 2027
    assert head["irr"] == pytest.approx(cubic_irr(), abs=1e-8)
    discount = 1 + 1 / 1.1 + 1 / 1.21
    assert head["revenue_usd_pv"] == pytest.approx(REVENUE * discount, rel=1e-9)
    npv_cost = 1_120_000 + RUNNING * discount - RESIDUAL / 1.331
    assert head["npv_cost_usd"] == pytest.approx(npv_cost, rel=1e-9)
    assert head["npv_profit_usd"] == pytest.approx(REVENUE * discount - npv_cost, rel=1e-9)
    # The NPV of the cash flows at the wacc is the NPV of profit: one convention.
    assert stream_npv(0.10, {**FLOWS, 3.0: RESIDUAL}) == pytest.approx(
        head["npv_profit_usd"], rel=1e-9
    )
    assert head["lost_revenue_usd"] == 0.0


def test_unit_margin_is_price_minus_cost_per_mtok(priced: Plan) -> None:
    by_workload = priced.tables["investment_by_workload"]
    cost = priced.tables["usd_per_mtok"]
    assert by_workload["cost_usd_per_mtok"].tolist() == pytest.approx(
        cost["usd_per_mtok"].tolist(), rel=1e-12
    )
    assert by_workload["unit_margin_usd_per_mtok"].tolist() == pytest.approx(
        (0.20 - cost["usd_per_mtok"]).tolist(), rel=1e-12
    )


def test_the_checker_recomputes_revenue(priced: Plan) -> None:
    assert check_plan(priced) == []
    tables = dict(priced.tables)
    tables["revenue"] = tables["revenue"].assign(
        revenue_usd=tables["revenue"]["revenue_usd"] * 1.01
    )
    broken = Plan(
        priced.scenario, priced.status, priced.headline, tables, parameters=priced.parameters
    )
    problems = check_plan(broken)
    assert any("revenue table" in p for p in problems), problems


def test_without_prices_there_is_no_revenue_and_no_payback() -> None:
    result = plan(load_scenario(HERE / "one_hardware_one_year.yaml"))
    assert result.tables["revenue"].empty
    assert result.headline["priced_work"] is False
    assert result.headline["revenue_usd"] == 0.0
    assert result.headline["irr"] is None and result.headline["payback_year"] is None


def test_run_prints_payback_with_its_convention(run_cli, tmp_path: Path) -> None:
    done = run_cli("run", HERE / "one_purchase_priced.yaml", "--out", tmp_path / "p.xlsx")
    assert done.code == 0, done.err
    text = " ".join(done.out.split())
    assert (
        "payback 2027 (first year from which undiscounted cumulative cash, residual "
        "excluded, stays ≥ 0)" in text
    )
    assert "$-0" not in text


def test_the_irr_books_capex_where_the_npv_pays_it() -> None:
    """tests/scenarios/priced_growth.yaml: the 2027 purchases arrive through 2027, so
    their capex is paid (and discounted) at 2027.5; the IRR's stream books it there,
    so its NPV at the wacc is the NPV of profit and the IRR is the root of that stream."""
    result = plan(load_scenario(HERE / "priced_growth.yaml"))
    t, head = result.tables, result.headline
    periods = t["periods"].set_index("period")
    assert periods.loc["2027", "capex_paid_at_year"] == 2027.5
    assert periods.loc["2026", "capex_paid_at_year"] == 2026.0  # the opening year
    flows = profit_stream(t["revenue"], t["costs"], t["periods"])
    capex_2027 = float(t["costs"].query("period == '2027' and category == 'capex'")["usd"].sum())
    assert capex_2027 > 0 and flows[1.5] == pytest.approx(-capex_2027, rel=1e-12)
    assert stream_npv(0.10, flows) == pytest.approx(head["npv_profit_usd"], rel=1e-9)
    assert head["irr"] is not None and stream_npv(head["irr"], flows) == pytest.approx(
        0.0, abs=1e-3
    )


def test_run_prints_the_irr_with_its_convention(run_cli, tmp_path: Path) -> None:
    done = run_cli("run", HERE / "priced_growth.yaml", "--out", tmp_path / "p.xlsx")
    assert done.code == 0, done.err
    text = " ".join(done.out.split())
    assert "IRR 98.1% (cash flows where the NPV books them: capex when paid)" in text
