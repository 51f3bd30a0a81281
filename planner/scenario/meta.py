"""What a scenario field means beyond its type: unit, fill rule, site default, perf use.

The schema attaches a :class:`FieldMeta` to a field with ``Annotated[type, meta(...)]``;
everyone who needs to know what a field is reads it from there (:func:`field_meta`,
:func:`path_meta`): the analysis paths and ``--marginal`` (fill rule, site defaults,
whether the perf tables must be recomputed), the perf-table cache of the analysis
workers, the Assumptions sheet (units, fill notes) and the assumptions workbook.

* ``unit`` — what one of the value is (``MW (facility, IT × PUE)``, ``USD/kWh``).
* ``fill`` — for year-indexed values, how years between and around the given ones are
  filled (:mod:`planner.scenario.series`): ``geometric`` (rates: prices, demand) or
  ``hold`` (levels and per-year flows: caps, budgets). None: not year-indexed.
* ``default_from`` — a site field left unset takes this finance field
  (``sites[dc].pue`` → ``finance.pue``).
* ``perf`` — the perf model (:mod:`planner.perf`) reads the field, so its throughput
  tables change with it. A field without metadata counts as read (recomputing the
  tables is slower, never wrong).
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from planner.scenario.series import Fill


@dataclass(frozen=True)
class FieldMeta:
    """The meaning of one scenario field (see the module docstring)."""

    perf: bool = True
    unit: str = ""
    fill: Fill | None = None
    default_from: str | None = None


UNKNOWN = FieldMeta()
"""The meaning of a field that declares none: read by the perf model, no unit."""


def meta(
    *, perf: bool, unit: str = "", fill: Fill | None = None, default_from: str | None = None
) -> FieldMeta:
    """Metadata for ``Annotated[type, meta(...)]``; ``perf`` must always be stated."""
    return FieldMeta(perf=perf, unit=unit, fill=fill, default_from=default_from)


def field_meta(model: type[BaseModel], name: str) -> FieldMeta:
    """The metadata of field ``name`` of ``model`` (:data:`UNKNOWN` when it has none)."""
    info = model.model_fields.get(name)
    if info is None:
        raise KeyError(f"{model.__name__} has no field {name!r}")
    for item in info.metadata:
        if isinstance(item, FieldMeta):
            return item
    return UNKNOWN


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model a field holds (directly, in a list, or in an optional)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return model_in(typing.get_args(annotation)[0])
    if origin in (list, typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = model_in(arg)
            if found is not None:
                return found
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def field_at(root: type[BaseModel], steps: list[str]) -> tuple[type[BaseModel], str]:
    """The model class and field name that parsed path ``steps`` ends in.

    ``['sites', '[texas]', 'power_cap_mw', '2028']`` → ``(Site, 'power_cap_mw')``: list
    items (``[texas]``, ``[0]``) and what lies below a non-model field (a year of a
    series, a vendor of ``vendor_share_max``) do not change the field.
    """
    model, name = root, ""
    for step in steps:
        if step.startswith("["):
            continue
        if name:
            inner = model_in(model.model_fields[name].annotation)
            if inner is None:
                break
            model = inner
        if step not in model.model_fields:
            raise KeyError(f"{model.__name__} has no field {step!r}")
        name = step
    if not name:
        raise KeyError(f"path {'.'.join(steps)!r} names no field")
    return model, name


def perf_free_fields(model: type[BaseModel]) -> frozenset[str]:
    """Fields of ``model`` the perf model does not read."""
    return frozenset(name for name in model.model_fields if not field_meta(model, name).perf)
