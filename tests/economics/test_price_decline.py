"""Per-SKU list-price decline: price(t) = catalog price · (1 − d)^(t − price_year)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pydantic
import pytest

from planner.catalog import hardware_catalog
from planner.catalog.schema import DEFAULT_PRICE_DECLINE_PER_YEAR
from planner.economics.rates import unit_price_usd
from planner.scenario.schema import HardwareChoice

DATA = Path(__file__).resolve().parents[1] / "data"


def _spec():
    return hardware_catalog()["h100-hgx"]


def test_decline_by_hand() -> None:
    spec = _spec()
    choice = HardwareChoice(id=spec.id, price_decline_per_year=0.1)
    years = spec.price_year + 2
    # two years at 10 %/yr: 0.9 · 0.9 = 0.81 of the catalog price
    assert unit_price_usd(choice, spec, years) == pytest.approx(0.81 * spec.price_usd)
    # before the price year the catalog price holds
    assert unit_price_usd(choice, spec, spec.price_year - 1) == pytest.approx(spec.price_usd)


def test_default_is_the_catalog_decline() -> None:
    spec = _spec()
    assert spec.price_decline_per_year == DEFAULT_PRICE_DECLINE_PER_YEAR == 0.20
    choice = HardwareChoice(id=spec.id)
    # three years at the catalog's 20 %/yr: 0.8^3 = 0.512 of the catalog price
    assert unit_price_usd(choice, spec, spec.price_year + 3) == pytest.approx(
        0.512 * spec.price_usd
    )


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
