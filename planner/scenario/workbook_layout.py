"""The layout of an assumptions workbook (.xlsx): which sheet holds which field, how.

Shared by the writer (:mod:`planner.export.template`) and the reader
(:mod:`planner.scenario.workbook_reader`), so both agree on every sheet, column and
marker; :mod:`planner.scenario.workbook` describes the layout for the analyst.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import types
import typing
from dataclasses import dataclass
from typing import Any

from openpyxl.utils import get_column_letter
from pydantic import BaseModel

import planner.scenario.schema as schema
from planner.scenario.meta import field_meta, model_in
from planner.scenario.series import Fill
from planner.scenario.yamlio import Location

SERIES_SHEET = "series"
SERIES_MARKER = "see series"
SERIES_KEYS = ("section", "item", "field")
FIELD_HEADERS = ("field", "value", "description")
MAPPING_HEADERS = ("vendor", "share_max")
WINDOW_COLUMNS = ("window_first_year", "window_last_year")
SCENARIO_FIELDS = (
    "name",
    "description",
    "serving",
    "calibration",
    "software",
    "throughput_scale",
    "extends",
    "overrides",
)
MAX_BYTES = 20_000_000
FREE_TEXT = {"description", "notes"}  # kept exactly as typed; other text is stripped

Places = dict[Location, str]

# Fractions whose type lost its bounds (catalog overrides are plain ``float | None``).
_FRACTIONS = {"mfu_training"}


@dataclass(frozen=True)
class Column:
    """One field as a column (table sheets) or a row (field sheets)."""

    header: str
    field: str
    kind: str  # number integer series text choice bool date list window yaml
    description: str = ""
    choices: tuple[str, ...] = ()
    fraction: bool = False
    required: bool = False
    default: Any = None
    unit: str = ""
    fill: Fill | None = None
    """Year-indexed columns: how blank years are filled (planner.scenario.meta)."""
    default_from: str | None = None
    """The field a blank cell takes (a site's ``pue``: ``finance.pue``)."""


@dataclass(frozen=True)
class Sheet:
    name: str
    layout: str  # "fields", "table" or "mapping"
    model: type[BaseModel]
    columns: tuple[Column, ...]
    key: str | None = None  # table sheets: the field naming an item


def _flat(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _flat(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [a for arg in typing.get_args(annotation) for a in _flat(arg)]
    return [] if annotation is type(None) else [annotation]


def _is_fraction(info: Any) -> bool:
    metadata = list(info.metadata)
    for arg in typing.get_args(info.annotation):
        for extra in typing.get_args(arg)[1:] if typing.get_origin(arg) is typing.Annotated else []:
            metadata += getattr(extra, "metadata", [extra])
    bounds = {(type(m).__name__, getattr(m, "ge", getattr(m, "le", None))) for m in metadata}
    return {("Ge", 0), ("Le", 1)} <= bounds


def _kind(annotation: Any) -> tuple[str, tuple[str, ...]]:
    args = _flat(annotation)
    origins = {typing.get_origin(a) for a in args}
    if dict in origins:
        return "series", ()
    if list in origins:
        return "list", ()
    for a in args:
        if typing.get_origin(a) is typing.Literal:
            values = typing.get_args(a)
            kind = "integer" if all(isinstance(v, int) for v in values) else "choice"
            return kind, tuple(str(v) for v in values)
    for kind, types_ in (("date", dt.date), ("bool", bool), ("integer", int), ("number", float)):
        if types_ in args:
            return kind, ()
    return "text", ()


_CATALOG_ROWS: dict[str, type[BaseModel]] = {
    "HardwareChoice": schema.HardwareSpec,
    "ModelChoice": schema.ModelSpec,
}


def _describe(model: type[BaseModel], name: str) -> str:
    """The field's docstring (catalog overrides: the catalog field's), without RST quotes."""
    info = model.model_fields[name]
    spec = _CATALOG_ROWS.get(model.__name__)
    text = info.description
    if not text and spec is not None and name in spec.model_fields:
        text = spec.model_fields[name].description
    return (text or "").replace("``", "")


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def _column(model: type[BaseModel], name: str) -> Column:
    info = model.model_fields[name]
    kind, choices = _kind(info.annotation)
    if name in ("overrides", "software") or model_in(info.annotation) is not None:
        kind = "yaml"  # a mapping or nested section (build, lease, commitments): one YAML cell
    required = info.is_required()
    what = field_meta(model, name)
    return Column(
        header=name,
        field=name,
        kind=kind,
        description=_describe(model, name),
        choices=choices,
        fraction=kind in ("number", "series") and (_is_fraction(info) or name in _FRACTIONS),
        required=required,
        # a section's default (throughput_scale) as the plain mapping its YAML cell holds
        default=None if required else _plain(info.default),
        unit=what.unit,
        fill=what.fill,
        default_from=what.default_from,
    )


def _table_columns(model: type[BaseModel], key: str) -> tuple[Column, ...]:
    declared = inspect.get_annotations(model)  # this class's own fields, not inherited ones
    own = [n for n in model.model_fields if n in declared]
    names = [key] + [n for n in own if n != key]
    names += [n for n in model.model_fields if n not in names]
    columns: list[Column] = []
    for name in names:
        col = _column(model, name)
        if name == "window":
            columns += [
                dataclasses.replace(col, header=h, kind="window", required=True)
                for h in WINDOW_COLUMNS
            ]
        else:
            columns.append(col)
    return tuple(columns)


def _field_sheet(name: str, model: type[BaseModel], fields: tuple[str, ...] = ()) -> Sheet:
    names = fields or tuple(model.model_fields)
    return Sheet(name, "fields", model, tuple(_column(model, n) for n in names))


def _table_sheet(name: str, model: type[BaseModel], key: str) -> Sheet:
    return Sheet(name, "table", model, _table_columns(model, key), key=key)


SHEETS: tuple[Sheet, ...] = (
    _field_sheet("scenario", schema.Scenario, SCENARIO_FIELDS),
    _field_sheet("horizon", schema.Horizon),
    _field_sheet("finance", schema.Finance),
    _table_sheet("sites", schema.Site, "name"),
    _field_sheet("budget", schema.Budget),
    _table_sheet("hardware", schema.HardwareChoice, "id"),
    _table_sheet("rental", schema.Rental, "hardware"),
    _table_sheet("existing_fleet", schema.ExistingFleet, "hardware"),
    _table_sheet("models", schema.ModelChoice, "id"),
    _table_sheet("training", schema.TrainingRun, "name"),
    _table_sheet("inference", schema.InferenceWorkload, "name"),
    Sheet(
        "vendor_share_max",
        "mapping",
        schema.Scenario,
        (
            Column("vendor", "vendor", "text", "Chip vendor as in the catalog, e.g. NVIDIA."),
            Column(
                "share_max",
                "share_max",
                "number",
                "Most this vendor's accelerators may be of the installed fleet (0-1).",
                fraction=True,
            ),
        ),
    ),
    _field_sheet("penalties", schema.Penalties),
    _field_sheet("solver", schema.Solver),
)
SHEETS_BY_NAME = {s.name: s for s in SHEETS}


def series_fields() -> dict[str, tuple[str, ...]]:
    """Sheet → its year-indexed fields (the sections the ``series`` sheet may name)."""
    out = {s.name: tuple(c.field for c in s.columns if c.kind == "series") for s in SHEETS}
    return {k: v for k, v in out.items() if v}


def item_labels(sheet: str, keys: list[str]) -> list[str]:
    """How the ``series`` sheet names each item: its key, or ``#n`` where keys repeat."""
    if SHEETS_BY_NAME[sheet].layout != "table":
        return [""] * len(keys)
    return [k if keys.count(k) == 1 else f"#{i + 1}" for i, k in enumerate(keys)]


def where(sheet: str, row: int | None = None, col: int | None = None, header: str = "") -> str:
    """``sheet 'inference', row 3, column F (cache_hit_rate)``."""
    text = f"sheet {sheet!r}"
    if row is not None:
        text += f", row {row}"
    if col is not None:
        text += f", column {get_column_letter(col)}" + (f" ({header})" if header else "")
    return text


def is_series_marker(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower() in (SERIES_MARKER, "series")
