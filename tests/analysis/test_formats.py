"""Number formats of the analysis workbook: chosen by the unit a column or path states."""

from __future__ import annotations

from planner.analysis.formats import MULTIPLIER, MW, number_format, usd_change_format
from planner.export import cells


def test_formats_follow_units_not_currency_everywhere() -> None:
    assert number_format("input:finance.electricity_usd_per_kwh") == cells.USD_PRECISE
    assert number_format("sites[texas].electricity_usd_per_kwh") == cells.USD_PRECISE
    assert number_format("input:inference[chat].tokens_per_day ×") == MULTIPLIER
    assert number_format("inference[chat].tokens_per_day ×") == MULTIPLIER
    assert number_format("input:finance.wacc") == cells.PCT
    assert number_format("input:hardware[h100-hgx].price_usd") == cells.USD
    assert number_format("input:sites[texas].power_cap_mw.2028") == MW
    assert number_format("npv_cost_usd") == cells.USD_SCALED
    assert number_format("usd_per_mtok[chat]") == cells.USD_PER_MTOK
    assert number_format("unmet_inference_share") == cells.PCT
    assert number_format("mw.2027") == MW
    assert number_format("unmet_inference_tokens") == cells.SCIENTIFIC
    assert number_format("low_value") == cells.GENERAL  # inputs of mixed units


def test_money_changes_are_signed_in_one_unit_chosen_by_the_largest() -> None:
    assert usd_change_format([-73_000.0, 80_000.0]) == '+$#,##0.00,"K";-$#,##0.00,"K";$0'
    assert usd_change_format([1.2e6, float("nan")]) == '+$#,##0.00,,"M";-$#,##0.00,,"M";$0'
    assert usd_change_format([-3e9]) == '+$#,##0.00,,,"B";-$#,##0.00,,,"B";$0'
