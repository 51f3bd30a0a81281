"""The deterministic equivalent of a two-stage plan, as one array model.

Each future k (probability p_k) is its own array model (:func:`build_rows`), a block of
columns and rows; the blocks sit side by side, and three things join them:

* **Non-anticipativity**: every first-stage column (:func:`first_stage`) equals its
  value in the first future holding it: ``x_k − x_ref = 0``. A first-stage decision
  that some future cannot take (the part is not yet available there) is 0 in every
  future: a decision taken before the future is known must be possible in each.
* **Objectives**: the service objective is the expected priority-weighted unserved
  share ``Σ p_k s_k(x_k)``; the cost objective the expected NPV cost ``Σ p_k c_k(x_k)``,
  plus, with ``risk.weight`` λ > 0, λ · CVaR_α of the futures' costs by Rockafellar and
  Uryasev: ``λ (η + Σ p_k u_k / (1 − α))`` with ``u_k ≥ c_k(x_k) − η``, ``u_k ≥ 0``
  (η free: at the optimum the α-quantile of cost).
* The lexicographic solve of ``min_cost`` (:func:`solve_problem`) runs on the whole:
  the most expected service, then the least expected (risk-weighted) cost with it held.

The costs c_k are the arrays' NPV vectors (USD millions) plus each future's constant
(its power contracts, ``RowModel.offsets``), which the CVaR rows carry on their right-
hand side: the tail is ranked by each future's full NPV cost, as the reported CVaR
(:mod:`planner.stochastic.values`) is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.optimize.data import ModelData
from planner.optimize.foresight import DECISIONS, decided_in
from planner.optimize.roles import Part, families
from planner.optimize.row_problem import round_columns
from planner.optimize.rows import RowModel
from planner.optimize.solvers.handoff import Arrays
from planner.optimize.solvers.instance import Problem
from planner.scenario.uncertainty import Risk

Shared = tuple[str, Any]
"""A first-stage decision: (family, key)."""


@dataclass
class Block:
    """One future's model and where its columns start in the equivalent."""

    name: str
    probability: float
    data: ModelData
    rows: RowModel
    start: int

    @property
    def span(self) -> slice:
        return slice(self.start, self.start + self.rows.column_count)


@dataclass
class Equivalent:
    """The equivalent as a :class:`Problem` for the one-instance solve, and its parts."""

    blocks: list[Block]
    problem: Problem
    shared: dict[Shared, list[int]]
    """Each first-stage decision → its column in every block holding it."""
    zeroed: list[Shared]
    """First-stage decisions some future cannot take: held at 0 everywhere."""


def first_stage(data: ModelData, rows: RowModel, through: int) -> dict[Shared, int]:
    """The first-stage columns of one future: every irreversible decision
    (:data:`planner.optimize.foresight.DECISIONS`) taken in a year up to ``through``
    (a purchase by its order year)."""
    year_of = {p.label: p.year for p in data.periods}
    out: dict[Shared, int] = {}
    for family in DECISIONS:
        block = rows.columns.get(family)
        if block is None:
            continue
        for i, key in enumerate(block.keys):
            if year_of[decided_in(data, family, key)] <= through:
                out[(family, key)] = block.start + i
    return out


def equivalent(
    futures: list[tuple[str, float, ModelData, RowModel]], through: int, risk: Risk
) -> Equivalent:
    """The deterministic equivalent of ``futures`` (name, probability, data, rows)."""
    blocks, start = [], 0
    for name, probability, data, rows in futures:
        blocks.append(Block(name, probability, data, rows, start))
        start += rows.column_count
    parts = [b.rows.arrays("service") for b in blocks]
    lower = np.concatenate([a.col_lower for a in parts])
    upper = np.concatenate([a.col_upper for a in parts])
    service = np.concatenate([b.probability * a.cost for b, a in zip(blocks, parts, strict=True)])
    npv = np.concatenate([b.probability * b.rows.objectives["npv"] for b in blocks])
    integers = [a.integers + b.start for b, a in zip(blocks, parts, strict=True)]
    row_lower = [a.row_lower for a in parts]
    row_upper = [a.row_upper for a in parts]
    starts, index, value = _stack(blocks, parts)
    shared: dict[Shared, list[int]] = {}
    for b in blocks:
        for key, column in first_stage(b.data, b.rows, through).items():
            shared.setdefault(key, []).append(b.start + column)
    zeroed = [key for key, cols in shared.items() if len(cols) < len(blocks)]
    for key in zeroed:
        upper[shared[key]] = 0.0
        lower[shared[key]] = np.minimum(lower[shared[key]], 0.0)
    extra_rows = [(cols[0], other) for key, cols in shared.items() for other in cols[1:]]
    for reference, other in extra_rows:  # x_other − x_reference = 0
        index.extend((other, reference))
        value.extend((1.0, -1.0))
        starts.append(len(index))
    row_lower.append(np.zeros(len(extra_rows)))
    row_upper.append(np.zeros(len(extra_rows)))
    count = start
    if risk.weight > 0:
        lower, upper, service, npv, count = _cvar(
            blocks, risk, (lower, upper, service, npv), starts, index, value, row_lower, row_upper
        )
    arrays = Arrays(
        columns=[(b.name, c) for b in blocks for c in range(b.rows.column_count)]
        + [("risk", c) for c in range(count - start)],
        rows={},
        col_lower=lower,
        col_upper=upper,
        cost=service,
        offset=0.0,
        maximise=False,
        row_lower=np.concatenate(row_lower),
        row_upper=np.concatenate(row_upper),
        start=np.array(starts, dtype=np.int32),
        index=np.array(index, dtype=np.int32),
        value=np.array(value, dtype=np.double),
        integers=np.concatenate(integers).astype(np.int32),
    )
    slacks = [
        b.start + np.arange(b.rows.columns[f].start, b.rows.columns[f].start + len(k.keys))
        for b in blocks
        for f in families(part=Part.SLACK)
        if (k := b.rows.columns.get(f)) is not None
    ]

    def round_whole(values: np.ndarray, up: bool) -> np.ndarray:
        out = np.array(values, dtype=np.double)
        for b in blocks:
            out[b.span] = round_columns(b.rows, out[b.span], up)
        return out

    problem = Problem(
        arrays=arrays,
        cost=npv,
        slacks=np.concatenate(slacks).astype(np.int64) if slacks else np.zeros(0, np.int64),
        round_whole=round_whole,
        load=lambda values: None,
    )
    return Equivalent(blocks, problem, shared, zeroed)


def _stack(blocks: list[Block], parts: list[Arrays]) -> tuple[list[int], list[int], list[float]]:
    """The blocks' CSR rows one after another, columns shifted to their block."""
    starts: list[int] = [0]
    index: list[int] = []
    value: list[float] = []
    for b, a in zip(blocks, parts, strict=True):
        base = len(index)
        index.extend((a.index + b.start).tolist())
        value.extend(a.value.tolist())
        starts.extend((a.start[1:] + base).tolist())
    return starts, index, value


def _cvar(
    blocks: list[Block],
    risk: Risk,
    vectors: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    starts: list[int],
    index: list[int],
    value: list[float],
    row_lower: list[np.ndarray],
    row_upper: list[np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """CVaR columns η (free) and u_k ≥ 0, rows ``u_k + η − c_k(x_k) ≥ 0``, and their
    cost ``λ (η + Σ p_k u_k / (1 − α))`` (module docstring)."""
    lower, upper, service, npv = vectors
    eta = len(lower)
    tail = 1.0 - risk.cvar_alpha
    for k, b in enumerate(blocks):
        u = eta + 1 + k
        cost = b.rows.objectives["npv"]
        nonzero = np.flatnonzero(cost)
        index.extend([u, eta, *(nonzero + b.start).tolist()])
        value.extend([1.0, 1.0, *(-cost[nonzero]).tolist()])
        starts.append(len(index))
    # u_k + η − c_k·x_k ≥ c0_k: the future's constant cost (its power contracts) too,
    # so the tail is the futures' full NPV cost
    row_lower.append(np.array([b.rows.offsets.get("npv", 0.0) for b in blocks]))
    row_upper.append(np.full(len(blocks), np.inf))
    extra = 1 + len(blocks)
    lower = np.concatenate([lower, [-np.inf], np.zeros(len(blocks))])
    upper = np.concatenate([upper, np.full(extra, np.inf)])
    service = np.concatenate([service, np.zeros(extra)])
    risk_cost = [risk.weight, *(risk.weight * b.probability / tail for b in blocks)]
    npv = np.concatenate([npv, risk_cost])
    return lower, upper, service, npv, eta + extra
