"""The checkable rest of a scenario file with type problems, so every problem shows at once.

When a file fails schema validation, the semantic checks (:mod:`planner.scenario.checks`:
references, catalog rows, years, fit) still run on what is sound: each entry of a list
section (``sites``, ``hardware``, ``inference``, …) and each other section is kept when
it has no type problem and withheld when it has one. A withheld entry hides only the
problems inside itself; a reference to it from elsewhere is not reported as naming
nothing (its name still counts as listed), and the fit check says it did not count it.

Paths of the problems found are those of the file (``inference[3]``, not the index
among the kept entries).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from planner.catalog import hardware_catalog
from planner.errors import Problem
from planner.scenario.checks import Withheld
from planner.scenario.meta import model_in
from planner.scenario.schema import Scenario

__all__ = ["Salvaged", "salvage"]

LIST_SECTIONS = (
    "sites",
    "hardware",
    "rental",
    "existing_fleet",
    "on_order",
    "models",
    "training",
    "inference",
)
"""Sections that are lists of entries: an entry with a type problem is withheld alone."""

NAMED = {"sites": ("site", "name"), "hardware": ("hardware", "id"), "models": ("model", "id")}
"""List sections others refer to: section → (kind of reference, key of the entry's name)."""

_INDEXED = re.compile(r"^(" + "|".join(LIST_SECTIONS) + r")\[(\d+)\]")


@dataclass(frozen=True)
class Salvaged:
    """The sound part of a scenario file, ready for :func:`check_scenario`."""

    scenario: Scenario
    """Built from the kept entries and sections only (not a valid scenario to plan)."""
    withheld: Withheld
    kept: Mapping[str, list[int]]
    """Per list section: the file's index of each kept entry, in order."""

    def file_path(self, path: str) -> str:
        """A problem path on :attr:`scenario` as a path in the file."""
        match = _INDEXED.match(path)
        if match is None:
            return path
        section, index = match.group(1), int(match.group(2))
        return f"{section}[{self.kept[section][index]}]{path[match.end() :]}"

    def in_file(self, problem: Problem) -> Problem:
        return Problem(**{**problem.__dict__, "path": self.file_path(problem.path)})


def _broken(errors: list[Any]) -> tuple[set[str], dict[str, set[int]]]:
    """Top-level fields with a problem as a whole, and list entries with a problem."""
    whole: set[str] = set()
    entries: dict[str, set[int]] = {}
    for err in errors:
        loc = tuple(err["loc"])
        if not loc or not isinstance(loc[0], str):
            continue
        if loc[0] in LIST_SECTIONS and len(loc) > 1 and isinstance(loc[1], int):
            entries.setdefault(loc[0], set()).add(loc[1])
        else:
            whole.add(loc[0])
    return whole, entries


def _withheld(data: Mapping[str, Any], whole: set[str], entries: dict[str, set[int]]) -> Withheld:
    names: dict[str, set[str]] = {}
    any_name: set[str] = set()
    for section, (kind, key) in NAMED.items():
        if section in whole:  # not even a list: its names cannot be known
            any_name.add(kind)
            continue
        for i in sorted(entries.get(section, ())):
            entry = data[section][i]
            name = entry.get(key) if isinstance(entry, dict) else None
            if isinstance(name, str):
                names.setdefault(kind, set()).add(name)
            else:
                any_name.add(kind)
    # A withheld hardware entry's vendor still counts for vendor_share_max.
    if "hardware" in whole:
        any_name.add("vendor")
    catalog = hardware_catalog()
    labels = []
    for i in sorted(entries.get("hardware", ())):
        entry = data["hardware"][i]
        entry = entry if isinstance(entry, dict) else {}
        hardware_id, vendor = entry.get("id"), entry.get("vendor")
        labels.append(f"hardware[{i}] {hardware_id!r}" if hardware_id else f"hardware[{i}]")
        if not isinstance(vendor, str) and isinstance(hardware_id, str) and hardware_id in catalog:
            vendor = catalog[hardware_id].vendor
        if isinstance(vendor, str):
            names.setdefault("vendor", set()).add(vendor)
        else:
            any_name.add("vendor")
    return Withheld(
        names={kind: frozenset(found) for kind, found in names.items()},
        any_name=frozenset(any_name),
        hardware=tuple(labels),
        horizon="horizon" in whole,
    )


def salvage(exc: ValidationError, data: Mapping[str, Any]) -> Salvaged | None:
    """The entries and sections of ``data`` without type problems (``exc``'s errors).

    None when nothing can be checked this way (the document is not a mapping).
    """
    if not isinstance(data, Mapping):
        return None
    whole, entries = _broken(exc.errors())
    values: dict[str, Any] = {}
    kept: dict[str, list[int]] = {}
    for name, info in Scenario.model_fields.items():
        model = model_in(info.annotation)
        if name in LIST_SECTIONS:
            items = data.get(name, []) if name not in whole else []
            kept[name] = [i for i in range(len(items)) if i not in entries.get(name, set())]
            values[name] = [_validated(model, items[i]) for i in kept[name]]
        elif name in data and name not in whole:
            values[name] = _validated(model, data[name])
    flat = [v for name, v in values.items() if name not in LIST_SECTIONS]
    flat += [v for name in LIST_SECTIONS for v in values[name]]
    if any(v is _FAILED for v in flat):
        return None  # a kept part did not validate alone: check nothing rather than guess
    return Salvaged(
        scenario=Scenario.model_construct(**values),
        withheld=_withheld(data, whole, entries),
        kept=kept,
    )


_FAILED = object()


def _validated(model: type[BaseModel] | None, value: Any) -> Any:
    """``value`` validated as ``model`` (``_FAILED`` if it fails); a plain value as given.

    Plain values (``name``, ``serving``, ``vendor_share_max``) passed the file's
    validation already; only their names and keys are read by the checks.
    """
    if model is None:
        return value
    try:
        return model.model_validate(value)
    except ValidationError:
        return _FAILED
