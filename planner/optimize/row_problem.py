"""The array model (:mod:`planner.optimize.rows`) as the one-instance solve's problem,
and its plan read back as a :class:`planner.optimize.extract.Solution` — no Pyomo.

:func:`row_problem` gives :func:`planner.optimize.solvers.lexicographic.solve_problem`
the model's arrays with the service objective, the NPV cost vector, the slack columns
(by role, :mod:`planner.optimize.roles`), the assignment columns column generation
holds back (:func:`planner.optimize.assignments.held_keys`) and :func:`round_columns`,
which applies :func:`planner.optimize.strategy.round_plan`'s rules to a column vector.
:func:`solution_of` reads a plan's column vector the way
:func:`planner.optimize.extract.extract` reads a Pyomo model. On the same model both
paths give the same plan (``tests/optimize/test_row_problem.py``).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np

from planner.economics.load_shape import lost_charged
from planner.optimize.assignments import held_keys
from planner.optimize.data import ModelData
from planner.optimize.extract import ZERO, Solution
from planner.optimize.roles import ROLES, Kind, Part, Rounding, families
from planner.optimize.rows import RowModel
from planner.optimize.solvers.instance import Problem
from planner.optimize.strategy import chosen_clusters, chosen_menu, whole
from planner.units import USD_SCALE


def _span(rows: RowModel, family: str) -> slice:
    block = rows.columns[family]
    return slice(block.start, block.start + len(block.keys))


def round_columns(rows: RowModel, values: np.ndarray, up: bool) -> np.ndarray:
    """``values`` with every whole and choice family made whole by
    :func:`planner.optimize.strategy.round_plan`'s rules (the same functions, on a
    column vector instead of Pyomo variables)."""
    out = np.array(values, dtype=np.double)
    for name, direction in (
        *((f, False) for f in families(rounding=Rounding.DOWN)),
        *((f, up) for f in families(rounding=Rounding.UP_OR_DOWN)),
    ):
        part = _span(rows, name)
        out[part] = [whole(v, direction) for v in out[part]]
    x_train, y_block, z_block = (rows.columns[f] for f in ("x_train", "y", "z_train"))
    work = zip(x_train.keys, out[_span(rows, "x_train")].tolist(), strict=True)
    chosen = chosen_clusters(work, y_block.keys)
    out[_span(rows, "y")] = [1.0 if key in chosen else 0.0 for key in y_block.keys]
    menu = zip(z_block.keys, out[_span(rows, "z_train")].tolist(), strict=True)
    picked = chosen_menu(menu, chosen)
    out[_span(rows, "z_train")] = [1.0 if key in picked else 0.0 for key in z_block.keys]
    return out


def row_problem(rows: RowModel, data: ModelData) -> Problem:
    """The one-instance problem of ``rows`` (built by :func:`build_rows`); the plan the
    solve finds comes back as :attr:`Lexicographic.values` (nothing to load)."""
    slacks = [
        np.arange(rows.columns[f].start, rows.columns[f].start + len(rows.columns[f].keys))
        for f in families(part=Part.SLACK)
    ]
    x_inf = rows.columns["x_inf"]
    position = {key: x_inf.start + i for i, key in enumerate(x_inf.keys)}
    held = held_keys(data)
    labels: dict[Any, int] = {}
    groups = [labels.setdefault(group, len(labels)) for _, group in held]
    return Problem(
        arrays=rows.arrays("service"),
        cost=rows.objectives["npv"].copy(),
        offset=rows.offsets.get("npv", 0.0),
        slacks=np.concatenate(slacks).astype(np.int64) if slacks else np.zeros(0, np.int64),
        round_whole=lambda values, up: round_columns(rows, values, up),
        load=lambda values: None,
        held=np.array([position[key] for key, _ in held], dtype=np.int64),
        groups=np.array(groups, dtype=np.int64),
    )


SOLUTION_FAMILIES = tuple(f.name for f in fields(Solution) if f.name in ROLES)


def _family_values(rows: RowModel, values: np.ndarray, family: str, whole: bool) -> dict:
    block = rows.columns[family]
    out: dict[Any, float] = {}
    for i, key in enumerate(block.keys):
        value = float(values[block.start + i])
        if abs(value) < ZERO:
            continue
        out[key] = float(round(value)) if whole else value
    return out


def solution_of(rows: RowModel, data: ModelData, values: np.ndarray) -> Solution:
    """A plan's full column vector as :func:`planner.optimize.extract.extract` reads a
    Pyomo model: zeros dropped, whole families rounded (unless relaxed), the lost tokens
    charged on the load shape's curve, and ``cost_usd`` the model's ``cost`` objective
    (NPV cost plus penalties) at that plan."""
    values = np.array(values, dtype=np.double)
    lost = rows.columns["lost_inf"]
    unmet = rows.columns["unmet_inf"]
    assert lost.keys == unmet.keys  # both over the demand index, in its order
    for i, key in enumerate(lost.keys):
        u = float(values[unmet.start + i])
        u = 0.0 if abs(u) < ZERO else u
        values[lost.start + i] = lost_charged(
            u, data.demand_peak[(*key, "output")], data.peak_to_average[key[0]]
        )
    whole_family = {f: ROLES[f].kind != Kind.CONTINUOUS and not data.relax for f in ROLES}
    # every family a Solution holds (the stock ``installed`` follows from them)
    by = {f: _family_values(rows, values, f, whole_family[f]) for f in SOLUTION_FAMILIES}
    cost = (float(rows.objectives["cost"] @ values) + rows.offsets.get("cost", 0.0)) * USD_SCALE
    by["lost_inf"] = {k: v for k, v in by["lost_inf"].items() if v >= ZERO}
    return Solution(**by, cost_usd=cost)
