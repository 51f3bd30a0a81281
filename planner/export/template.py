"""The assumptions workbook: a scenario as sheets an analyst can edit in Excel.

``write_template(path, scenario)`` writes one sheet per scenario section in the
layout :mod:`planner.scenario.workbook` reads back (``planner validate FILE.xlsx``,
``planner run FILE.xlsx``), a ``README`` sheet explaining every field, and a hidden
``lists`` sheet that feeds the drop-down lists (catalog hardware and model ids,
precisions, serving modes, vendors).

With a scenario, the sheets hold that scenario after ``extends`` and ``overrides``
(the ``scenario`` sheet records both as provenance). Without one, field sheets hold
the defaults, required fields are blank, tables have headers and no rows, and the
``series`` sheet offers the years 2026-2031.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from planner.catalog import hardware_catalog, model_catalog
from planner.export import cells
from planner.export.atomic import save_workbook_atomically
from planner.scenario.schema import Scenario
from planner.scenario.workbook_layout import (
    FIELD_HEADERS,
    MAPPING_HEADERS,
    SERIES_KEYS,
    SERIES_MARKER,
    SERIES_SHEET,
    SHEETS,
    WINDOW_COLUMNS,
    Column,
    Sheet,
    item_labels,
    series_fields,
)

README_SHEET = "README"
LISTS_SHEET = "lists"
BLANK_TEMPLATE_YEARS = tuple(range(2026, 2032))
VALIDATION_ROWS = 500  # drop-downs cover this many rows, so added rows get them too
MARKER_FONT = Font(italic=True, color="7F7F7F")

_SCIENTIFIC_FIELDS = {
    "tokens",
    "tokens_per_day",
    "rollout_tokens",
    "flops",
    "training_tokens",
    "training_accelerator_hours",
}
# id columns whose drop-down lists the scenario's own rows (sheet, column A)
_REFERENCES = {
    ("rental", "hardware"): "hardware",
    ("existing_fleet", "hardware"): "hardware",
    ("existing_fleet", "site"): "sites",
    ("training", "model"): "models",
    ("inference", "model"): "models",
}


def number_format(field: str, fraction: bool = False) -> str:
    """The display format of an input field (values are stored unrounded)."""
    if fraction:
        return cells.PCT_PRECISE
    if field.endswith("_usd"):
        return cells.USD
    if "usd_per" in field:
        return cells.USD_PRECISE
    if field in _SCIENTIFIC_FIELDS:
        return cells.SCIENTIFIC
    return cells.GENERAL


class _Series:
    """Rows for the ``series`` sheet, collected while the section sheets are written."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, Column, dict[int, float]]] = []

    def add(self, section: str, item: str, column: Column, values: dict[int, float]) -> None:
        self.rows.append((section, item, column, values))


def _put(cell: Any, column: Column, value: Any, series: _Series, section: str, item: str) -> None:
    if value is None:
        return
    if column.kind == "series" and isinstance(value, dict):
        cells.write_text(cell, SERIES_MARKER).font = MARKER_FONT
        series.add(section, item, column, value)
    elif column.kind == "list":
        cells.write_text(cell, ", ".join(value) if value else "[]")
    elif column.kind == "yaml":
        if value:
            text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**9)
            cells.write_text(cell, text.strip())
    else:
        cells.write_value(cell, value, number_format(column.field, column.fraction))


def _finish(ws: Worksheet, ncols: int, nrows: int, wrap_last: bool = False) -> None:
    cells.style_header_row(ws, 1, ncols)
    cells.add_table(ws, f"A1:{get_column_letter(ncols)}{max(nrows, 1) + 1}", ws.title)
    cells.freeze_header(ws)
    cells.autofit_columns(ws, min_width=10, max_width=50)
    if wrap_last:
        for (cell,) in ws.iter_rows(min_row=2, min_col=ncols, max_col=ncols):
            cell.alignment = Alignment(wrap_text=True, vertical="top")


def _write_fields(ws: Worksheet, sheet: Sheet, values: dict[str, Any], series: _Series) -> None:
    for c, header in enumerate(FIELD_HEADERS, start=1):
        cells.write_text(ws.cell(row=1, column=c), header)
    for r, column in enumerate(sheet.columns, start=2):
        cells.write_text(ws.cell(row=r, column=1), column.field)
        value = values.get(column.field)
        _put(ws.cell(row=r, column=2), column, value, series, sheet.name, "")
        cells.write_text(ws.cell(row=r, column=3), column.description)
    _finish(ws, len(FIELD_HEADERS), len(sheet.columns), wrap_last=True)


def _write_table(ws: Worksheet, sheet: Sheet, items: list[dict[str, Any]], series: _Series) -> None:
    assert sheet.key is not None
    for c, column in enumerate(sheet.columns, start=1):
        cells.write_text(ws.cell(row=1, column=c), column.header)
    labels = item_labels(sheet.name, [str(item[sheet.key]) for item in items])
    for r, (item, label) in enumerate(zip(items, labels, strict=True), start=2):
        for c, column in enumerate(sheet.columns, start=1):
            if column.kind == "window":
                value = item["window"][WINDOW_COLUMNS.index(column.header)]
            else:
                value = item.get(column.field)
            _put(ws.cell(row=r, column=c), column, value, series, sheet.name, label)
    _finish(ws, len(sheet.columns), len(items))


def _write_mapping(ws: Worksheet, shares: dict[str, float]) -> None:
    for c, header in enumerate(MAPPING_HEADERS, start=1):
        cells.write_text(ws.cell(row=1, column=c), header)
    for r, (vendor, share) in enumerate(shares.items(), start=2):
        cells.write_text(ws.cell(row=r, column=1), vendor)
        cells.write_number(ws.cell(row=r, column=2), share, cells.PCT_PRECISE)
    _finish(ws, len(MAPPING_HEADERS), len(shares))


def _write_series(ws: Worksheet, series: _Series, years: list[int]) -> None:
    given = {y for *_, values in series.rows for y in values}
    years = sorted(set(years) | given)
    for c, header in enumerate((*SERIES_KEYS, *years), start=1):
        cells.write_text(ws.cell(row=1, column=c), header)
    for r, (section, item, column, values) in enumerate(series.rows, start=2):
        for c, text in enumerate((section, item, column.field), start=1):
            cells.write_text(ws.cell(row=r, column=c), text)
        for c, year in enumerate(years, start=len(SERIES_KEYS) + 1):
            if year in values:
                fmt = number_format(column.field, column.fraction)
                cells.write_number(ws.cell(row=r, column=c), values[year], fmt)
    _finish(ws, len(SERIES_KEYS) + len(years), len(series.rows))


def _write_lists(ws: Worksheet, scenario: Scenario | None) -> dict[str, str]:
    """Fill the hidden ``lists`` sheet; return list name → absolute range."""
    hardware = hardware_catalog()
    vendors = {h.vendor for h in hardware.values()}
    if scenario is not None:
        vendors |= {h.vendor for h in scenario.hardware if h.vendor}
    lists: dict[str, list[Any]] = {
        "hardware": list(hardware),
        "models": list(model_catalog()),
        "vendor": sorted(vendors),
        "bool": [True, False],
        "section": list(series_fields()),
        "series_field": sorted({f for fs in series_fields().values() for f in fs}),
    }
    for sheet in SHEETS:
        for column in sheet.columns:
            if column.kind == "choice":
                lists.setdefault(column.field, list(column.choices))
    refs: dict[str, str] = {}
    for c, (name, values) in enumerate(lists.items(), start=1):
        cells.write_text(ws.cell(row=1, column=c), name)
        for r, value in enumerate(values, start=2):
            cells.write_value(ws.cell(row=r, column=c), value)
        letter = get_column_letter(c)
        refs[name] = f"{LISTS_SHEET}!${letter}$2:${letter}${len(values) + 1}"
    ws.sheet_state = "hidden"
    return refs


def _validate(ws: Worksheet, col: int, source: str, strict: bool, rows: tuple[int, int]) -> None:
    check = DataValidation(
        type="list",
        formula1=source,
        allow_blank=True,
        errorStyle="stop" if strict else "warning",
        showErrorMessage=True,
        errorTitle="Not in the list",
        error="Pick a value from the list."
        if strict
        else "Not a known id. Continue only for a new entry (then give all its fields).",
    )
    ws.add_data_validation(check)
    letter = get_column_letter(col)
    check.add(f"{letter}{rows[0]}:{letter}{rows[1]}")


def _list_source(sheet: str, column: Column, refs: dict[str, str]) -> tuple[str, bool] | None:
    """The drop-down source of a column and whether other values are refused."""
    if (sheet, column.field) in _REFERENCES:
        target = _REFERENCES[(sheet, column.field)]
        return f"{target}!$A$2:$A${VALIDATION_ROWS}", False
    if sheet in ("hardware", "models") and column.field == "id":
        return refs[sheet], False
    if sheet == "vendor_share_max" and column.field == "vendor":
        return refs["vendor"], False
    if column.kind == "choice":
        return refs[column.field], True
    if column.kind == "bool":
        return refs["bool"], True
    return None


def _add_validations(wb: Workbook, refs: dict[str, str]) -> None:
    for sheet in SHEETS:
        ws = wb[sheet.name]
        for i, column in enumerate(sheet.columns):
            source = _list_source(sheet.name, column, refs)
            if source is None:
                continue
            if sheet.layout == "fields":
                _validate(ws, 2, source[0], source[1], (i + 2, i + 2))
            else:
                _validate(ws, i + 1, source[0], source[1], (2, VALIDATION_ROWS))
    series = wb[SERIES_SHEET]
    _validate(series, 1, refs["section"], True, (2, VALIDATION_ROWS))
    _validate(series, 3, refs["series_field"], True, (2, VALIDATION_ROWS))


_INTRO = (
    "planner assumptions workbook",
    "Edit the values on the sheets, then check and run the scenario: "
    "planner validate FILE.xlsx, then planner run FILE.xlsx.",
    "Field sheets (scenario, horizon, finance, budget, penalties, solver): one row per "
    "field; type the value in column B. A blank value takes the default.",
    "Table sheets (sites, hardware, rental, existing_fleet, models, training, inference): "
    "one row per item, one column per field. Add a row for a new item, delete a row to drop "
    "one. Blank cells take the default; on hardware and models, the catalog value.",
    f"Year-indexed values: one number (the same every year), or the text '{SERIES_MARKER}' "
    "with the values on the 'series' sheet: one row per section, item and field, one column "
    "per year. Blank years are filled in: demand and prices grow geometrically between "
    "given years, caps and budgets hold from the last given year. Add a column headed by a "
    "year for a year not shown.",
    "On the series sheet, item is the row's name or id (blank for finance and budget; #n "
    "for the n-th row where names repeat).",
    "Training windows: window_first_year and window_last_year. Hardware sites: site names "
    "separated by commas (blank = every site).",
    "vendor_share_max: one row per vendor with the largest share of installed accelerators "
    "it may have (e.g. 70%).",
    "Drop-down lists offer catalog hardware and model ids, precisions and serving modes. An "
    "id outside the catalog defines a new system or model: then fill every catalog column.",
    "extends and overrides (scenario sheet) record where this scenario came from: they were "
    "applied when the workbook was written and are not applied again when it is read.",
    "Problems are reported with the sheet, row and column to fix.",
)
_README_HEADERS = ("sheet", "column or field", "kind", "default", "description")
_README_WIDTHS = (18, 36, 56, 16, 100)
_KINDS = {
    "number": "number",
    "integer": "whole number",
    "series": f"year-indexed number, or '{SERIES_MARKER}'",
    "text": "text",
    "bool": "TRUE or FALSE",
    "date": "date",
    "list": "names separated by commas",
    "window": "year",
    "yaml": "YAML mapping or list (overrides: provenance only)",
}


_FILL_TEXT = {
    "geometric": "blank years grow geometrically between given years",
    "hold": "blank years hold the last given value",
}


def _kind_text(column: Column) -> str:
    if column.choices:
        return "one of: " + ", ".join(column.choices)
    text = _KINDS.get(column.kind, column.kind)
    if column.unit:
        text += f"; unit: {column.unit}"
    if column.fill is not None:
        text += f"; {_FILL_TEXT[column.fill]}"
    return text


def _default_text(sheet: Sheet, column: Column) -> str:
    if column.required:
        return "required"
    if column.default_from:
        return column.default_from
    own = {"id", "price_usd", "max_units_per_year", "sites"}
    if sheet.name in ("hardware", "models") and column.field not in own:
        return "catalog value"
    if column.default is None or column.default in ("", {}, []):
        return ""
    return str(column.default)


def _readme_rows() -> list[tuple[str, str, str, str, str]]:
    rows = [
        (s.name, c.header, _kind_text(c), _default_text(s, c), c.description)
        for s in SHEETS
        for c in s.columns
    ]
    rows += [
        (SERIES_SHEET, "section", "sheet name", "", "Section of the value, e.g. inference."),
        (SERIES_SHEET, "item", "text", "", "Name or id of the row (#n: n-th row)."),
        (SERIES_SHEET, "field", "text", "", "Year-indexed field, e.g. tokens_per_day."),
        (SERIES_SHEET, "2026, 2027, ...", "number", "", "The value in that year."),
    ]
    return rows


def _write_readme(ws: Worksheet) -> None:
    for r, text in enumerate(_INTRO, start=1):
        cells.write_text(ws.cell(row=r, column=1), text)
    ws.cell(row=1, column=1).font = Font(bold=True, size=14)
    top = len(_INTRO) + 2
    for c, header in enumerate(_README_HEADERS, start=1):
        cells.write_text(ws.cell(row=top, column=c), header)
        ws.column_dimensions[get_column_letter(c)].width = _README_WIDTHS[c - 1]
    rows = _readme_rows()
    for r, row in enumerate(rows, start=top + 1):
        for c, text in enumerate(row, start=1):
            cells.write_text(ws.cell(row=r, column=c), text)
    cells.style_header_row(ws, top, len(_README_HEADERS))
    last = get_column_letter(len(_README_HEADERS))
    cells.add_table(ws, f"A{top}:{last}{top + len(rows)}", "fields")


def build_template(scenario: Scenario | None = None) -> Workbook:
    """The assumptions workbook for ``scenario`` (or a blank one with defaults)."""
    wb = Workbook()
    readme = wb.active
    readme.title = README_SHEET
    data = scenario.model_dump() if scenario is not None else None
    series = _Series()
    for sheet in SHEETS:
        ws = wb.create_sheet(sheet.name)
        if sheet.layout == "fields":
            if data is None:
                values = {c.field: c.default for c in sheet.columns}
            else:
                values = data if sheet.name == "scenario" else data[sheet.name]
            _write_fields(ws, sheet, values, series)
        elif sheet.layout == "table":
            _write_table(ws, sheet, [] if data is None else data[sheet.name], series)
        else:
            _write_mapping(ws, {} if data is None else data[sheet.name])
    years = scenario.horizon.year_list if scenario else list(BLANK_TEMPLATE_YEARS)
    _write_series(wb.create_sheet(SERIES_SHEET), series, years)
    refs = _write_lists(wb.create_sheet(LISTS_SHEET), scenario)
    _add_validations(wb, refs)
    _write_readme(readme)
    wb.active = 0
    return wb


def write_template(path: str | Path, scenario: Scenario | None = None) -> Path:
    """Write the assumptions workbook to ``path`` atomically; return the path."""
    return save_workbook_atomically(build_template(scenario), path)
