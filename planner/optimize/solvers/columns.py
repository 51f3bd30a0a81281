"""Column generation: columns held back from a HiGHS instance, priced by its LP duals.

A basic LP optimum has at most as many nonzero columns as rows, and on the large
benchmarks most columns are inference assignments ``x_inf[w,role,h,t]`` that stay 0
(95.6 % of XL's at the optimum). So the instance starts with a few of them
(:func:`planner.optimize.assignments.held_back` says which to hold back) and takes
the rest in as the LP asks for them (Dantzig–Wolfe pricing, exact for the LP):

* An LP over the instance's columns is solved; y are its row duals (HiGHS's sign:
  the reduced cost of column j is ``d_j = c_j − a_jᵀ y``, c the active objective).
* A held column j sits at 0, its lower bound; the instance's optimum is the full
  LP's optimum exactly when no held column has ``d_j < 0`` (raising it would lower
  the objective), up to :data:`TOLERANCE` relative to ``|c_j| + Σ_i |a_ij y_i|``.
* Of the columns with ``d_j < 0``, the most negative of each group (the caller's:
  one demand row's columns) is added (``addCols``: the basis stays valid, the new
  columns non-basic at 0, so the primal simplex re-solves warm), and the LP is
  solved again, until none prices out. One per group and round, because the duals of
  a restricted LP are degenerate: a capacity row at 0 ≤ 0 (hardware with no units
  and no work) may have dual 0, which makes every assignment to that hardware look
  free; at L, adding every negative column took in 21,039 of 23,324 at once.

Held columns are 0 in every plan, so each plan of the instance is a plan of the full
model: only bounds need care. An LP optimum priced out is the full LP's (a valid
bound); a MILP's dual bound over the instance's columns is not a bound of the full
MILP, so the caller uses LP bounds only while columns are held.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.optimize.solvers.handoff import Arrays

TOLERANCE = 1e-7
"""A held column prices out when d_j < −TOLERANCE · (1 + |c_j| + Σ_i |a_ij y_i|)
(HiGHS's own dual feasibility tolerance is 1e-7)."""


@dataclass
class Pool:
    """The held columns of a model, column-wise: what pricing and ``addCols`` need."""

    full: np.ndarray
    """Held column → its column in the full model."""
    lower: np.ndarray
    upper: np.ndarray
    start: np.ndarray
    """Column-wise entries of held column k: ``start[k]:start[k+1]``."""
    row: np.ndarray
    value: np.ndarray
    waiting: np.ndarray
    """True while a held column is still outside the instance."""
    group: np.ndarray
    """Held column → its group; at most one column per group is priced in a round."""
    added_total: int = 0

    @property
    def left(self) -> int:
        return int(self.waiting.sum())

    def price(
        self, costs: np.ndarray, row_dual: np.ndarray, extra: np.ndarray, extra_dual: float
    ) -> np.ndarray:
        """Held columns (their pool positions) still waiting whose reduced cost is
        negative: ``costs`` the active objective on held columns, ``row_dual`` the
        duals of the model's rows, ``extra`` the held columns' coefficients in one
        more row (the service row) whose dual is ``extra_dual``."""
        count = len(self.full)
        column = np.repeat(np.arange(count), np.diff(self.start))
        terms = self.value * row_dual[self.row]
        priced = np.bincount(column, weights=terms, minlength=count).astype(float)
        priced += extra * extra_dual
        size = np.bincount(column, weights=np.abs(terms), minlength=count).astype(float)
        size += np.abs(extra * extra_dual) + np.abs(costs)
        reduced = (costs - priced) / (1.0 + size)
        negative = np.flatnonzero(self.waiting & (reduced < -TOLERANCE))
        order = negative[np.lexsort((reduced[negative], self.group[negative]))]
        first = np.ones(len(order), dtype=bool)
        first[1:] = self.group[order][1:] != self.group[order][:-1]
        return np.sort(order[first])

    def entries(self, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``addCols``'s starts, row indices and values of the ``chosen`` held columns."""
        spans = [np.arange(self.start[k], self.start[k + 1]) for k in chosen]
        picked = np.concatenate(spans) if spans else np.zeros(0, dtype=np.int64)
        counts = np.array([len(s) for s in spans], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        return starts, self.row[picked].astype(np.int32), self.value[picked]


def restrict(
    arrays: Arrays, held: np.ndarray, group: np.ndarray | None = None
) -> tuple[Arrays, Pool]:
    """``arrays`` without the columns where ``held`` is True, and those columns as a
    :class:`Pool` (``group``: each full column's pricing group; default one each).
    Held columns must be continuous with lower bound 0 (a plan with them at 0 is a
    plan of the full model)."""
    if len(arrays.integers) and held[arrays.integers].any():
        raise ValueError("integer columns cannot be held back")
    if (arrays.col_lower[held] != 0.0).any():
        raise ValueError("held columns must have lower bound 0")
    keep = ~held
    position = np.cumsum(keep) - 1
    rows = len(arrays.row_lower)
    entry_row = np.repeat(np.arange(rows), np.diff(arrays.start))
    kept_entry = keep[arrays.index]
    counts = np.bincount(entry_row[kept_entry], minlength=rows)
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    restricted = Arrays(
        columns=[v for v, k in zip(arrays.columns, keep, strict=True) if k],
        rows=arrays.rows,
        col_lower=arrays.col_lower[keep],
        col_upper=arrays.col_upper[keep],
        cost=arrays.cost[keep],
        offset=arrays.offset,
        maximise=arrays.maximise,
        row_lower=arrays.row_lower,
        row_upper=arrays.row_upper,
        start=start,
        index=position[arrays.index[kept_entry]].astype(np.int32),
        value=arrays.value[kept_entry],
        integers=position[arrays.integers].astype(np.int32),
    )
    full = np.flatnonzero(held)
    slot = np.full(len(held), -1)
    slot[full] = np.arange(len(full))
    held_entry = ~kept_entry
    column = slot[arrays.index[held_entry]]
    order = np.argsort(column, kind="stable")
    counts = np.bincount(column, minlength=len(full))
    pool = Pool(
        full=full,
        lower=arrays.col_lower[full],
        upper=arrays.col_upper[full],
        start=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        row=entry_row[held_entry][order],
        value=arrays.value[held_entry][order],
        waiting=np.ones(len(full), dtype=bool),
        group=np.arange(len(full)) if group is None else np.asarray(group)[full],
    )
    return restricted, pool
