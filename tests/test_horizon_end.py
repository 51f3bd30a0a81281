"""Horizon-end conventions on one purchase, by hand.

tests/scenarios/one_purchase_priced.yaml: 4 h100-hgx at $280,000 bought at the start of
2026 (P = $1,120,000), life L = 5 years, horizon end T = 2029 (age a = 3), wacc 10 %,
DF_T = 1.1^−3 = 0.7513148.

* straight_line: f = (5 − 3)/5 = 0.4; credit 448,000; PV 336,589.03
* annuity: f = (1.1^5 − 1.1^3)/(1.1^5 − 1) = 0.27951/0.61051 = 0.4578303;
  credit 512,770.0; PV 385,252.0 (= P − PV of 3 yearly CRF payments, carried to T)
* none: f = 0
* resale_curve (default, 30 % at age 3): credit 336,000; PV 252,441.8
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner import api
from planner.economics.horizon_end import (
    annuity_balance_fraction,
    horizon_end_fraction,
    resale_share,
)
from planner.results.checker import check_plan
from planner.results.checker_horizon_end import _annuity_share

SCENARIO = Path(__file__).parent / "scenarios" / "one_purchase_priced.yaml"
PRICE = 1_120_000.0
DF_END = 1.1**-3
HAND_SHARE = {"straight_line": 0.4, "annuity": 0.27951 / 0.61051, "none": 0.0, "resale_curve": 0.3}


@pytest.mark.parametrize("convention", sorted(HAND_SHARE))
def test_share_of_one_purchase_by_hand(convention: str) -> None:
    share = horizon_end_fraction(convention, 2026.0, 5.0, 2029.0, 0.10)
    assert share == pytest.approx(HAND_SHARE[convention], rel=1e-9)


def test_annuity_residual_is_price_less_payments_inside_the_horizon() -> None:
    crf = 0.1 / (1 - 1.1**-5)  # 0.2637975
    paid_pv = sum(crf * 1.1**-k for k in (1, 2, 3))  # payments at the ends of years 1..3
    assert annuity_balance_fraction(0.1, 5, 3) == pytest.approx((1 - paid_pv) * 1.1**3)
    assert annuity_balance_fraction(0.0, 5, 3) == pytest.approx(0.4)  # r = 0: straight line
    assert annuity_balance_fraction(0.1, 5, 5) == 0.0


def test_resale_curve_interpolates_and_retires_past_life() -> None:
    curve = {1.0: 0.6, 3.0: 0.2}
    assert resale_share(0.5, curve) == pytest.approx(0.8)  # between (0, 1) and (1, 0.6)
    assert resale_share(2.0, curve) == pytest.approx(0.4)
    assert resale_share(9.0, curve) == pytest.approx(0.2)  # held after the last age
    assert horizon_end_fraction("resale_curve", 2020.0, 5.0, 2026.0, 0.1, curve) == 0.0


def test_checker_annuity_by_quarterly_payments_matches_closed_form() -> None:
    import pandas as pd

    starts = [2026 + q / 4 for q in range(12)]
    periods = pd.DataFrame({"start_year": starts, "length_years": [0.25] * 12})
    assert _annuity_share(periods, 2026.25, 5.0, 2029.0, 0.1) == pytest.approx(
        annuity_balance_fraction(0.1, 5.0, 2.75), rel=1e-9
    )


def test_same_fleet_priced_under_every_convention(tmp_path: Path) -> None:
    text = SCENARIO.read_text().replace("finance: {", "finance: {horizon_end: annuity, ", 1)
    path = tmp_path / "annuity.yaml"
    path.write_text(text)
    plan = api.plan(api.load(path))
    h = plan.headline
    assert h["horizon_end"] == "annuity"
    assert plan.tables["purchases"]["residual_fraction"].iloc[0] == pytest.approx(
        HAND_SHARE["annuity"]
    )
    none = h["npv_cost_usd_none"]
    assert h["npv_cost_usd"] == pytest.approx(h["npv_cost_usd_annuity"])
    for convention, share in HAND_SHARE.items():
        assert none - h[f"npv_cost_usd_{convention}"] == pytest.approx(
            DF_END * PRICE * share, rel=1e-9
        )
    assert none - h["npv_cost_usd_annuity"] == pytest.approx(385_252.0, abs=1.0)
    assert check_plan(plan) == []


def test_workbook_purchases_credit_the_plans_convention(tmp_path: Path) -> None:
    """Under annuity the Purchases sheet holds the plan's share (a value, headed with the
    convention), not the straight-line formula that would contradict the plan's NPV."""
    import openpyxl

    from planner.export.excel import write_workbook

    text = SCENARIO.read_text().replace("finance: {", "finance: {horizon_end: annuity, ", 1)
    path = tmp_path / "annuity.yaml"
    path.write_text(text)
    scenario = api.load(path)
    out = write_workbook(api.plan(scenario), scenario, tmp_path / "annuity.xlsx")
    ws = openpyxl.load_workbook(out)["Purchases"]
    header = [c.value for c in ws[1]]
    col = header.index("share of price credited at horizon end (annuity)") + 1
    assert ws.cell(row=2, column=col).value == pytest.approx(HAND_SHARE["annuity"])
    summary = openpyxl.load_workbook(out)["Summary"]
    texts = [str(c.value) for row in summary.iter_rows() for c in row if c.value is not None]
    assert any("horizon end: annuity" in t for t in texts)  # stated next to the NPV
