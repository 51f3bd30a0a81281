"""``Hardware`` and ``Models``: the catalog rows the scenario used, overrides applied.

Every row keeps its ``source`` and ``as_of`` columns. The Hardware cells that fleet
formulas read (accelerators, power_kw, lifetime_years, price_usd) are remembered as
``("hw", field, id)``, and so are two columns the optimiser adds to every unit when
``finance.network_and_storage`` is on (0 when it is off): the scale-out network and
storage capex per unit (``network_storage_usd_per_unit``) and their IT power
(``network_storage_kw_per_unit``). :func:`unit_price` and :func:`unit_kw` are the
formulas of what the optimiser charges per unit.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pandas as pd
from pydantic import BaseModel

from planner.economics.addons import network_storage_kw_per_unit, network_storage_usd_per_unit
from planner.export import cells
from planner.export.sheets.book import Book, Column, write_table
from planner.scenario.resolve import hardware_specs, model_specs
from planner.scenario.schema import Scenario

ADDON_COLUMNS = (
    Column("network_storage_usd_per_unit", "network_storage_usd_per_unit (in price)", cells.USD),
    Column("network_storage_kw_per_unit", "network_storage_kw_per_unit (in power)", cells.DECIMAL2),
)
HARDWARE_REFS = (
    "accelerators",
    "power_kw",
    "lifetime_years",
    "price_usd",
    *(c.key for c in ADDON_COLUMNS),
)


def unit_price(book: Book, hardware: str, price: str) -> str:
    """The price the optimiser charges per unit: the list ``price`` cell plus the unit's
    network and storage capex (0 unless the scenario counts them)."""
    return f"({price}+{book.ref(('hw', 'network_storage_usd_per_unit', hardware))})"


def unit_kw(book: Book, hardware: str) -> str:
    """A unit's IT power, kW: the system's plus its network and storage power."""
    power = book.ref(("hw", "power_kw", hardware))
    return f"({power}+{book.ref(('hw', 'network_storage_kw_per_unit', hardware))})"


def _format(name: str, annotation: object) -> str | None:
    if name.endswith("_usd"):
        return cells.USD
    if name in ("price_year", "release_year"):
        return cells.YEAR
    if name.startswith("mfu"):
        return cells.PCT
    if annotation is dt.date or "date" in str(annotation):
        return cells.DATE
    if name.endswith(("_b", "_kw", "_tbps")):
        return cells.DECIMAL2
    if "int" in str(annotation) or name.endswith(("_tflops_bf16", "_fp8", "_fp4", "_hours")):
        return cells.THOUSANDS
    return None


def _columns(model: type[BaseModel]) -> list[Column]:
    return [Column(n, n, _format(n, f.annotation)) for n, f in model.model_fields.items()]


def _frame(rows: Sequence[BaseModel]) -> pd.DataFrame:
    return pd.DataFrame([r.model_dump() for r in rows])


def write_hardware(book: Book, scenario: Scenario) -> None:
    ws = book.sheet("Hardware")
    specs = list(hardware_specs(scenario).values())
    model = type(specs[0])
    frame = _frame(specs).assign(
        network_storage_usd_per_unit=[network_storage_usd_per_unit(scenario, s) for s in specs],
        network_storage_kw_per_unit=[network_storage_kw_per_unit(scenario, s) for s in specs],
    )
    table = write_table(book, ws, "Hardware", frame, [*_columns(model), *ADDON_COLUMNS])
    for i, spec in enumerate(specs):
        for name in HARDWARE_REFS:
            book.refs[("hw", name, spec.id)] = table.cell(name, i)
    cells.freeze_header(ws, 1, 1)
    book.fit_widths(ws)


def write_models(book: Book, scenario: Scenario) -> None:
    ws = book.sheet("Models")
    specs = list(model_specs(scenario).values())
    write_table(book, ws, "Models", _frame(specs), _columns(type(specs[0])))
    cells.freeze_header(ws, 1, 1)
    book.fit_widths(ws)
