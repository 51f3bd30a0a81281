"""One future's solve in progressive hedging (:mod:`.hedging`): a plain-data task that
crosses a process boundary and gives the same answer wherever it runs.

A :class:`Piece` is one future's array model (its service objective as the arrays'
cost), its NPV cost vector c_k (USD millions) and constant, its unmet-demand columns,
the columns of the shared first-stage decisions x (in the tree's common order) and the
first-stage columns held at 0 (decisions some future cannot take). A :class:`Step`
asks one of four solves of it, each on a fresh HiGHS model with one thread (HiGHS is
deterministic then, so the local pool, Dask and this process agree bit for bit):

* ``start``: the LP relaxation's service optimum s_k, then ``min c_k·z`` over the
  relaxation with the service held (PH's iteration 0);
* ``prox``: the relaxation's ``min c_k·z + w_k·x + Σ_i ρ_i/2 (x_i − x̄_i)²`` with the
  service held (a convex QP: HiGHS's QP solver, continuous columns only);
* ``fix``: the first stage fixed at ``fixed``, the MILP's least unserved share s_k,
  then the least ``c_k·z`` with it held (the recourse: a feasible plan's cost);
* ``bound``: the MILP's ``min c_k·z + w_k·x`` with the service held at ``held``; its
  dual bound (a lower bound however the solve ends).

"Service held" is ``s_k(z) ≤ cap(held)`` (:func:`planner.optimize.solvers.instance.cap`),
or, as the equivalent does when everything can be served (held ≤
:data:`SERVICE_ABSOLUTE`), every unmet-demand column at 0 — except in ``bound``, which
keeps the row (a looser set: its bound stays a bound of both).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from planner.optimize.objective import SERVICE_ABSOLUTE
from planner.optimize.solvers import highs as hs
from planner.optimize.solvers.handoff import Arrays, pass_arrays
from planner.optimize.solvers.instance import cap

QP_ITERATIONS_PER_LINE = 20
"""A proximal QP's active-set iterations at most, per column, before its second
attempt (a solve that ends well takes about one per column)."""
QP_RETRY_TOLERANCE = 1e-6
"""The primal feasibility tolerance of a proximal QP's second attempt (default 1e-7)."""
QP_RETRY_REGULARIZATION = 1e-5
"""The Hessian regularisation of a proximal QP's second attempt (default 1e-7): a
second attempt may land a little off the exact proximal point, which moves PH's path,
not its bound (every bound and plan comes from the exact MILPs)."""


@dataclass(frozen=True)
class Piece:
    """One future, as plain arrays (module docstring)."""

    name: str
    probability: float
    arrays: Arrays
    npv: np.ndarray
    offset: float
    slacks: np.ndarray
    first: np.ndarray
    """The shared first-stage decisions' columns, in the tree's common order."""
    zero: np.ndarray
    """First-stage columns held at 0 (a decision some other future cannot take)."""


@dataclass(frozen=True)
class Step:
    """One solve of a :class:`Piece` (module docstring)."""

    piece: Piece
    kind: str
    """``start``, ``prox``, ``fix`` or ``bound``."""
    held: float | None = None
    """The service held (None: the solve's own optimum, found first)."""
    w: np.ndarray | None = None
    x_bar: np.ndarray | None = None
    rho: np.ndarray | None = None
    fixed: np.ndarray | None = None
    mip_gap: float = 0.0
    time_limit_s: float | None = None


@dataclass(frozen=True)
class Answer:
    """What a :class:`Step` found: ``ok`` when it has a solution (``bound`` also when
    only its bound is known)."""

    ok: bool
    status: str
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """The first-stage values (the piece's ``first`` columns)."""
    service: float = 0.0
    cost: float = 0.0
    """``c_k·z`` plus the constant, USD millions."""
    bound: float | None = None
    """``bound``: the dual bound of ``c_k·z + w_k·x`` plus the constant, USD millions."""
    seconds: float = 0.0


def solve_step(step: Step) -> Answer:
    """Solve ``step`` (module docstring) on a fresh one-thread HiGHS model."""
    started = time.perf_counter()
    piece, arrays = step.piece, step.piece.arrays
    module = hs.highspy()
    highs = pass_arrays(arrays)
    hs.reset_scheduler()
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("mip_rel_gap", float(step.mip_gap))
    if step.time_limit_s is not None:
        highs.setOptionValue("time_limit", max(float(step.time_limit_s), 1e-3))
    relaxed = step.kind in ("start", "prox") or not len(arrays.integers)
    if relaxed and len(arrays.integers):
        kinds = np.full(len(arrays.integers), int(module.HighsVarType.kContinuous), np.uint8)
        highs.changeColsIntegrality(len(arrays.integers), arrays.integers, kinds)
    lower, upper = arrays.col_lower.copy(), arrays.col_upper.copy()
    lower[piece.zero] = np.minimum(lower[piece.zero], 0.0)
    upper[piece.zero] = 0.0
    if step.fixed is not None:
        lower[piece.first] = upper[piece.first] = step.fixed
    everything = np.arange(len(lower), dtype=np.int32)
    highs.changeColsBounds(len(lower), everything, lower, upper)
    held = step.held
    if held is None:  # the service stage first
        highs.run()
        if not _solved(highs):
            return Answer(False, _name(highs), seconds=time.perf_counter() - started)
        held = float(arrays.cost @ np.asarray(highs.getSolution().col_value))
    if held <= SERVICE_ABSOLUTE and step.kind != "bound":
        slacks = piece.slacks.astype(np.int32)
        highs.changeColsBounds(len(slacks), slacks, lower[slacks], np.zeros(len(slacks)))
    else:
        nonzero = np.flatnonzero(arrays.cost).astype(np.int32)
        highs.addRow(-np.inf, cap(held), len(nonzero), nonzero, arrays.cost[nonzero])
    cost = piece.npv.copy()
    if step.w is not None:
        cost[piece.first] += step.w
    if step.kind == "prox" and len(piece.first):
        assert step.rho is not None and step.x_bar is not None
        cost[piece.first] -= step.rho * step.x_bar
        order = np.argsort(piece.first)
        columns = piece.first[order].astype(np.int32)
        starts = np.zeros(len(lower) + 1, dtype=np.int32)
        np.add.at(starts, columns + 1, 1)
        starts = np.cumsum(starts).astype(np.int32)
        highs.passHessian(
            len(lower), len(columns), int(module.HessianFormat.kTriangular),
            starts[:-1], columns, step.rho[order].astype(np.double),
        )  # fmt: skip
    highs.changeColsCost(len(cost), everything, cost)
    if step.kind == "prox":
        highs.setOptionValue("qp_iteration_limit", QP_ITERATIONS_PER_LINE * len(lower))
    highs.run()
    if step.kind == "prox" and _name(highs) in ("kSolveError", "kIterationLimit"):
        # HiGHS's active-set QP solver can stop "optimal" just outside the primal
        # tolerance on a badly scaled model and call it an error, or cycle on a
        # degenerate one: once more from scratch, looser and regularised.
        highs.clearSolver()
        highs.setOptionValue("primal_feasibility_tolerance", QP_RETRY_TOLERANCE)
        highs.setOptionValue("qp_regularization_value", QP_RETRY_REGULARIZATION)
        highs.setOptionValue("qp_iteration_limit", 2**31 - 1)
        highs.run()
    seconds = time.perf_counter() - started
    status = _name(highs)
    bound = None
    if step.kind == "bound":
        info = highs.getInfo()
        if relaxed:
            bound = float(info.objective_function_value) if _solved(highs) else None
        elif np.isfinite(info.mip_dual_bound) and info.mip_node_count >= 0:
            bound = float(info.mip_dual_bound)
        bound = None if bound is None else bound + piece.offset
        if bound is not None and status in ("kInfeasible",):
            bound = None
    if not _solved(highs):
        return Answer(bound is not None, status, bound=bound, seconds=seconds)
    values = np.asarray(highs.getSolution().col_value)
    return Answer(
        True,
        status,
        x=values[piece.first].copy(),
        service=float(arrays.cost @ values),
        cost=float(piece.npv @ values) + piece.offset,
        bound=bound,
        seconds=seconds,
    )


def _name(highs: object) -> str:
    return str(highs.getModelStatus().name)  # type: ignore[attr-defined]


def _solved(highs: object) -> bool:
    """An optimal solution, or a MILP stopped early with one."""
    info = highs.getInfo()  # type: ignore[attr-defined]
    return bool(info.primal_solution_status == 2 and _name(highs) != "kInfeasible")
