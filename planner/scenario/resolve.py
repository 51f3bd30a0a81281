"""Catalog rows as a scenario sees them: catalog defaults with the scenario's overrides."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.scenario.schema import HardwareChoice, ModelChoice, Scenario

Row = TypeVar("Row", bound=BaseModel)


def _merge(base: Row | None, choice_id: str, overrides: dict[str, Any], row_type: type[Row]) -> Row:
    if base is None:
        return row_type.model_validate({"id": choice_id, **overrides})
    if not overrides:
        return base
    return row_type.model_validate({**base.model_dump(), **overrides})


def hardware_spec(choice: HardwareChoice) -> HardwareSpec:
    """The catalog row for ``choice`` with its overrides (raises pydantic ValidationError)."""
    overrides = choice.overrides()
    if not isinstance(choice.price_usd, float | int | type(None)):
        # A {year: price} series: the row keeps the first given year's price.
        first_year = min(choice.price_usd)
        overrides.setdefault("price_usd", float(choice.price_usd[first_year]))
        overrides.setdefault("price_year", first_year)
    return _merge(hardware_catalog().get(choice.id), choice.id, overrides, HardwareSpec)


def model_spec(choice: ModelChoice) -> ModelSpec:
    """The catalog row for ``choice`` with its overrides (raises pydantic ValidationError)."""
    return _merge(model_catalog().get(choice.id), choice.id, choice.overrides(), ModelSpec)


def hardware_specs(scenario: Scenario) -> dict[str, HardwareSpec]:
    """Every hardware system the scenario lists, by id, as the scenario sees it."""
    return {h.id: hardware_spec(h) for h in scenario.hardware}


def model_specs(scenario: Scenario) -> dict[str, ModelSpec]:
    """Every model the scenario lists, by id, as the scenario sees it."""
    return {m.id: model_spec(m) for m in scenario.models}


__all__ = ["ValidationError", "hardware_spec", "hardware_specs", "model_spec", "model_specs"]
