"""Per-SKU list-price decline: the catalog price holds until the successor ships, then
price(t) = catalog price · (1 − d)^(t − t_s), t_s = max(price_year, successor's first
delivery); with no successor the price holds."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pydantic
import pytest

from planner.catalog import hardware_catalog
from planner.catalog.schema import DEFAULT_PRICE_DECLINE_PER_YEAR
from planner.economics.rates import price_decline_start, unit_price_usd
from planner.scenario.schema import HardwareChoice

DATA = Path(__file__).resolve().parents[1] / "data"


def _spec():
    return hardware_catalog()["h100-hgx"]


def test_the_price_holds_until_the_successor_ships() -> None:
    spec = _spec()  # h100-hgx, price year 2024; successor h200-hgx from 2024Q2
    assert (spec.price_year, spec.successor) == (2024, "h200-hgx")
    assert hardware_catalog()["h200-hgx"].available_from == "2024Q2"
    assert price_decline_start(spec) == 2024.25
    choice = HardwareChoice(id=spec.id, price_decline_per_year=0.1)
    # two years after 2024.25 at 10 %/yr: 0.9 · 0.9 = 0.81 of the catalog price
    assert unit_price_usd(choice, spec, 2026.25) == pytest.approx(0.81 * spec.price_usd)
    # before the successor ships (and before the price year) the catalog price holds
    assert unit_price_usd(choice, spec, 2024.2) == spec.price_usd
    assert unit_price_usd(choice, spec, spec.price_year - 1) == spec.price_usd


def test_no_successor_holds_the_price_over_the_horizon() -> None:
    newest = hardware_catalog()["rubin-ultra-nvl576"]
    assert newest.successor is None and price_decline_start(newest) is None
    choice = HardwareChoice(id=newest.id)
    assert unit_price_usd(choice, newest, newest.price_year + 6) == newest.price_usd


def test_a_successor_slipped_by_the_scenario_moves_the_decline() -> None:
    spec = _spec()
    slipped = hardware_catalog()["h200-hgx"].model_copy(update={"available_from": "2025Q3"})
    specs = {"h200-hgx": slipped}
    assert price_decline_start(spec, specs) == 2025.5
    choice = HardwareChoice(id=spec.id, price_decline_per_year=0.5)
    assert unit_price_usd(choice, spec, 2026.5, specs) == pytest.approx(0.5 * spec.price_usd)
    early = slipped.model_copy(update={"available_from": "2023Q1"})
    assert price_decline_start(spec, {"h200-hgx": early}) == 2024.0  # not before the price year


def test_default_is_the_catalog_decline() -> None:
    spec = _spec()
    assert spec.price_decline_per_year == DEFAULT_PRICE_DECLINE_PER_YEAR == 0.20
    choice = HardwareChoice(id=spec.id)
    # three years at the catalog's 20 %/yr after 2024.25: 0.8^3 = 0.512 of the price
    assert unit_price_usd(choice, spec, 2027.25) == pytest.approx(0.512 * spec.price_usd)


def test_zero_holds_the_catalog_price() -> None:
    spec = _spec()
    choice = HardwareChoice(id=spec.id, price_decline_per_year=0)
    assert unit_price_usd(choice, spec, spec.price_year + 5) == spec.price_usd


def test_a_given_price_path_is_never_declined() -> None:
    spec = _spec()
    choice = HardwareChoice(id=spec.id, price_usd=100_000.0, price_decline_per_year=0.5)
    assert unit_price_usd(choice, spec, spec.price_year + 4) == 100_000.0


def test_default_is_the_median_decline_of_the_sourced_list_prices() -> None:
    """Each SKU's log-linear fit of list price on time; the default is their median."""
    rows = pd.read_csv(DATA / "sku-list-prices.csv", comment="#", parse_dates=["date"])
    assert rows["source"].str.contains("nextplatform.com").all()
    declines = []
    for _, sku in rows.groupby("sku"):
        years = sku["date"].dt.year + (sku["date"].dt.day_of_year - 1) / 365.25
        slope = np.polyfit(years, np.log(sku["list_price_usd"]), 1)[0]
        declines.append(1 - math.exp(slope))
    assert len(declines) == 8
    assert float(np.median(declines)) == pytest.approx(0.205, abs=0.001)
    assert abs(DEFAULT_PRICE_DECLINE_PER_YEAR - float(np.median(declines))) < 0.01


def test_negative_decline_is_refused() -> None:
    with pytest.raises(pydantic.ValidationError, match="price_decline_per_year"):
        HardwareChoice(id="h100-hgx", price_decline_per_year=-0.1)


def test_a_decline_the_scenario_sets_runs_from_the_price_year_without_a_successor() -> None:
    newest = hardware_catalog()["rubin-ultra-nvl576"]
    choice = HardwareChoice(id=newest.id, price_decline_per_year=0.3)
    # no successor: the scenario's own 30 %/yr runs from the 2027 price year
    assert unit_price_usd(choice, newest, newest.price_year + 2) == pytest.approx(
        0.49 * newest.price_usd
    )
    assert unit_price_usd(HardwareChoice(id=newest.id), newest, 2031.0) == newest.price_usd


def test_the_price_convention_names_each_path() -> None:
    from pathlib import Path

    from planner.economics.rates import price_convention
    from planner.scenario import load_scenario
    from planner.scenario.resolve import hardware_specs

    base = load_scenario(Path(__file__).resolve().parents[1] / "scenarios" / "rental_switch.yaml")
    hardware = [
        HardwareChoice(id="h100-hgx"),  # successor h200: held, then the catalog's 20 %
        HardwareChoice(id="rubin-ultra-nvl576", price_decline_per_year=0.3),  # its own
        HardwareChoice(id="mi450x-helios72"),  # no successor: held
        HardwareChoice(id="h200-hgx", price_usd=300_000.0),  # given
    ]
    scenario = base.model_copy(update={"hardware": hardware})
    text = price_convention(scenario, hardware_specs(scenario))
    assert "successor ships, then 20% a year (h100-hgx)" in text
    assert "the scenario's decline from the price year (rubin-ultra-nvl576 30% a year)" in text
    assert "held over the horizon, no successor in the catalog (mi450x-helios72)" in text
    assert "as the scenario gives them (h200-hgx)" in text
