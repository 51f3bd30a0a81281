"""Field docstrings become descriptions exactly as pydantic's ``use_attribute_docstrings``."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, create_model

from planner.catalog.schema import HardwareSpec
from planner.field_docs import DocumentedFields, class_field_docs
from planner.scenario.schema import Finance, HardwareChoice, Scenario

pytestmark = pytest.mark.filterwarnings("error")


class _ByPydantic(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    rate: float = 0.1
    """Rate per year.

        Indented second line."""
    plain: int = 0
    named: str = Field(default="", description="given explicitly")
    """Docstring that loses to the explicit description."""
    undocumented: str = ""
    after_blank: int = 0

    """A string after a blank line still documents the field above it."""


class _ByUs(DocumentedFields, BaseModel):
    rate: float = 0.1
    """Rate per year.

        Indented second line."""
    plain: int = 0
    named: str = Field(default="", description="given explicitly")
    """Docstring that loses to the explicit description."""
    undocumented: str = ""
    after_blank: int = 0

    """A string after a blank line still documents the field above it."""


class _Child(_ByUs):
    extra: float = 1.0
    """Only in the child."""


def _descriptions(model: type[BaseModel]) -> dict[str, str | None]:
    return {name: field.description for name, field in model.model_fields.items()}


def test_same_descriptions_as_pydantic() -> None:
    assert _descriptions(_ByUs) == _descriptions(_ByPydantic)
    assert _descriptions(_ByUs) == {
        "rate": "Rate per year.\n\nIndented second line.",
        "plain": None,
        "named": "given explicitly",
        "undocumented": None,
        "after_blank": "A string after a blank line still documents the field above it.",
    }


def test_subclass_keeps_inherited_and_adds_its_own() -> None:
    assert _descriptions(_Child) == {**_descriptions(_ByUs), "extra": "Only in the child."}
    # only the fields the class itself declares come from its own body
    assert class_field_docs(_Child) == {"extra": "Only in the child."}


def test_created_model_without_source_has_no_docstrings() -> None:
    made = create_model("_ByUs", __base__=_ByUs, other=(int, 0))  # same name as a class here
    assert made.model_fields["other"].description is None
    assert made.model_fields["rate"].description == _ByUs.model_fields["rate"].description


def test_schema_fields_are_documented() -> None:
    assert Finance.model_fields["wacc"].description == (
        "Discount rate for NPV and capital recovery, per year."
    )
    assert HardwareSpec.model_fields["memory_gb"].description == (
        "HBM (or GDDR / on-chip SRAM) capacity per accelerator, GB (at most 1e6, a\n"
        "petabyte; the largest part today has 288 GB)."
    )
    # fields made from the catalog row carry its descriptions
    assert HardwareChoice.model_fields["memory_gb"].description == (
        HardwareSpec.model_fields["memory_gb"].description
    )
    assert HardwareChoice.model_fields["id"].description == "Catalog id, e.g. ``gb200-nvl72``."
    assert [n for n, f in Finance.model_fields.items() if not f.description] == []
    assert Scenario.model_fields["horizon"].description is None  # no docstring under it
