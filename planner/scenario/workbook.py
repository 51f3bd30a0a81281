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
import logging
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import planner.scenario.schema as schema
from planner.errors import InputError, Problem
from planner.scenario.checks import check_scenario
from planner.scenario.problems import validation_problems
from planner.scenario.salvage import salvage
from planner.scenario.workbook_layout import (
    FIELD_HEADERS,
    MAPPING_HEADERS,
    SCENARIO_FIELDS,
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
from planner.scenario.workbook_open import open_workbooks
from planner.scenario.workbook_reader import WorkbookReader
from planner.units import NO_CALIBRATION

log = logging.getLogger("planner.scenario")

__all__ = [
    "FIELD_HEADERS",
    "MAPPING_HEADERS",
    "SERIES_KEYS",
    "SERIES_MARKER",
    "SERIES_SHEET",
    "SHEETS",
    "SHEETS_BY_NAME",
    "WINDOW_COLUMNS",
    "Column",
    "Sheet",
    "is_series_marker",
    "item_labels",
    "load_scenario_workbook",
    "read_scenario_workbook",
    "read_workbook_document",
    "series_fields",
    "where",
]


def read_workbook_document(path: str | Path) -> tuple[dict[str, Any], Places]:
    """The scenario document in a workbook and where each value sits.

    Raises InputError naming sheet, row and column for anything unreadable.
    """
    path = Path(path)
    values, formulas = open_workbooks(path)
    try:
        reader = WorkbookReader(str(path), values, formulas)
        doc = reader.read()
    finally:
        values.close()
        formulas.close()
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
        # Type problems, and the reference, year and fit problems of the sound rest,
        # as for a YAML file (planner.scenario.salvage): every problem in one pass.
        problems = validation_problems(exc, data, {})
        rest = salvage(exc, data)
        if rest is not None:
            found = check_scenario(rest.scenario, base_dir=path.parent, withheld=rest.withheld)
            problems += [rest.in_file(p) for p in found]
        raise InputError(str(path), [_placed(p, places) for p in problems]) from None
    problems = check_scenario(scenario, base_dir=path.parent)
    if problems:
        raise InputError(str(path), [_placed(p, places) for p in problems])
    if scenario.overrides or scenario.extends:
        # Say so rather than ignore it: someone may have typed overrides into the cell.
        log.warning(
            "%s: the scenario sheet's extends/overrides cells record where this scenario "
            "came from and are not applied again (the sheets already hold their result); "
            "to change a value, edit it on its sheet",
            path,
        )
    if scenario.calibration not in (None, NO_CALIBRATION):  # as load_scenario: relative
        calibration = str((path.parent / scenario.calibration).resolve())
        scenario = scenario.model_copy(update={"calibration": calibration})
    return scenario
