"""Bad ordering and delivery inputs: `planner validate` exits 2 naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

BASE = """\
name: timing
horizon: {start: 2026, years: 2}
sites: [{name: dc, power_cap_mw: 10}]
hardware: [HARDWARE]
models: [{id: llama-3.1-8b}]
inference: [{name: chat, model: llama-3.1-8b, tokens_per_day: 1.0e10}]
"""


@pytest.mark.parametrize(
    ("hardware", "extra", "path", "words"),
    [
        ("{id: h100-hgx, lead_time_months: 24}", "", "hardware[0].lead_time_months", "lead time"),
        # 13 months on a yearly 2-year horizon: an order of 2026 arrives after 2027's start
        ("{id: h100-hgx, lead_time_months: 13}", "", "hardware[0].lead_time_months", "12 months"),
        ("{id: h100-hgx, available_from: '2026-02-30'}", "", "hardware[0].available_from", "date"),
        (
            "{id: h100-hgx}",
            "finance: {sell_early: true}\n"
            "on_order: [{hardware: h100-hgx, site: dc, units: 2, delivery: 2027}]\n",
            "finance.sell_early",
            "on order",
        ),
        ("{id: h100-hgx, available_from: 2029Q1}", "", "hardware[0].available_from", "after"),
        (
            "{id: h100-hgx, available_from: 2027Q2, end_of_sale: 2026}",
            "",
            "hardware[0].end_of_sale",
            "end of sale",
        ),
        ("{id: h100-hgx, successor: h300-hgx}", "", "hardware[0].successor", "unknown successor"),
        (
            "{id: h100-hgx, price_decline_per_year: 1.0}",
            "",
            "hardware[0].price_decline_per_year",
            "less than 1",
        ),
        (
            "{id: h100-hgx, price_decline_per_year: -0.1}",
            "",
            "hardware[0].price_decline_per_year",
            "greater than or equal to 0",
        ),
        (
            "{id: h100-hgx}",
            "on_order: [{hardware: b200-hgx, site: dc, units: 2, delivery: 2027}]\n",
            "on_order[0].hardware",
            "b200-hgx",
        ),
        (
            "{id: h100-hgx}",
            "on_order: [{hardware: h100-hgx, site: nowhere, units: 2, delivery: 2027}]\n",
            "on_order[0].site",
            "nowhere",
        ),
        (
            "{id: h100-hgx}",
            "on_order: [{hardware: h100-hgx, site: dc, units: 2, delivery: 2030-01-01}]\n",
            "on_order[0].delivery",
            "outside the horizon",
        ),
    ],
)
def test_bad_timing_input_exits_2_with_the_field(
    hardware: str, extra: str, path: str, words: str, tmp_path: Path, run_cli
) -> None:
    file = tmp_path / "bad.yaml"
    file.write_text(BASE.replace("HARDWARE", hardware) + extra, encoding="utf-8")
    result = run_cli("validate", file)
    assert result.code == 2, result.out + result.err
    text = result.out + result.err
    assert path in text and words in text
    assert "Traceback" not in text


def test_good_timing_input_validates(tmp_path: Path, run_cli) -> None:
    file = tmp_path / "good.yaml"
    hardware = "{id: h100-hgx, lead_time_months: 6, available_from: 2026-08-01, end_of_sale: 2027}"
    extra = "on_order: [{hardware: h100-hgx, site: dc, units: 2, delivery: 2026-12-01}]\n"
    file.write_text(BASE.replace("HARDWARE", hardware) + extra, encoding="utf-8")
    result = run_cli("validate", file)
    assert result.code == 0, result.out + result.err


def test_a_lead_time_that_fits_is_accepted(tmp_path: Path, run_cli) -> None:
    """12 months on a yearly 2-year horizon: ordered in 2026, delivered in 2027."""
    file = tmp_path / "ok.yaml"
    file.write_text(BASE.replace("HARDWARE", "{id: h100-hgx, lead_time_months: 12}"), "utf-8")
    assert run_cli("validate", file).code == 0


def test_a_delivery_date_maps_to_its_calendar_month() -> None:
    """The first of a month is exactly that month's period start (monthly plans)."""
    from planner.scenario.timing import date_year

    assert date_year("2026-02-01") == pytest.approx(2026 + 1 / 12, abs=1e-12)
    assert date_year("2026-12-01") == pytest.approx(2026 + 11 / 12, abs=1e-12)
    assert date_year("2026-02-15") == pytest.approx(2026 + (1 + 14 / 28) / 12)
    assert date_year(2027) == 2027.0


def test_a_date_before_the_horizon_is_a_part_already_shipping(tmp_path: Path, run_cli) -> None:
    """A copied catalog row keeps its past ``available_from``: available from the start."""
    file = tmp_path / "past.yaml"
    hardware = "{id: h100-hgx, available_from: 2025-05-01}"
    file.write_text(BASE.replace("HARDWARE", hardware), encoding="utf-8")
    result = run_cli("validate", file)
    assert result.code == 0, result.out + result.err
