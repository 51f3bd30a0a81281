"""The fleet model as arrays, built by the same constraint families as the Pyomo model.

The constraint families compute their rows as data (:mod:`planner.optimize.linear`):
``{key: (lower, [(coefficient, variable), ...], upper)}``. Given a :class:`RowModel`
instead of a Pyomo model, and each family's variables as column numbers, the same
functions append numbered rows straight into compressed sparse rows; nothing is
wrapped as a Pyomo expression to be taken apart again for HiGHS
(:mod:`planner.optimize.solvers.handoff`). Columns come in one numbered block per
variable family (:func:`planner.optimize.variables.column_families`), each with its
role (:data:`planner.optimize.roles.ROLES`); objectives are named vectors.

This is the first step of moving the solve off Pyomo: ``tests/optimize/test_rows.py``
checks that :meth:`RowModel.arrays` equals the hand-off's arrays of the Pyomo model on
every shipped and test scenario (same columns, rows, coefficients, bounds, integers and
cost), so the solve can switch over and the hand-off be deleted without a plan moving.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner import deadline
from planner.optimize.data import ModelData
from planner.optimize.roles import ROLES, Kind
from planner.optimize.variables import Vars, column_families

Row = tuple[float | None, list[tuple[float, int]], float | None]
"""A row over column numbers: (lower or None, [(coefficient, column)], upper or None)."""


@dataclass(frozen=True)
class Block:
    """A numbered range of columns or rows: ``start`` to ``start + len(keys)``."""

    start: int
    keys: tuple[Any, ...]


class RowModel:
    """Columns in blocks, rows as CSR, objectives as named vectors."""

    def __init__(self) -> None:
        self.columns: dict[str, Block] = {}
        self.rows: dict[str, Block] = {}
        self.col_lower: list[float] = []
        self.col_upper: list[float] = []
        self.integer: list[bool] = []
        self.start: list[int] = [0]
        self.index: list[int] = []
        self.value: list[float] = []
        self.row_lower: list[float] = []
        self.row_upper: list[float] = []
        self.objectives: dict[str, np.ndarray] = {}
        self.offsets: dict[str, float] = {}

    @property
    def column_count(self) -> int:
        return len(self.col_lower)

    def add_columns(
        self, name: str, keys: list[Any], bounds: Any, integer: bool, upper: float | None
    ) -> dict[Any, int]:
        """Block ``name`` of one column per key, bounds ``bounds(key)`` (or [0, upper]);
        returns key → column."""
        first = self.column_count
        self.columns[name] = Block(first, tuple(keys))
        for key in keys:
            low, high = (0.0, upper) if bounds is None else bounds(key)
            high = upper if high is None else (high if upper is None else min(high, upper))
            self.col_lower.append(float(low))
            self.col_upper.append(np.inf if high is None else float(high))
            self.integer.append(integer)
        return {key: first + i for i, key in enumerate(keys)}

    def append_rows(self, name: str, rows: Mapping[Any, Row]) -> None:
        """Block ``name`` of the rows with terms (a row without terms constrains nothing
        and is skipped, as the Pyomo model skips it); a column named twice in a row
        counts once with the coefficients summed."""
        first, kept = len(self.row_lower), []
        for key, (lower, terms, upper) in rows.items():
            if not terms:
                continue
            merged: dict[int, float] = {}
            for coefficient, column in terms:
                merged[column] = merged.get(column, 0.0) + coefficient
            self.index.extend(merged)
            self.value.extend(merged.values())
            self.start.append(len(self.index))
            self.row_lower.append(-np.inf if lower is None else float(lower))
            self.row_upper.append(np.inf if upper is None else float(upper))
            kept.append(key)
        self.rows[name] = Block(first, tuple(kept))

    def set_objective(
        self, name: str, coefficients: Mapping[str, Mapping[Any, float]], offset: float = 0.0
    ) -> None:
        """Objective ``name``: family → key → coefficient, as a dense column vector, plus
        the constant ``offset``."""
        self.offsets[name] = offset
        vector = np.zeros(self.column_count)
        for family, by_key in coefficients.items():
            block = self.columns[family]
            where = {key: block.start + i for i, key in enumerate(block.keys)}
            for key, coefficient in by_key.items():
                if coefficient:
                    vector[where[key]] += coefficient
        self.objectives[name] = vector

    def arrays(self, objective: str = "cost") -> Any:
        """The model as :class:`planner.optimize.solvers.handoff.Arrays` (columns named
        ``(family, key)``), minimising ``objective``."""
        from planner.optimize.solvers.handoff import Arrays

        names = [(name, key) for name, block in self.columns.items() for key in block.keys]
        return Arrays(
            columns=names,
            rows={},
            col_lower=np.array(self.col_lower, dtype=np.double),
            col_upper=np.array(self.col_upper, dtype=np.double),
            cost=self.objectives[objective].copy(),
            offset=self.offsets.get(objective, 0.0),
            maximise=False,
            row_lower=np.array(self.row_lower, dtype=np.double),
            row_upper=np.array(self.row_upper, dtype=np.double),
            start=np.array(self.start, dtype=np.int32),
            index=np.array(self.index, dtype=np.int32),
            value=np.array(self.value, dtype=np.double),
            integers=np.flatnonzero(self.integer).astype(np.int32),
        )


def build_rows(data: ModelData) -> RowModel:
    """``data``'s model as a :class:`RowModel`: the Pyomo model's columns and rows, by
    the same constraint families, and its objectives: ``"cost"`` (NPV cost plus
    penalties, USD millions: the Pyomo model's, its constant the ``offset``), ``"npv"``
    (without the penalties) and
    ``"service"`` (the priority-weighted unserved share, scaled)."""
    from planner.optimize.model import FAMILIES
    from planner.optimize.objective import (
        PENALTY_FAMILIES,
        pv_cost_coefficients,
        pv_cost_constant,
        service_coefficients,
        service_scale,
    )

    model = RowModel()
    columns: dict[str, dict[Any, int]] = {}
    for family in column_families(data):
        kind = ROLES[family.name].kind
        whole = kind != Kind.CONTINUOUS and not data.relax
        upper = 1.0 if kind == Kind.CHOICE else None
        columns[family.name] = model.add_columns(
            family.name, family.keys, family.bounds, whole, upper
        )
    var = Vars(**columns)  # column numbers in place of Pyomo variables
    for name, add in FAMILIES:
        if name == "objective":
            cost = pv_cost_coefficients(data)
            constant = pv_cost_constant(data)  # the power contracts: no column carries them
            model.set_objective("cost", cost, constant)  # NPV cost plus penalties, as Pyomo's
            npv = {f: by for f, by in cost.items() if f not in PENALTY_FAMILIES}
            model.set_objective("npv", npv, constant)  # the cash-cost NPV (:func:`npv_cost`)
            scale = service_scale(data)
            service = {
                f: {k: c * scale for k, c in by.items()}
                for f, by in service_coefficients(data).items()
            }
            model.set_objective("service", service)  # :func:`unserved_share`
            continue
        deadline.check(f"the model build ({name} rows)")
        add(model, data, var)  # type: ignore[arg-type]
    return model
