"""Scenarios in an assumptions workbook (.xlsx): the sheet layout and the reader.

``planner template`` writes the workbook (:mod:`planner.export.template`); this
module defines its layout and reads it back into the same document a YAML file
gives, so ``load_scenario("inputs.xlsx")`` validates it like any scenario and every
error names the sheet, row and column.

Layout (one sheet per scenario section, header in row 1):

* field sheets (``scenario``, ``horizon``, ``finance``, ``budget``, ``penalties``,
  ``solver``): columns ``field``, ``value``, ``description``; one row per field.
* table sheets (``sites``, ``hardware``, ``rental``, ``existing_fleet``, ``models``,
  ``training``, ``inference``): one row per item, one column per field. A training
  ``window`` is two columns, ``window_first_year`` and ``window_last_year``; a
  hardware ``sites`` list is site names separated by commas.
* ``vendor_share_max``: columns ``vendor``, ``share_max``.
* ``series``: year-indexed values. A year-indexed cell holds one number (the same
  every year) or the text ``see series``; then the values sit on the ``series``
  sheet, one row per (section, item, field) and one column per year. Blank years
  are filled as for YAML (interpolated or held).

Blank cells mean "not given" (the default, or the catalog value). The workbook
holds the scenario after ``extends`` and ``overrides`` were applied: those two rows
on the ``scenario`` sheet record where it came from and are not applied again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import re
import types
import typing
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.utils.datetime import from_excel
from pydantic import BaseModel, ValidationError

from planner.errors import InputError, Problem
from planner.scenario import schema
from planner.scenario.checks import check_scenario
from planner.scenario.loader import format_path, validation_problems
from planner.scenario.yamlio import Location, parse_yaml

SERIES_SHEET = "series"
SERIES_MARKER = "see series"
SERIES_KEYS = ("section", "item", "field")
FIELD_HEADERS = ("field", "value", "description")
MAPPING_HEADERS = ("vendor", "share_max")
WINDOW_COLUMNS = ("window_first_year", "window_last_year")
SCENARIO_FIELDS = ("name", "description", "serving", "calibration", "extends", "overrides")
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


def _column(model: type[BaseModel], name: str) -> Column:
    info = model.model_fields[name]
    kind, choices = _kind(info.annotation)
    if name == "overrides":
        kind = "yaml"
    required = info.is_required()
    return Column(
        header=name,
        field=name,
        kind=kind,
        description=_describe(model, name),
        choices=choices,
        fraction=kind in ("number", "series") and (_is_fraction(info) or name in _FRACTIONS),
        required=required,
        default=None if required else info.default,
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


# ---------------------------------------------------------------- reading


def _normalise(value: Any) -> Any:
    """Blank (or only spaces) is None; other text is kept as typed."""
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _key(value: Any) -> str:
    """A name, id or header as text, without surrounding spaces ("" for blank)."""
    return "" if value is None else str(_as_text(value)).strip()


def _as_text(value: Any) -> Any:
    """A number typed into a text column (a site named 1) is that text."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if isinstance(value, float) and not value.is_integer():
        return repr(value)
    return str(int(value))


def _as_integer(value: Any) -> Any:
    if isinstance(value, float) and not isinstance(value, bool) and value.is_integer():
        return int(value)
    return value


class _Reader:
    """Reads every sheet into a scenario document; collects problems with places."""

    def __init__(self, file: str, values: Any, formulas: Any):
        self.file = file
        self.values, self.formulas = values, formulas
        self.titles = {t.lower(): t for t in values.sheetnames}
        self.problems: list[Problem] = []
        self.places: Places = {}
        self.series: dict[tuple[str, str, str], tuple[int, dict[int, Any]]] = {}
        self.used: set[tuple[str, str, str]] = set()

    def fail(self, path: str, message: str, place: str, **extra: Any) -> None:
        self.problems.append(Problem(path=path, message=message, where=place, **extra))

    def grid(self, title: str) -> tuple[list[Any], list[tuple[int, list[Any]]]]:
        """Header cells and the non-blank rows below them (1-based row numbers)."""
        rows: list[tuple[int, list[Any]]] = []
        pairs = zip(
            self.values[title].iter_rows(values_only=True),
            self.formulas[title].iter_rows(values_only=True),
            strict=False,
        )
        for r, (cells, formulas) in enumerate(pairs, start=1):
            for c, (value, formula) in enumerate(zip(cells, formulas, strict=False), start=1):
                if value is None and formula is not None:
                    self.fail(
                        "",
                        "a formula without a saved result",
                        where(title, r, c),
                        hint="open and save the workbook in Excel or LibreOffice, "
                        "or type the value",
                    )
            normal = [_normalise(v) for v in cells]
            if r == 1 or any(v is not None for v in normal):
                rows.append((r, normal))
        if not rows:
            return [], []
        return rows[0][1], rows[1:]

    def columns(self, title: str, headers: list[Any], need: tuple[str, ...]) -> dict[str, int]:
        """Header text → 1-based column; reports duplicate and missing headers."""
        index: dict[str, int] = {}
        for c, header in enumerate(headers, start=1):
            if header is None:
                continue
            text = _key(header)
            if text in index:
                self.fail("", f"column {text!r} appears twice", where(title, 1, c))
            index.setdefault(text, c)
        for name in need:
            if name not in index:
                self.fail(
                    "",
                    f"no column {name!r} in the header row",
                    where(title, 1),
                    expected=f"row 1 holds: {', '.join(need)}",
                    hint="restore the header row (regenerate with `planner template`)",
                )
        return index

    def convert(self, column: Column, value: Any, path: str, place: str) -> Any:
        if value is None:
            return None
        if isinstance(value, str) and column.field not in FREE_TEXT:
            value = value.strip()
        kind = column.kind
        if kind in ("integer", "window"):
            return _as_integer(value)
        if kind in ("text", "choice"):
            return _as_text(value)
        if kind == "bool" and isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if kind == "date" and isinstance(value, dt.datetime):
            return value.date()
        if kind == "date" and isinstance(value, int | float) and not isinstance(value, bool):
            try:
                return from_excel(value).date()  # a date cell shown as a number (serial day)
            except (ValueError, OverflowError, TypeError):
                return value
        if kind == "list" and isinstance(value, str | int | float):
            text = str(_as_text(value))
            return [] if text == "[]" else [s.strip() for s in text.split(",") if s.strip()]
        if kind == "yaml" and isinstance(value, str):
            try:
                return parse_yaml(value, self.file)[0]
            except InputError as exc:
                self.fail(path, exc.problems[0].message, place, hint="write a YAML mapping")
                return None
        return value

    def read_series(self, title: str) -> None:
        headers, rows = self.grid(title)
        index = self.columns(title, headers, SERIES_KEYS)
        years: dict[int, int] = {}
        for header, c in index.items():
            if header.isdigit() and 1900 < int(header) < 2200:
                years[int(header)] = c
            elif header not in SERIES_KEYS:
                self.fail("", f"column {header!r} is not a year", where(title, 1, c))
        if any(k not in index for k in SERIES_KEYS):
            return
        allowed = series_fields()
        for r, cells in rows:
            section, item, field = (cells[index[k] - 1] for k in SERIES_KEYS)
            if section is None or field is None:
                self.fail("", "give the section and the field", where(title, r))
                continue
            section, item, field = _key(section), _key(item), _key(field)
            if section not in allowed:
                self.fail(
                    "",
                    f"section {section!r} has no year-indexed fields",
                    where(title, r, index["section"], "section"),
                    expected=f"one of: {', '.join(allowed)}",
                )
                continue
            if field not in allowed[section]:
                self.fail(
                    "",
                    f"{section} has no year-indexed field {field!r}",
                    where(title, r, index["field"], "field"),
                    expected=f"one of: {', '.join(allowed[section])}",
                )
                continue
            values = {y: cells[c - 1] for y, c in years.items() if cells[c - 1] is not None}
            key = (section, item, field)
            if key in self.series:
                self.fail("", f"a second row for {section} {item} {field}", where(title, r))
            elif values:
                self.series[key] = (r, values)
                for y, c in years.items():
                    self.places[(SERIES_SHEET, section, item, field, y)] = where(
                        title, r, c, str(y)
                    )

    def year_value(
        self, section: str, labels: list[str], column: Column, value: Any, loc: Location
    ) -> Any:
        path, place = _path(loc), self.places.get(loc, where(section))
        keys = [k for k in ((section, label, column.field) for label in labels) if k in self.series]
        self.used.update(keys)
        if len(keys) > 1:
            self.fail(path, "two rows on the series sheet give this value", place)
            return None
        if not keys:
            if is_series_marker(value):
                self.fail(
                    path,
                    f"the cell says {SERIES_MARKER!r} but no row on the series sheet gives it",
                    place,
                    hint=f"add a row on sheet 'series': section {section}, item "
                    f"{labels[0] or '(blank)'}, field {column.field}, values under the years",
                )
                return None
            return value
        if value is not None and not is_series_marker(value):
            self.fail(
                path,
                "given twice: a value in this cell and values by year on the series sheet",
                place,
                hint=f"keep one: write {SERIES_MARKER!r} here, or delete the series row",
            )
            return None
        r, values = self.series[keys[0]]
        self.places[loc] = where(SERIES_SHEET, r)
        for y in values:
            self.places[(*loc, y)] = self.places[(SERIES_SHEET, *keys[0], y)]
        return dict(values)

    def read_fields(self, sheet: Sheet, title: str) -> dict[str, Any]:
        headers, rows = self.grid(title)
        index = self.columns(title, headers, FIELD_HEADERS[:2])
        if "field" not in index or "value" not in index:
            return {}
        known = {c.field: c for c in sheet.columns}
        base: Location = () if sheet.name == "scenario" else (sheet.name,)
        out: dict[str, Any] = {}
        seen: set[str] = set()
        for r, cells in rows:
            name, value = cells[index["field"] - 1], cells[index["value"] - 1]
            if name is None:
                if value is not None:
                    self.fail(sheet.name, "a value without a field name", where(title, r))
                continue
            name = _key(name)
            loc = (*base, name)
            place = where(title, r, index["value"], "value")
            if name in seen:
                self.fail(_path(loc), f"field {name!r} appears twice", place)
                continue
            seen.add(name)
            self.places[loc] = place
            column = known.get(name)
            if column is None:
                out[name] = value
            elif column.kind == "series":
                out[name] = self.year_value(sheet.name, [""], column, value, loc)
            else:
                out[name] = self.convert(column, value, _path(loc), place)
        return {k: v for k, v in out.items() if v is not None}

    def read_table(self, sheet: Sheet, title: str) -> list[dict[str, Any]]:
        headers, rows = self.grid(title)
        assert sheet.key is not None
        index = self.columns(title, headers, (sheet.key,))
        by_header = {c.header: c for c in sheet.columns}
        keys = [
            _key(cells[index[sheet.key] - 1]) if sheet.key in index else "" for _, cells in rows
        ]
        labels = item_labels(sheet.name, keys)
        items: list[dict[str, Any]] = []
        for i, (r, cells) in enumerate(rows):
            self.places[(sheet.name, i)] = where(title, r)
            item: dict[str, Any] = {}
            window: dict[int, Any] = {}
            for header, c in index.items():
                value = cells[c - 1] if c <= len(cells) else None
                column = by_header.get(header)
                place = where(title, r, c, header)
                if column is None:
                    self.places[(sheet.name, i, header)] = place
                    if value is not None:
                        item[header] = value
                    continue
                loc = (sheet.name, i, column.field)
                if column.kind == "window":
                    j = WINDOW_COLUMNS.index(header)
                    self.places[(*loc, j)] = place
                    self.places.setdefault(loc, place)
                    window[j] = self.convert(column, value, _path((*loc, j)), place)
                    continue
                self.places[loc] = place
                if column.kind == "series":
                    value = self.year_value(
                        sheet.name,
                        list(dict.fromkeys([labels[i], f"#{i + 1}"])),
                        column,
                        value,
                        loc,
                    )
                else:
                    value = self.convert(column, value, _path(loc), place)
                if value is not None:
                    item[column.field] = value
            if any(v is not None for v in window.values()):
                if any(window.get(j) is None for j in (0, 1)):
                    self.fail(
                        _path((sheet.name, i, "window")),
                        "give both window_first_year and window_last_year",
                        self.places[(sheet.name, i, "window")],
                    )
                item["window"] = [window.get(0), window.get(1)]
            items.append(item)
        self._unused_series(sheet.name, labels, title)
        return items

    def _unused_series(self, section: str, labels: list[str], title: str) -> None:
        for key, (r, _) in self.series.items():
            if key[0] == section and key not in self.used:
                self.used.add(key)
                options = [label for label in labels if label]
                if not options and labels:
                    hint = f"leave the item blank: {section} has no items"
                else:
                    hint = "use the item's name or id, or #n for its n-th row"
                self.fail(
                    f"{SERIES_SHEET}.{section}",
                    f"item {key[1]!r} is not on sheet {title!r}",
                    where(SERIES_SHEET, r, 2, "item"),
                    expected=f"one of: {', '.join(options) or '(no items)'}",
                    hint=hint,
                )

    def read_mapping(self, sheet: Sheet, title: str) -> dict[str, Any]:
        headers, rows = self.grid(title)
        index = self.columns(title, headers, MAPPING_HEADERS)
        if any(h not in index for h in MAPPING_HEADERS):
            return {}
        out: dict[str, Any] = {}
        for r, cells in rows:
            vendor, share = (cells[index[h] - 1] for h in MAPPING_HEADERS)
            place = where(title, r, index["share_max"], "share_max")
            if vendor is None:
                self.fail(sheet.name, "a share without a vendor", place)
                continue
            vendor = _key(vendor)
            if vendor in out:
                self.fail(f"{sheet.name}.{vendor}", f"vendor {vendor!r} appears twice", place)
            self.places[(sheet.name, vendor)] = place
            out[vendor] = share
        return out

    def read(self) -> dict[str, Any]:
        names = [s.name for s in SHEETS] + [SERIES_SHEET]
        missing = [n for n in names if n.lower() not in self.titles]
        for name in missing:
            self.fail(
                name,
                f"sheet {name!r} is missing",
                f"sheet {name!r}",
                expected=f"sheets {', '.join(names)}",
                hint="write a fresh workbook with `planner template` and copy the values over",
            )
        if missing:
            return {}
        self.read_series(self.titles[SERIES_SHEET])
        doc: dict[str, Any] = {}
        for sheet in SHEETS:
            title = self.titles[sheet.name]
            self.places[(sheet.name,)] = where(title)
            if sheet.layout == "fields":
                fields = self.read_fields(sheet, title)
                if sheet.name == "scenario":
                    doc.update(fields)
                else:
                    doc[sheet.name] = fields
            elif sheet.layout == "table":
                doc[sheet.name] = self.read_table(sheet, title)
            else:
                doc[sheet.name] = self.read_mapping(sheet, title)
        for section in series_fields():
            if SHEETS_BY_NAME[section].layout == "fields":
                self._unused_series(section, [""], section)
        return doc


def _path(loc: Location) -> str:
    return format_path(loc)


def _open(path: Path) -> tuple[Any, Any]:
    """The workbook twice: cell values (as last computed) and formulas."""
    file = str(path)
    if not path.exists():
        raise InputError(file, Problem(path="", message="file not found", hint="check the path"))
    if path.is_dir():
        raise InputError(file, Problem(path="", message="is a directory, not a workbook"))
    hint = "save it as an Excel workbook (.xlsx), or write one with `planner template`"
    try:
        with zipfile.ZipFile(path) as archive:
            size = sum(info.file_size for info in archive.infolist())
        if size > MAX_BYTES * 10 or path.stat().st_size > MAX_BYTES:
            raise InputError(
                file, Problem(path="", message=f"workbook is too large ({size:,} bytes unpacked)")
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about features it drops
            values = load_workbook(path, data_only=True)
            formulas = load_workbook(path, data_only=False)
    except InputError:
        raise
    except Exception as exc:  # corrupt zip, missing parts, bad XML: all "not a workbook"
        reason = str(exc) or type(exc).__name__
        raise InputError(
            file, Problem(path="", message=f"not a readable .xlsx workbook: {reason}", hint=hint)
        ) from None
    return values, formulas


def read_workbook_document(path: str | Path) -> tuple[dict[str, Any], Places]:
    """The scenario document in a workbook and where each value sits.

    Raises InputError naming sheet, row and column for anything unreadable.
    """
    path = Path(path)
    values, formulas = _open(path)
    reader = _Reader(str(path), values, formulas)
    doc = reader.read()
    if reader.problems:
        raise InputError(str(path), reader.problems)
    return doc, reader.places


def read_scenario_workbook(path: str | Path) -> dict[str, Any]:
    """The raw scenario document (as a YAML file would give it) in a workbook."""
    return read_workbook_document(path)[0]


_YAML_NUMBER_HINT = "write the number without quotes"


def _placed(problem: Problem, places: Places) -> Problem:
    """``problem`` with the sheet, row and column its path points to."""
    parts = [p for p in re.split(r"[.\[\]]+", problem.path) if p]
    loc = tuple(int(p) if p.isdigit() else p for p in parts)
    hint = problem.hint
    if hint and hint.startswith(_YAML_NUMBER_HINT):
        hint = "type a number; the cell holds text (remove any leading apostrophe)"
    for n in range(len(loc), 0, -1):
        if loc[:n] in places:
            return dataclasses.replace(problem, where=places[loc[:n]], hint=hint)
    if loc and loc[0] in SCENARIO_FIELDS:
        return dataclasses.replace(problem, where="sheet 'scenario'", hint=hint)
    return dataclasses.replace(problem, hint=hint)


def load_scenario_workbook(path: str | Path) -> schema.Scenario:
    """Read, validate and check the scenario in a workbook; errors name sheet, row, column."""
    path = Path(path)
    data, places = read_workbook_document(path)
    try:
        scenario = schema.Scenario.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, data, {})
        raise InputError(str(path), [_placed(p, places) for p in problems]) from None
    problems = check_scenario(scenario, base_dir=path.parent)
    if problems:
        raise InputError(str(path), [_placed(p, places) for p in problems])
    if scenario.calibration is not None:  # as load_scenario: relative to the workbook
        calibration = str((path.parent / scenario.calibration).resolve())
        scenario = scenario.model_copy(update={"calibration": calibration})
    return scenario
