"""Sourced catalogs of hardware systems and model architectures.

The data live in ``hardware.yaml`` and ``models.yaml`` beside this module, one row per
system or model, each with ``source`` and ``as_of``; ``offers.yaml`` holds the
commercial facts (who can buy a system, cloud list prices, network and storage per
accelerator, datacenter cost defaults). Scenarios pick rows by id and may
override fields (see :mod:`planner.scenario`).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from planner.catalog.schema import DatacenterDefaults, HardwareSpec, ModelSpec, OfferSpec
from planner.errors import InputError, Problem

__all__ = [
    "DatacenterDefaults",
    "HardwareSpec",
    "ModelSpec",
    "OfferSpec",
    "datacenter_defaults",
    "hardware_catalog",
    "model_catalog",
    "offer_catalog",
]

Row = TypeVar("Row", bound=BaseModel)


def _load(filename: str, row_type: type[Row]) -> dict[str, Row]:
    text = resources.files("planner.catalog").joinpath(filename).read_text("utf-8")
    rows: list[dict[str, Any]] = yaml.safe_load(text)
    out: dict[str, Row] = {}
    problems: list[Problem] = []
    for i, row in enumerate(rows):
        try:
            item = row_type.model_validate(row)
        except ValidationError as exc:
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"])
                problems.append(Problem(path=f"[{i}].{loc}", message=err["msg"]))
            continue
        if item.id in out:  # type: ignore[attr-defined]
            problems.append(Problem(path=f"[{i}].id", message=f"duplicate id {item.id!r}"))  # type: ignore[attr-defined]
        out[item.id] = item  # type: ignore[attr-defined]
    if problems:
        raise InputError(f"planner/catalog/{filename}", problems)
    return out


@cache
def hardware_catalog() -> dict[str, HardwareSpec]:
    """All catalog hardware systems by id."""
    return _load("hardware.yaml", HardwareSpec)


@cache
def model_catalog() -> dict[str, ModelSpec]:
    """All catalog model architectures by id."""
    return _load("models.yaml", ModelSpec)


@cache
def _offers_document() -> dict[str, Any]:
    text = resources.files("planner.catalog").joinpath("offers.yaml").read_text("utf-8")
    document: dict[str, Any] = yaml.safe_load(text)
    return document


@cache
def offer_catalog() -> dict[str, OfferSpec]:
    """Commercial facts of each hardware system, by hardware id (``offers.yaml``)."""
    rows: list[dict[str, Any]] = _offers_document()["systems"]
    out: dict[str, OfferSpec] = {}
    problems: list[Problem] = []
    known = hardware_catalog()
    for i, row in enumerate(rows):
        try:
            item = OfferSpec.model_validate(row)
        except ValidationError as exc:
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"])
                problems.append(Problem(path=f"systems[{i}].{loc}", message=err["msg"]))
            continue
        if item.hardware in out:
            problems.append(Problem(path=f"systems[{i}].hardware", message="duplicate row"))
        if item.hardware not in known:
            problems.append(
                Problem(path=f"systems[{i}].hardware", message=f"unknown id {item.hardware!r}")
            )
        out[item.hardware] = item
    if problems:
        raise InputError("planner/catalog/offers.yaml", problems)
    return out


@cache
def datacenter_defaults() -> DatacenterDefaults:
    """Datacenter cost defaults with their published range (``offers.yaml``)."""
    try:
        return DatacenterDefaults.model_validate(_offers_document()["datacenter"])
    except ValidationError as exc:
        problems = [
            Problem(path="datacenter." + ".".join(str(p) for p in e["loc"]), message=e["msg"])
            for e in exc.errors()
        ]
        raise InputError("planner/catalog/offers.yaml", problems) from None
