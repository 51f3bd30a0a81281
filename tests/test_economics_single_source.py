"""Cost math lives once: the optimiser's rates equal the quotes of ``planner throughput``.

The model data (what the objective charges) and :func:`economics.unit_cost_for_scenario`
(what ``planner throughput`` and the Throughput sheet quote) are both built from the
functions in :mod:`planner.economics`; these tests hold them equal on real scenarios,
hold both to hand-worked numbers there, and check each of those functions against a
hand calculation.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from planner import economics
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
    usd_per_mtok,
)
from planner.errors import InputError
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
    # 1.07^3.25 = 1.07^3 · 1.07^0.25 = 1.225043 · 1.0170585 = 1.2459404; its inverse discounts
    assert in_year_factor(0.07, 3.25) == pytest.approx(1.2459404266, rel=1e-9)
    assert discount_factor(0.07, 3.25) == pytest.approx(1 / 1.2459404266, rel=1e-9)


def test_residual_fraction_straight_line() -> None:
    assert residual_fraction(2029.0, 5.0, 2032.0) == pytest.approx(0.4)  # 2 of 5 years left
    assert residual_fraction(2026.0, 5.0, 2032.0) == 0.0  # worn out before the end
    assert residual_fraction(2031.75, 1.0, 2032.0) == 0.75  # bought in the last quarter
    assert residual_fraction(2035.0, 2.0, 2032.0) == 1.0  # never more than the price


def test_capital_recovery_factor_by_hand() -> None:
    # 0.1 · 1.1^5 / (1.1^5 − 1) = 0.16105100 / 0.61051 = 0.26379748...
    assert capital_recovery_factor(0.10, 5) == pytest.approx(0.2637974808, rel=1e-9)
    assert capital_recovery_factor(0.0, 4) == 0.25  # no interest: the price over 4 years


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
    # Billing year, 365 × 24 = 8,760 h: renting one accelerator at $1/h for a year.
    assert rent_usd_per_unit_year(1.0, 1) == 8_760.0
    # Calendar year, 365.25 d: 1 token/s for a year is 86,400 × 365.25 = 31,557,600 tokens
    # (a billing year would give 31,536,000).
    assert tokens_over_years(tokens_per_day(1.0), 1.0) == 31_557_600.0
    # Full-load $/Mtok bills by the billing year: $8,760 over 1 token/s × 3,600 × 8,760
    # = 31,536,000 tokens = 1e6 / 3,600 = $277.78 per Mtok.
    assert usd_per_mtok(8_760.0, 1.0) == pytest.approx(277.7777777778, rel=1e-12)
    # The rented pseudo-site's name is reserved: a real site may not take it.
    doc = load_scenario(ONE_YEAR).model_dump(mode="python")
    doc["sites"][0]["name"] = "(rented)"
    with pytest.raises(InputError, match=r"'\(rented\)' is reserved for rentals"):
        build_data(Scenario.model_validate(doc), pd.DataFrame(), pd.DataFrame())


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


# Hand-worked rates of the moving-series baseline in one period, to catch both paths
# reading a series at the wrong time. b200-hgx with network and storage draws
# 14.3 kW + 8 × (0.05 + 0.01) kW = 14.78 kW of IT load and costs its price plus
# 8 × ($5,000 + $1,200) = $49,600; texas runs at PUE 1.1, finance at utilisation 0.8.
# Series are read geometrically from their period's start (2027: 2027.0, 2027Q3: 2027.5):
#   energy   = 14.78 × 1.1 × 0.8 × 8,760 h × 0.08 · (0.05/0.08)^((start − 2026)/5)
#            = 113,936.064 × 0.08 × 0.625^0.2 = 8,297.1168   (2027)
#            = 113,936.064 × 0.08 × 0.625^0.3 = 7,916.1717   (2027Q3)
#   facility = 14.78 kW × 1,200 · (900/1,200)^((start − 2026)/4)
#            = 14.78 × 1,200 × 0.75^0.25  = 16,505.2078     (2027)
#            = 14.78 × 1,200 × 0.75^0.375 = 15,922.2212     (2027Q3)
# Both periods take deliveries through the period, so an order pays the price at its
# middle (2027.5; 2027Q3: 2027.625):
#   price    = 400,000 · 0.625^((mid − 2026)/4) + 49,600
#            = 400,000 × 0.625^0.375 + 49,600 = 384,962.8856  (2027)
#            = 400,000 × 0.625^0.40625 + 49,600 = 380,073.2020 (2027Q3)
#   maintenance = 3 % of that = 11,548.8866 / 11,402.1961
# and renting an 8-GPU h200-hgx at 2.5 · (1.5/2.5)^((start − 2026)/4) $/GPU-hour:
#   rent     = 2.5 × 0.6^0.25 × 8,760 × 8 = 154,195.5763   (2027)
#            = 2.5 × 0.6^0.375 × 8,760 × 8 = 144,657.4552   (2027Q3)
HAND_RATES: dict[str, tuple[str | int, dict[str, float]]] = {
    "yearly": (
        2027,
        {
            "energy": 8_297.1167821,
            "facility": 16_505.2077810,
            "price": 384_962.8856002,
            "maintenance": 11_548.8865680,
            "rent": 154_195.5762862,
        },
    ),
    "quarterly": (
        "2027Q3",
        {
            "energy": 7_916.1716851,
            "facility": 15_922.2212294,
            "price": 380_073.2019768,
            "maintenance": 11_402.1960593,
            "rent": 144_657.4551881,
        },
    ),
}


@pytest.mark.parametrize("quarterly", [False, True], ids=["yearly", "quarterly"])
def test_model_rates_equal_unit_cost_quotes(baseline: Scenario, quarterly: bool) -> None:
    scenario = _quarterly(baseline) if quarterly else baseline
    d = _data(scenario)
    assert d.fleet_index and d.rent_index and d.existing_index
    # the two paths agree on every key ...
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
    # ... the model's rent (read per period) agrees with the quoted hourly price ...
    for h, t in d.rent_index:
        hourly = rental_usd_per_accelerator_hour(scenario, h, d.period(t).start)
        assert d.rent_usd_per_unit_year[(h, t)] == pytest.approx(
            hourly * 8_760 * d.accelerators[h], rel=1e-12
        ), (h, t)
    # ... and both equal the hand-worked numbers
    t, hand = HAND_RATES["quarterly" if quarterly else "yearly"]
    b200 = ("b200-hgx", "texas", t)
    assert d.energy_usd_per_unit_year[b200] == pytest.approx(hand["energy"], rel=1e-9)
    assert d.facility_usd_per_unit_year[b200] == pytest.approx(hand["facility"], rel=1e-9)
    assert d.price_usd[("b200-hgx", t)] == pytest.approx(hand["price"], rel=1e-9)
    assert d.rent_usd_per_unit_year[("h200-hgx", t)] == pytest.approx(hand["rent"], rel=1e-9)
    period = d.period(t)
    bought = unit_cost_for_scenario(scenario, "b200-hgx", period.start + period.length_years / 2)
    assert bought.maintenance_usd_per_year == pytest.approx(hand["maintenance"], rel=1e-9)


# tests/scenarios/one_hardware_one_year by hand (h100-hgx, list price $280,000, 10.2 kW,
# no network and storage, finance's rates): a unit-year costs
#   capital recovery 280,000 × CRF(10 %, 5 y) = 280,000 × 0.2637974808 = 73,863.2946
#   + energy 10.2 × 1.25 × 0.8 × 8,760 × 0.07 = 6,254.64
#   + facility 10.2 × 1,500 = 15,300 + maintenance 3 % × 280,000 = 8,400
#   = 103,817.9346 USD a year.
ONE_YEAR_UNIT_YEAR_USD = 103_817.9346225


def test_throughput_quote_is_built_from_the_model_rates() -> None:
    # One site with finance's rates: the quote of `planner throughput` (no site) must be
    # capital recovery plus the rates the optimiser charges there, all by hand.
    scenario = load_scenario(ONE_YEAR)
    inference, training = throughput(scenario)
    d = build_data(scenario, inference, training)
    assert d.fleet_index == (("h100-hgx", "dc", 2026),)
    assert d.price_usd[("h100-hgx", 2026)] == 280_000.0
    assert d.energy_usd_per_unit_year[d.fleet_index[0]] == pytest.approx(6_254.64, rel=1e-12)
    assert d.facility_usd_per_unit_year[d.fleet_index[0]] == pytest.approx(15_300.0, rel=1e-12)
    quote = unit_cost_for_scenario(scenario, "h100-hgx", 2026)
    assert quote.capital_recovery_usd_per_year == pytest.approx(73_863.2946225, rel=1e-10)
    assert quote.total_usd_per_year == pytest.approx(ONE_YEAR_UNIT_YEAR_USD, rel=1e-12)
    # per accelerator-hour: 103,817.9346 / (8 × 8,760 = 70,080 h) = $1.4814203
    priced = economics.price_inference_table(scenario, inference, 2026).iloc[0]
    assert priced["usd_per_accelerator_hour"] == pytest.approx(1.4814202999790, rel=1e-12)
    # per output Mtok at full load: the year's cost over tau × 3,600 × 8,760 output
    # tokens (tau: the perf table's output tokens/s per unit); input:output is 3:1, so
    # spread over all tokens it is a quarter of that
    tau = float(inference["output_tokens_per_s_per_unit"].iloc[0])
    per_output_mtok = ONE_YEAR_UNIT_YEAR_USD / (tau * 3_600 * 8_760) * 1e6
    assert priced["usd_per_mtok_output"] == pytest.approx(per_output_mtok, rel=1e-9)
    assert priced["usd_per_mtok_all_tokens"] == pytest.approx(per_output_mtok / 4, rel=1e-9)


def test_usd_per_mtok_names_its_annuity_convention() -> None:
    scenario = load_scenario(ONE_YEAR)
    result = plan(scenario)
    table = result.tables["usd_per_mtok"]
    assert table.attrs["capital_convention"] == "capital recovery (annuity, wacc, life)"
    assert ANNUITY_CAPITAL in TABLE_UNITS["usd_per_mtok"]
    assert result.tables["costs"].attrs["capital_convention"] == economics.CASH_CAPITAL
    # Hand check of the annuity: the units assigned to serve the peak, 1.0e10 tokens/day
    # × 1.5 / 86,400 s = 173,611.1 tokens/s over tau output tokens/s per unit (≈ 3.9 of
    # them; availability 1.0), each costing 103,817.9346 a unit-year, for one year.
    tau = float(throughput(scenario)[0]["output_tokens_per_s_per_unit"].iloc[0])
    units_for_peak = 1.0e10 * 1.5 / 86_400 / tau
    assert 3.0 < units_for_peak < 4.0  # so the count below is not a whole number by chance
    assigned = float(result.tables["assignment_inference"]["units"].sum())
    assert assigned == pytest.approx(units_for_peak, rel=1e-6)
    assert len(table) == 1
    row = table.iloc[0]
    assert row["cost_usd"] == pytest.approx(units_for_peak * ONE_YEAR_UNIT_YEAR_USD, rel=1e-6)
    # served: 1.0e10 tokens/day × 365.25 days / 1e6 = 3,652,500 Mtok
    assert row["served_mtok"] == pytest.approx(3_652_500.0, rel=1e-12)
    assert row["usd_per_mtok"] == pytest.approx(
        units_for_peak * ONE_YEAR_UNIT_YEAR_USD / 3_652_500.0, rel=1e-6
    )
