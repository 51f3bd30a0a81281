"""Rows of the Assumptions sheet: one per input (or per input and period), with its unit.

Units and fill rules come from the scenario schema's field metadata
(:mod:`planner.scenario.meta`); this module only decides how a row looks.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from planner.export import cells
from planner.scenario.meta import field_meta
from planner.scenario.schema import Scenario
from planner.scenario.series import value_at

ALL = "all"
FRACTIONS = {
    "wacc",
    "maintenance_fraction_of_capex_per_year",
    "utilisation",
    "availability",
    "mfu",
    "cache_hit_rate",
    "mip_gap",
}
SCIENTIFIC = {"tokens", "flops", "rollout_tokens", "tokens_per_day"}
FILL_NOTE = {
    "geometric": "interpolated geometrically between given years, held outside them",
    "hold": "held from the last given year",
}
NAMED = {
    "wacc": "wacc",
    "utilisation": "utilisation",
    "maintenance_fraction_of_capex_per_year": "maintenance_fraction",
    "availability": "availability",
    "unmet_inference_usd_per_mtok": "penalty_usd_per_mtok",
    "unmet_training_usd_per_pflop": "penalty_usd_per_pflop",
}
"""Scenario fields whose cell gets a defined name (read by formulas on other sheets)."""


def number_format(field: str) -> str:
    if field in FRACTIONS:
        return cells.PCT_PRECISE
    if field in SCIENTIFIC:
        return cells.SCIENTIFIC
    if field in ("start", "installed", "window"):
        return cells.YEAR
    if field.endswith("_usd") or field in ("capex_usd", "price_usd"):
        return cells.USD
    if "usd_per" in field:
        return cells.USD_PRECISE
    return cells.GENERAL


@dataclass(frozen=True)
class Period:
    label: Any
    start: float
    length_years: float = 1.0


@dataclass
class Entry:
    """One row of the Assumptions table."""

    section: str
    parameter: str
    item: str
    period: Any
    value: Any
    unit: str = ""
    note: str = ""
    keys: tuple[Hashable, ...] = ()
    """Book.refs keys pointing at this row's value cell."""
    name: str | None = None
    fmt: str | None = None
    formula: str | Callable[[Any], str] | None = None
    """A formula, or a function of the Book giving one (to read cells written above)."""
    expected: float | None = None


def doc(model: type[BaseModel], name: str) -> str:
    """The field's docstring ("" for none)."""
    info = model.model_fields.get(name)
    return (info.description or "") if info is not None else ""


def unit(model: type[BaseModel], name: str) -> str:
    """The field's unit, from the schema."""
    return field_meta(model, name).unit


class Rows:
    """Collects the Assumptions rows of one scenario."""

    def __init__(self, scenario: Scenario, periods: list[Period]) -> None:
        self.scenario = scenario
        self.periods = periods
        self.entries: list[Entry] = []
        self.aliases: dict[Hashable, Hashable] = {}
        """Key → the key whose cell it reads (a site using the finance default)."""

    def add(self, entry: Entry) -> None:
        self.entries.append(entry)

    def series(
        self,
        section: str,
        model: type[BaseModel],
        field: str,
        item: str,
        value: Any,
        note: str,
        key: str | None = None,
        fmt: str | None = None,
    ) -> None:
        """A year-indexed input (field ``field`` of ``model``): one row, or one row per
        period with the value used there."""
        fmt = fmt or number_format(field)
        what = field_meta(model, field)
        keyed = key is not None
        if not isinstance(value, Mapping):
            keys = tuple((key, item, p.label) for p in self.periods) if keyed else ()
            self.add(Entry(section, field, item, ALL, value, what.unit, note, keys, fmt=fmt))
            return
        given = ", ".join(f"{y}: {v:g}" for y, v in sorted(value.items()))
        fill = what.fill or "geometric"
        for p in self.periods:
            self.add(
                Entry(
                    section,
                    field,
                    item,
                    p.label,
                    value_at(dict(value), p.start, fill),
                    what.unit,
                    f"{note} Given {{{given}}}, {FILL_NOTE[fill]}.",
                    ((key, item, p.label),) if keyed else (),
                    fmt=fmt,
                )
            )

    def fields(
        self,
        section: str,
        item: str,
        model: BaseModel,
        skip: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        """Every field of ``model`` (a scenario section or item) not in ``skip``."""
        kind = type(model)
        for name in kind.model_fields:
            if name in skip:
                continue
            value = getattr(model, name)
            note = doc(kind, name)
            if field_meta(kind, name).fill is not None:
                if value is None:
                    self.add(Entry(section, name, item, ALL, "not set", "", note))
                else:
                    self.series(section, kind, name, item, value, note)
                continue
            if name == "window":
                for which, year in zip(("first", "last"), value, strict=True):
                    self.add(
                        Entry(section, f"window ({which} year)", item, ALL, year, "year", note)
                    )
                continue
            shown = "not set" if value is None else value
            if isinstance(value, list):
                shown = ", ".join(str(v) for v in value) or "none"
            named = NAMED.get(name)
            self.add(
                Entry(
                    section,
                    name,
                    item,
                    ALL,
                    shown,
                    unit(kind, name),
                    note,
                    (named,) if named else (),
                    name=named,
                    fmt=number_format(name),
                )
            )
