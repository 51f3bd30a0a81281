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

from typing import Any

import numpy as np

from planner.economics.load_shape import lost_charged
from planner.optimize.assignments import held_keys
from planner.optimize.data import ModelData
from planner.optimize.extract import ZERO, Solution
from planner.optimize.roles import ROLES, Kind, Part, Rounding, families
from planner.optimize.rows import RowModel
from planner.optimize.solvers.instance import Problem
from planner.optimize.strategy import ROUNDING_SLACK
from planner.units import USD_SCALE


def _span(rows: RowModel, family: str) -> slice:
    block = rows.columns[family]
    return slice(block.start, block.start + len(block.keys))


def round_columns(rows: RowModel, values: np.ndarray, up: bool) -> np.ndarray:
    """``values`` with every whole and choice family made whole by its rounding rule
    (:func:`planner.optimize.strategy.round_plan`'s, in the same order and with the
    same ties: the first cluster with the most work, the first menu choice with the
    largest value)."""
    out = np.array(values, dtype=np.double)
    for name in families(rounding=Rounding.DOWN):
        part = _span(rows, name)
        out[part] = np.maximum(np.floor(out[part] + ROUNDING_SLACK), 0.0)
    for name in families(rounding=Rounding.UP_OR_DOWN):
        part = _span(rows, name)
        whole = np.ceil(out[part] - ROUNDING_SLACK) if up else np.floor(out[part] + ROUNDING_SLACK)
        out[part] = np.maximum(whole, 0.0)
    x_train, y_block = rows.columns["x_train"], rows.columns["y"]
    work: dict[tuple, float] = {}
    for i, (r, h, s, _) in enumerate(x_train.keys):
        work[(r, h, s)] = work.get((r, h, s), 0.0) + float(out[x_train.start + i])
    for key in y_block.keys:
        work.setdefault(key, 0.0)
    best: dict[str, tuple[float, tuple]] = {}
    for (r, h, s), done in work.items():
        if done > best.get(r, (-1.0, ()))[0]:
            best[r] = (done, (r, h, s))
    chosen = {key for _, key in best.values()}
    for i, key in enumerate(y_block.keys):
        out[y_block.start + i] = 1.0 if key in chosen else 0.0
    z_block = rows.columns["z_train"]
    picks: dict[tuple, tuple[float, tuple]] = {}
    for i, key in enumerate(z_block.keys):
        value = float(out[z_block.start + i])
        if key[:3] in chosen and value > picks.get(key[:3], (-1.0, ()))[0]:
            picks[key[:3]] = (value, key)
    picked = {key for _, key in picks.values()}
    for i, key in enumerate(z_block.keys):
        out[z_block.start + i] = 1.0 if key in picked else 0.0
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
        slacks=np.concatenate(slacks).astype(np.int64) if slacks else np.zeros(0, np.int64),
        round_whole=lambda values, up: round_columns(rows, values, up),
        load=lambda values: None,
        held=np.array([position[key] for key, _ in held], dtype=np.int64),
        groups=np.array(groups, dtype=np.int64),
    )


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
    whole = {f: ROLES[f].kind != Kind.CONTINUOUS and not data.relax for f in ROLES}
    by = {f: _family_values(rows, values, f, whole[f]) for f in ROLES if f != "installed"}
    cost = float(rows.objectives["cost"] @ values) * USD_SCALE
    return Solution(
        buy=by["buy"],
        kept=by["kept"],
        rent=by["rent"],
        y=by["y"],
        x_train=by["x_train"],
        z_train=by["z_train"],
        x_inf=by["x_inf"],
        unmet_inf=by["unmet_inf"],
        lost_inf={k: v for k, v in by["lost_inf"].items() if v >= ZERO},
        unmet_train=by["unmet_train"],
        commit=by["commit"],
        dc_build=by["dc_build"],
        dc_lease=by["dc_lease"],
        cost_usd=cost,
        sell=by["sell"],
        sell_existing=by["sell_existing"],
    )
