"""Read an assumptions workbook's sheets into a scenario document, with places.

The layout is :mod:`planner.scenario.workbook_layout`; :class:`WorkbookReader` turns
each sheet into the document a YAML file gives and records, for every value, the
sheet, row and column it came from, so errors can point there.
"""

from __future__ import annotations

import datetime as dt
from itertools import zip_longest
from typing import Any

from openpyxl.utils.datetime import from_excel

from planner.errors import InputError, Problem
from planner.scenario.problems import format_path
from planner.scenario.workbook_layout import (
    FIELD_HEADERS,
    FREE_TEXT,
    MAPPING_HEADERS,
    SERIES_KEYS,
    SERIES_MARKER,
    SERIES_SHEET,
    SHEETS,
    SHEETS_BY_NAME,
    WINDOW_COLUMNS,
    Column,
    Places,
    Sheet,
    is_series_marker,
    item_labels,
    series_fields,
    where,
)
from planner.scenario.workbook_open import CellBudget, bounded_rows
from planner.scenario.yamlio import Location, parse_yaml

EXCEL_ERRORS = frozenset(
    ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#SPILL!", "#CALC!")
)
"""What a cell shows when its formula fails; reported as such, never as text to unquote."""


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


class WorkbookReader:
    """Reads every sheet into a scenario document; collects problems with places."""

    def __init__(self, file: str, values: Any, formulas: Any):
        self.file = file
        self.values, self.formulas = values, formulas
        self.titles = {t.lower(): t for t in values.sheetnames}
        self.problems: list[Problem] = []
        self.places: Places = {}
        self.series: dict[tuple[str, str, str], tuple[int, dict[int, Any]]] = {}
        self.used: set[tuple[str, str, str]] = set()
        self.value_cells, self.formula_cells = CellBudget(file), CellBudget(file)

    def fail(self, path: str, message: str, place: str, **extra: Any) -> None:
        self.problems.append(Problem(path=path, message=message, where=place, **extra))

    def grid(self, title: str) -> tuple[list[Any], list[tuple[int, list[Any]]]]:
        """Header cells and the non-blank rows below them (1-based row numbers)."""
        rows: list[tuple[int, list[Any]]] = []
        pairs = zip_longest(
            bounded_rows(self.values[title], title, self.value_cells),
            bounded_rows(self.formulas[title], title, self.formula_cells),
            fillvalue=(),
        )
        for r, (cells, formulas) in enumerate(pairs, start=1):
            for c, (value, formula) in enumerate(zip_longest(cells, formulas), start=1):
                if isinstance(value, str) and value.strip().upper() in EXCEL_ERRORS:
                    self.fail(
                        "",
                        f"the cell shows the spreadsheet error {value.strip()}",
                        where(title, r, c),
                        hint="fix its formula (a division by zero, a broken reference) or type "
                        "the value, then save",
                    )
                elif value is None and formula is not None:
                    self.fail(
                        "",
                        "a formula without a saved result",
                        where(title, r, c),
                        hint="open and save the workbook in Excel or LibreOffice, "
                        "or type the value",
                    )
            normal = [
                None if isinstance(v, str) and v.strip().upper() in EXCEL_ERRORS else _normalise(v)
                for v in cells
            ]
            if r == 1 or any(v is not None for v in normal):
                rows.append((r, normal))
        if not rows:
            return [], []
        width = max(len(row) for _, row in rows)  # rows end at their last value
        for _, row in rows:
            row.extend([None] * (width - len(row)))
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
