"""Per-SKU list-price decline: price(t) = catalog price · (1 − d)^(t − price_year)."""

from __future__ import annotations

import pydantic
import pytest

from planner.catalog import hardware_catalog
from planner.economics.rates import unit_price_usd
from planner.scenario.schema import HardwareChoice


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


def test_default_is_no_decline() -> None:
    spec = _spec()
    choice = HardwareChoice(id=spec.id)
    assert unit_price_usd(choice, spec, spec.price_year + 5) == spec.price_usd


def test_negative_decline_is_refused() -> None:
    with pytest.raises(pydantic.ValidationError, match="price_decline_per_year"):
        HardwareChoice(id="h100-hgx", price_decline_per_year=-0.1)
