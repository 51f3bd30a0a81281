"""Cost math lives once: the optimiser's rates equal the quotes of ``planner throughput``.

The model data (what the objective charges) and :func:`economics.unit_cost_for_scenario`
(what ``planner throughput`` and the Throughput sheet quote) are both built from the
functions in :mod:`planner.economics`; these tests hold them equal on real scenarios
and check each of those functions against a hand calculation.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from planner import economics, units
from planner.economics import (
    ANNUITY_CAPITAL,
    capital_recovery_factor,
    discount_factor,
    energy_usd_per_unit_year,
    facility_mw_per_unit,
    facility_usd_per_unit_year,
    in_year_factor,
    maintenance_usd_per_unit_year,
    period_discount_factors,
    rent_usd_per_unit_year,
    rental_usd_per_accelerator_hour,
    residual_fraction,
    site_rates,
    tokens_over_years,
    tokens_per_day,
    unit_cost_for_scenario,
)
from planner.optimize.data import ModelData, build_data
from planner.pipeline import plan, throughput
from planner.results import TABLE_UNITS
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "scenarios" / "baseline.yaml"
ONE_YEAR = ROOT / "tests" / "scenarios" / "one_hardware_one_year.yaml"


# --- hand-worked: one function each ----------------------------------------------------


def test_facility_mw_of_an_hgx_server() -> None:
    # 8-GPU server drawing 10.2 kW of IT load at PUE 1.25: 12.75 kW = 0.01275 MW.
    assert facility_mw_per_unit(10.2, 1.25) == pytest.approx(0.01275, rel=1e-15)
    assert facility_mw_per_unit(132.0, 1.0) == 0.132  # an NVL72 rack at PUE 1


def test_energy_per_unit_year() -> None:
    # 10.2 kW × 1.25 × 0.8 × 8,760 h × $0.07 = $6,254.64 (tests/scenarios/one_hardware_one_year).
    assert energy_usd_per_unit_year(10.2, 1.25, 0.8, 0.07) == pytest.approx(6_254.64, rel=1e-12)
    assert energy_usd_per_unit_year(1.0, 1.0, 1.0, 1.0) == 8_760.0  # the billing year


def test_facility_maintenance_and_rent_per_unit_year() -> None:
    assert facility_usd_per_unit_year(10.2, 1_500.0) == pytest.approx(15_300.0, rel=1e-15)
    assert maintenance_usd_per_unit_year(280_000.0, 0.03) == pytest.approx(8_400.0, rel=1e-15)
    # $2.20 per accelerator-hour × 8,760 h × 8 accelerators = $154,176 a year.
    assert rent_usd_per_unit_year(2.2, 8) == pytest.approx(154_176.0, rel=1e-15)


def test_tokens_per_day() -> None:
    assert tokens_per_day(1_000.0) == 86_400_000.0
    assert tokens_per_day(0.5) == 43_200.0
    # A quarter at 1e9 tokens/day holds 1e9 × 365.25 × 0.25 = 91,312,500,000 tokens.
    assert tokens_over_years(1e9, 0.25) == 91_312_500_000.0


def test_discount_factors_at_fractional_period_starts() -> None:
    # 2027Q3 of a horizon from 2026 starts 1.5 years in: 1.1^−1.5 = 0.8667841720414475.
    factors = period_discount_factors(0.10, {"2026Q1": 2026.0, "2027Q3": 2027.5}, 2026.0)
    assert factors["2026Q1"] == 1.0
    assert factors["2027Q3"] == pytest.approx(0.8667841720414475, rel=1e-14)
    assert discount_factor(0.10, 2.0) == pytest.approx(1 / 1.21, rel=1e-15)
    assert in_year_factor(0.10, 2.0) == pytest.approx(1.21, rel=1e-15)
    assert in_year_factor(0.07, 3.25) * discount_factor(0.07, 3.25) == pytest.approx(1.0)


def test_residual_fraction_straight_line() -> None:
    assert residual_fraction(2029.0, 5.0, 2032.0) == pytest.approx(0.4)  # 2 of 5 years left
    assert residual_fraction(2026.0, 5.0, 2032.0) == 0.0  # worn out before the end
    assert residual_fraction(2031.75, 1.0, 2032.0) == 0.75  # bought in the last quarter
    assert residual_fraction(2035.0, 2.0, 2032.0) == 1.0  # never more than the price


def test_capital_recovery_factor_by_hand() -> None:
    # 0.1 · 1.1^5 / (1.1^5 − 1) = 0.16105100 / 0.61051 = 0.26379748...
    assert capital_recovery_factor(0.10, 5) == pytest.approx(0.2637974808, rel=1e-9)


def test_site_rates_read_overrides_then_finance() -> None:
    scenario = load_scenario(BASELINE)
    texas = scenario.sites[0]
    rates = site_rates(scenario, texas, 2027.0)
    assert (rates.pue, rates.electricity_usd_per_kwh, rates.facility_usd_per_kw_year) == (
        1.25,
        0.06,  # texas's own price
        1_500.0,  # finance's
    )
    assert site_rates(scenario, None, 2027.0).electricity_usd_per_kwh == 0.07


def test_units_keep_both_year_conventions() -> None:
    assert units.HOURS_PER_YEAR == 8_760.0  # billing year: 365 × 24
    assert units.DAYS_PER_YEAR == 365.25  # calendar year
    assert units.SECONDS_PER_YEAR == 31_557_600.0
    assert units.RENTED == "(rented)"


# --- the optimiser's rates equal the quotes ---------------------------------------------


def _data(scenario: Scenario) -> ModelData:
    inference, training = throughput(scenario)
    return build_data(scenario, inference, training)


def _quarterly(scenario: Scenario) -> Scenario:
    doc = scenario.model_dump(mode="python")
    doc["horizon"] = {**doc["horizon"], "periods_per_year": 4}
    return Scenario.model_validate(doc)


@pytest.fixture(scope="module")
def baseline() -> Scenario:
    """The baseline with every rate a moving series, so that reading it at the wrong
    time (year vs fractional period start) or from the wrong place shows."""
    doc = load_scenario(BASELINE).model_dump(mode="python")
    doc["finance"]["electricity_usd_per_kwh"] = {2026: 0.08, 2031: 0.05}
    doc["sites"][0] |= {"pue": 1.1, "facility_usd_per_kw_year": {2026: 1_200.0, 2030: 900.0}}
    doc["sites"][0].pop("electricity_usd_per_kwh")
    b200 = next(h for h in doc["hardware"] if h["id"] == "b200-hgx")
    b200["price_usd"] = {2026: 400_000.0, 2030: 250_000.0}
    doc["rental"][0]["usd_per_accelerator_hour"] = {2026: 2.5, 2030: 1.5}
    return Scenario.model_validate(doc)


@pytest.mark.parametrize("quarterly", [False, True], ids=["yearly", "quarterly"])
def test_model_rates_equal_unit_cost_quotes(baseline: Scenario, quarterly: bool) -> None:
    scenario = _quarterly(baseline) if quarterly else baseline
    d = _data(scenario)
    assert d.fleet_index and d.rent_index and d.existing_index
    for h, s, t in d.fleet_index:
        when = d.period(t).start
        quote = unit_cost_for_scenario(scenario, h, when, s)
        assert d.energy_usd_per_unit_year[(h, s, t)] == quote.energy_usd_per_year, (h, s, t)
        assert d.facility_usd_per_unit_year[(h, s, t)] == quote.facility_usd_per_year
    for h, v in d.price_usd:
        # an order pays the price at its average date: mid-period where the period's
        # purchases arrive through it (deliveries through the period), else its start
        period = d.period(v)
        mid = period.length_years / 2 if v in d.ramp_periods else 0.0
        quote = unit_cost_for_scenario(scenario, h, period.start + mid)
        assert d.price_usd[(h, v)] == quote.price_usd, (h, v)
        maintenance = maintenance_usd_per_unit_year(d.price_usd[(h, v)], d.maintenance_fraction)
        assert maintenance == quote.maintenance_usd_per_year
    for h, t in d.rent_index:
        rate = rental_usd_per_accelerator_hour(scenario, h, d.period(t).start)
        quoted = rent_usd_per_unit_year(rate, d.accelerators[h])
        assert d.rent_usd_per_unit_year[(h, t)] == quoted, (h, t)


def test_throughput_quote_is_built_from_the_model_rates() -> None:
    # One site with finance's rates: the quote of `planner throughput` (no site) must be
    # exactly capital recovery plus the rates the optimiser charges there.
    scenario = load_scenario(ONE_YEAR)
    inference, training = throughput(scenario)
    d = build_data(scenario, inference, training)
    priced = economics.price_inference_table(scenario, inference, 2026)
    (h, s, t), *_ = d.fleet_index
    price = d.price_usd[(h, t)]
    total = (
        price * capital_recovery_factor(d.wacc, d.lifetime_years[h])
        + d.facility_usd_per_unit_year[(h, s, t)]
        + d.energy_usd_per_unit_year[(h, s, t)]
        + maintenance_usd_per_unit_year(price, d.maintenance_fraction)
    )
    assert unit_cost_for_scenario(scenario, h, 2026).total_usd_per_year == total
    per_hour = priced.loc[priced["hardware"] == h, "usd_per_accelerator_hour"].iloc[0]
    assert per_hour == total / (d.accelerators[h] * units.HOURS_PER_YEAR)


def test_usd_per_mtok_names_its_annuity_convention() -> None:
    result = plan(load_scenario(ONE_YEAR))
    table = result.tables["usd_per_mtok"]
    assert table.attrs["capital_convention"] == "capital recovery (annuity, wacc, life)"
    assert ANNUITY_CAPITAL in TABLE_UNITS["usd_per_mtok"]
    assert result.tables["costs"].attrs["capital_convention"] == economics.CASH_CAPITAL
    # Hand check of the annuity: assigned units × (280,000 × CRF(10 %, 5 y) + energy
    # 6,254.64 + facility 15,300 + maintenance 8,400), availability 1.0, one year.
    assigned = float(result.tables["assignment_inference"]["units"].sum())
    per_unit_year = 280_000.0 * 0.2637974808 + 6_254.64 + 15_300.0 + 8_400.0
    row = table.iloc[0]
    assert row["cost_usd"] == pytest.approx(assigned * per_unit_year, rel=1e-9)
    assert row["served_mtok"] == pytest.approx(1.0e10 * 365.25 / 1e6, rel=1e-12)
    assert isinstance(table, pd.DataFrame)
