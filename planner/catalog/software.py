"""Software stacks: which serving software a plan's inference throughput assumes.

The same accelerator serves a model several times faster a year after launch than on
the day it shipped: kernels, schedulers and quantisation recipes improve. The perf model's
factors are fitted on measurements of one stack per vendor (the calibration's, dated),
so a comparison of vendors is a comparison of those stacks. This module makes the stack
an input:

* ``planner/catalog/software-stacks.yaml`` lists, per vendor, dated stacks, each with a
  throughput factor per model class (``dense``, ``moe``) relative to the vendor's
  default stack (the one its calibration rows measured, or for vendors with no
  measurement the mature stack the priors assume), its source, a quote of the published
  figure and how the factor follows from it. ``null`` for a class means no published
  figure: that class keeps the default.
* A scenario's ``software: {VENDOR: STACK_ID}`` picks a stack for a vendor's hardware;
  vendors it does not name use their default. The inference table's rates
  (:data:`planner.perf.inference.SCALED_COLUMNS`) are multiplied by the factor, and its
  ``software`` column names the stack each row assumes (``default``,
  ``rocm7-amd-claim (2025-06-12)``, …).
* Training is not scaled: its efficiency is fitted per (family, precision) on MLPerf
  Training v5.0, which already dates the stack (June 2025) for NVIDIA and AMD alike.

``planner software`` lists the stacks; ``planner vendors`` states the stack of each
vendor in a note.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from planner.errors import InputError, Problem

SOFTWARE_FORMAT = "planner-software/1"
CLASSES = ("dense", "moe")
FILE = "planner/catalog/software-stacks.yaml"


@dataclass(frozen=True)
class Stack:
    """One dated software stack of a vendor, with its throughput factors."""

    vendor: str
    id: str
    as_of: dt.date
    name: str
    factors: dict[str, float | None]
    """Per model class (``dense``, ``moe``): throughput relative to the vendor's default
    stack; None: no published figure (the default's)."""
    source: str
    quote: str = ""
    derivation: str = ""
    default: bool = False
    """The vendor's default stack (factor 1: the calibration where its family has rows,
    else the priors)."""

    def factor(self, moe: bool) -> float:
        """The multiplier on a model of this class (1 where no figure is published)."""
        value = self.factors["moe" if moe else "dense"]
        return 1.0 if value is None else value

    def label(self) -> str:
        """How a table names the stack it assumes: ``default`` (the calibration's stacks,
        dated per model class in its source, or the priors), else ``id (YYYY-MM-DD)``."""
        return "default" if self.default else f"{self.id} ({self.as_of.isoformat()})"


@dataclass(frozen=True)
class Stacks:
    """Every vendor's stacks and default."""

    defaults: dict[str, str]
    by_vendor: dict[str, dict[str, Stack]]

    def stack(self, vendor: str, chosen: str | None = None) -> Stack | None:
        """``chosen`` (else the default) of ``vendor``; None for a vendor with no stacks
        listed (its throughput is as modelled)."""
        stacks = self.by_vendor.get(vendor)
        if stacks is None:
            return None
        return stacks[chosen or self.defaults[vendor]]

    def rows(self) -> list[dict[str, Any]]:
        """One row per stack, for ``planner software`` (defaults first per vendor)."""
        out = []
        for vendor, stacks in self.by_vendor.items():
            ordered = sorted(stacks.values(), key=lambda s: (s.id != self.defaults[vendor], s.id))
            for s in ordered:
                out.append(
                    {
                        "vendor": vendor,
                        "stack": s.id,
                        "default": s.id == self.defaults[vendor],
                        "as_of": s.as_of.isoformat(),
                        "dense_factor": s.factors["dense"],
                        "moe_factor": s.factors["moe"],
                        "name": s.name,
                        "source": s.source,
                    }
                )
        return out


@cache
def software_stacks() -> Stacks:
    """The shipped stacks (package data), checked."""
    text = resources.files("planner.catalog").joinpath("software-stacks.yaml").read_text("utf-8")
    return parse_stacks(text, FILE)


def parse_stacks(text: str, file: str) -> Stacks:
    """Parse a software-stacks document; InputError naming the field on a bad one."""
    data = yaml.safe_load(text)
    problems: list[Problem] = []

    def bad(path: str, message: str, expected: str) -> None:
        problems.append(Problem(path=path, message=message, expected=expected))

    if not isinstance(data, dict) or data.get("format") != SOFTWARE_FORMAT:
        raise InputError(
            file,
            Problem(path="format", message="not a software-stacks file", expected=SOFTWARE_FORMAT),
        )
    defaults: dict[str, str] = {}
    by_vendor: dict[str, dict[str, Stack]] = {}
    for vendor, entry in (data.get("vendors") or {}).items():
        where = f"vendors.{vendor}"
        stacks: dict[str, Stack] = {}
        for i, raw in enumerate((entry or {}).get("stacks") or []):
            path = f"{where}.stacks[{i}]"
            try:
                stack = _stack(str(vendor), raw)
            except (KeyError, TypeError, ValueError) as exc:
                bad(path, f"is not a stack ({exc})", "id, as_of, name, dense, moe, source")
                continue
            if stack.id in stacks:
                bad(f"{path}.id", f"repeats {stack.id!r}", "one entry per stack id")
            stacks[stack.id] = stack
        default = (entry or {}).get("default")
        if default not in stacks:
            bad(f"{where}.default", f"names no stack ({default!r})", f"one of {sorted(stacks)}")
            continue
        stacks[default] = dataclasses.replace(stacks[default], default=True)
        defaults[str(vendor)] = str(default)
        by_vendor[str(vendor)] = stacks
    if problems:
        raise InputError(file, problems)
    return Stacks(defaults, by_vendor)


def _stack(vendor: str, raw: dict[str, Any]) -> Stack:
    factors: dict[str, float | None] = {}
    for name in CLASSES:
        value = raw[name]
        if value is not None and not (isinstance(value, int | float) and 0 < value <= 10):
            raise ValueError(f"{name} must be a number in (0, 10] or null, found {value!r}")
        factors[name] = None if value is None else float(value)
    as_of = raw["as_of"]
    if not isinstance(as_of, dt.date):
        raise ValueError(f"as_of must be a date, found {as_of!r}")
    source = str(raw["source"]).strip()
    if not source:
        raise ValueError("source is empty")
    return Stack(
        vendor=vendor,
        id=str(raw["id"]),
        as_of=as_of,
        name=str(raw["name"]),
        factors=factors,
        source=source,
        quote=str(raw.get("quote") or "").strip(),
        derivation=str(raw.get("derivation") or "").strip(),
    )


def check_software(chosen: dict[str, str]) -> list[Problem]:
    """Problems with a scenario's ``software`` mapping (vendor → stack id)."""
    stacks = software_stacks()
    problems = []
    for vendor, stack_id in chosen.items():
        found = repr(stack_id) if len(stack_id) <= 80 else repr(stack_id[:77]) + "..."
        if vendor not in stacks.by_vendor:
            problems.append(
                Problem(
                    path=f"software.{vendor}",
                    message="no software stacks are listed for this vendor",
                    expected=f"one of {sorted(stacks.by_vendor)} (`planner software` lists them)",
                )
            )
        elif stack_id not in stacks.by_vendor[vendor]:
            problems.append(
                Problem(
                    path=f"software.{vendor}",
                    message="names no stack of this vendor",
                    found=found,
                    expected=f"one of {sorted(stacks.by_vendor[vendor])}",
                )
            )
    return problems


def describe(chosen: dict[str, str], vendors: list[str]) -> str:
    """``NVIDIA: default; AMD: rocm7-amd-claim (2025-06-12); …`` for the vendors of a
    comparison."""
    stacks = software_stacks()
    parts = []
    for vendor in vendors:
        stack = stacks.stack(vendor, chosen.get(vendor))
        parts.append(f"{vendor}: {stack.label() if stack else 'as modelled (none listed)'}")
    return "; ".join(parts)
