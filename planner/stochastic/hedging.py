"""Progressive hedging (Rockafellar–Wets) on the array model: the two-stage plan solved
one future at a time, on the local process pool or Dask, with a bound and a gap.

Scope: the **cost stage**. While it iterates, each future's service is held at its own
best, the LP relaxation's least unserved share s_k with the first stage free
(:mod:`.subproblem`); when everything can be served (every s_k = 0) that is exactly the
equivalent's cost stage (every unmet-demand column at 0), otherwise it asks each future
for its best service, which the equivalent asks only on average.

1. **Iterations on the relaxation.** HiGHS solves QPs over continuous columns only, so
   PH runs on the LP relaxation, where it converges (Rockafellar and Wets, 1991): with
   first-stage values x_k of future k (probability p_k), penalties ρ_i > 0 and
   multipliers w_k,

   * iteration 0: x_k = argmin c_k·z_k; x̄ = Σ p_k x_k; w_k = ρ ∘ (x_k − x̄);
   * iteration ν: x_k = argmin c_k·z_k + w_k·x_k + Σ_i ρ_i/2 (x_k,i − x̄_i)²; then
     x̄ = Σ p_k x_k and w_k ← w_k + ρ ∘ (x_k − x̄), so Σ p_k w_k = 0 throughout;
   * it stops when every |x_k,i − x̄_i| and every change of x̄_i in the iteration
     (the primal and dual residuals: agreement alone can be a coincidence while w
     still moves) is at most ``tolerance`` · (1 + |x̄_i|), or at the iteration or time
     limit. ρ_i is cost-proportional (Watson and Woodruff, 2011):
     |Σ_k p_k c_k,i| over max(1, Σ_k p_k |x_k,i − x̄_i|) at iteration 0.
2. **Upper bound.** The consensus x̄ made whole three ways (the whole families rounded
   up, down by :func:`round_plan`'s rules, and to the nearest unit) and fixed in every
   future; each future's recourse MILP (its most service, then its least cost) gives a
   feasible plan. The candidate with the least expected unserved share, then the least
   expected cost U = Σ p_k c_k(x, y_k), is the first stage.
3. **Lower bound.** For any w with Σ p_k w_k = 0 and any first stage x shared by all
   futures, Σ p_k (c_k + w_k·x) = Σ p_k c_k, so the Lagrangian bound
   L = Σ p_k min_{z ∈ Z_k} (c_k·z + w_k·x) ≤ the equivalent's optimum (each minimum
   over its own future alone, non-anticipativity dropped). The last w (re-centred so
   the weighted sum is 0 exactly) goes into each future's MILP, its dual bound taken;
   each future's service is held at what its plan serves (``s_k ≤ cap(s_k)``), as the
   lexicographic solve's gap holds the plan's own service. w = 0 (each future alone:
   wait and see) is a bound too, and a sturdy one: where a future is indifferent to a
   first-stage decision beyond its need (c_k,i + w_k,i = 0 at the limit), PH's w_k,i
   is only that close to −c_k,i, and the slightest excess times the decision's upper
   bound drags L(w) down. The better of the two is L. Gap: (U − L) / |U|.

At an LP-optimal w the MILP subproblems' bound is at least the relaxation's optimum,
so the gap is the integrality gap and the loss of making x̄ whole, plus what PH has not
converged. CVaR couples the futures' costs: ``risk.weight > 0`` needs the equivalent.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from planner.analysis.executors import ExecutorChoice
from planner.analysis.session import open_session
from planner.optimize.data import ModelData
from planner.optimize.roles import Part, families
from planner.optimize.row_problem import round_columns
from planner.optimize.rows import RowModel
from planner.optimize.solvers.instance import cap
from planner.optimize.solvers.types import SolverOptions
from planner.stochastic.equivalent import Shared, first_stage
from planner.stochastic.subproblem import Answer, Piece, Step, solve_step

log = logging.getLogger("planner.stochastic")

ITERATIONS = 200
"""PH iterations at most (the relaxation's; each solves every future once)."""
TOLERANCE = 1e-6
"""Consensus: every |x_k,i − x̄_i| within this times 1 + |x̄_i|."""
USD_MILLIONS = 1e6


@dataclass
class Hedged:
    """PH's first stage (values by decision) and its figures (:attr:`figures`)."""

    first: dict[Shared, float]
    figures: dict[str, Any]


def pieces(
    futures: list[tuple[str, float, ModelData, RowModel]], through: int
) -> tuple[list[Piece], list[Shared], list[Shared]]:
    """Each future as a :class:`Piece`, the shared decisions every future holds (the
    consensus' order) and those some future cannot take (held at 0)."""
    columns = [first_stage(data, rows, through) for _, _, data, rows in futures]
    common = [key for key in columns[0] if all(key in c for c in columns[1:])]
    zeroed = list(dict.fromkeys(k for c in columns for k in c if k not in set(common)))
    out = []
    for (name, probability, _, rows), own in zip(futures, columns, strict=True):
        arrays = replace(rows.arrays("service"), columns=[])
        slacks = [
            np.arange(block.start, block.start + len(block.keys))
            for f in families(part=Part.SLACK)
            if (block := rows.columns.get(f)) is not None
        ]
        out.append(
            Piece(
                name=name,
                probability=probability,
                arrays=arrays,
                npv=rows.objectives["npv"].copy(),
                offset=rows.offsets.get("npv", 0.0),
                slacks=np.concatenate(slacks) if slacks else np.zeros(0, np.int64),
                first=np.array([own[k] for k in common], dtype=np.int64),
                zero=np.array([own[k] for k in zeroed if k in own], dtype=np.int64),
            )
        )
    return out, common, zeroed


def hedge(
    futures: list[tuple[str, float, ModelData, RowModel]],
    through: int,
    options: SolverOptions,
    executor: ExecutorChoice,
    iterations: int = ITERATIONS,
    tolerance: float = TOLERANCE,
) -> Hedged:
    """Progressive hedging on ``futures`` (name, probability, data, rows): module
    docstring. Raises :class:`SolverError` when a future has no plan."""
    from planner.errors import SolverError

    started = time.perf_counter()
    deadline = None if options.time_limit_s is None else started + options.time_limit_s
    parts, common, zeroed = pieces(futures, through)
    p = np.array([piece.probability for piece in parts])
    gap = float(options.mip_gap or 0.0)

    def left() -> float | None:
        return None if deadline is None else max(deadline - time.perf_counter(), 1.0)

    def failed(answers: list[Answer], what: str) -> None:
        for piece, a in zip(parts, answers, strict=True):
            if not a.ok:
                raise SolverError(
                    f"progressive hedging: {what} of future {piece.name!r} ended {a.status}"
                )

    tally = [0, 0.0]  # subproblem solves, their seconds

    with open_session(executor, len(parts)) as session:

        def run(steps: list[Step]) -> list[Answer]:
            answers: list[Answer] = session(solve_step, steps)
            tally[0] += len(answers)
            tally[1] += sum(a.seconds for a in answers)
            return answers

        answers = run([Step(k, "start", time_limit_s=left()) for k in parts])
        failed(answers, "the relaxation")
        held = [a.service for a in answers]
        x = np.array([a.x for a in answers])
        x_bar = p @ x
        c_bar = np.abs(p @ np.array([piece.npv[piece.first] for piece in parts]))
        rho = _rho(c_bar, p @ np.abs(x - x_bar))
        w = rho * (x - x_bar)
        residual = _residual(x, x_bar)
        done, count = residual <= tolerance, 0
        while (
            not done and count < iterations and (deadline is None or time.perf_counter() < deadline)
        ):
            count += 1
            steps = [
                Step(k, "prox", held=h, w=wk, x_bar=x_bar, rho=rho, time_limit_s=left())
                for k, h, wk in zip(parts, held, w, strict=True)
            ]
            answers = run(steps)
            failed(answers, f"PH iteration {count}")
            x, previous = np.array([a.x for a in answers]), x_bar
            x_bar = p @ x
            w = w + rho * (x - x_bar)
            residual = max(_residual(x, x_bar), _residual(x_bar[None, :], previous))
            done = residual <= tolerance
            log.info("progressive hedging: iteration %d, residual %.3g", count, residual)
        w = w - p @ w  # Σ p_k w_k = 0 exactly: the bound's condition
        best, plans, rounding = _recourse(run, parts, futures[0][3], x_bar, gap, left)
        bounds = run(  # at PH's multipliers, then at w = 0
            [
                Step(k, "bound", held=a.service, w=wk, mip_gap=gap, time_limit_s=left())
                for multipliers in (w, np.zeros_like(w))
                for k, a, wk in zip(parts, plans, multipliers, strict=True)
            ]
        )
    upper = float(p @ [a.cost for a in plans])
    lower, which = _lower(p, bounds)
    figures: dict[str, Any] = {
        "method": "hedging",
        "executor": executor.describe(),
        "iterations": count,
        "converged": bool(done),
        "residual": residual,
        "tolerance": tolerance,
        "rounding": rounding,
        "upper_bound_usd": upper * USD_MILLIONS,
        "bound_from": which,
        "bound_usd": None if lower is None else lower * USD_MILLIONS,
        "gap": None if lower is None else (upper - lower) / max(abs(upper), 1e-12),
        "service_held": bool(all(a.service <= cap(h) for a, h in zip(plans, held, strict=True))),
        "first_stage_decisions": len(common) + len(zeroed),
        "held_at_zero": len(zeroed),
        "subproblem_solves": tally[0],
        "subproblem_seconds": tally[1],
        "seconds": time.perf_counter() - started,
    }
    values = {key: float(round(v, 9)) for key, v in zip(common, best, strict=True)}
    values.update({key: 0.0 for key in zeroed})
    return Hedged(values, figures)


def _lower(p: np.ndarray, answers: list[Answer]) -> tuple[float | None, str]:
    """The better of the two Lagrangian bounds, at PH's w and at w = 0 (the futures
    solved alone: wait and see), and which it is; None when neither is known."""
    found = []
    for name, part in (("multipliers", answers[: len(p)]), ("wait-and-see", answers[len(p) :])):
        if all(a.bound is not None for a in part):
            found.append((float(p @ [a.bound for a in part]), name))
    if not found:
        return None, "none"
    return max(found)


def _rho(c_bar: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Cost-proportional penalties (module docstring); a decision without cost gets the
    mean penalty of those with one (1 if none has)."""
    rho = c_bar / np.maximum(spread, 1.0)
    positive = rho[rho > 0]
    rho[rho <= 0] = positive.mean() if len(positive) else 1.0
    return rho


def _residual(x: np.ndarray, x_bar: np.ndarray) -> float:
    """max_k,i |x_k,i − x̄_i| / (1 + |x̄_i|): 0 when the futures agree."""
    if not x.size:
        return 0.0
    return float(np.max(np.abs(x - x_bar) / (1.0 + np.abs(x_bar))))


def _recourse(
    run: Callable[[list[Step]], list[Answer]],
    parts: list[Piece],
    rows: RowModel,
    x_bar: np.ndarray,
    gap: float,
    left: Any,
) -> tuple[np.ndarray, list[Answer], str]:
    """The consensus made whole (up, down, nearest), each fixed in every future and its
    recourse solved; the best candidate (least expected unserved share, then cost), its
    futures' answers and its name."""
    from planner.errors import SolverError

    first = parts[0].first
    whole = np.asarray(rows.integer, dtype=bool)[first]
    candidates: dict[str, np.ndarray] = {}
    for name, up in (("up", True), ("down", False)):
        full = np.zeros(rows.column_count)
        full[first] = x_bar
        candidates[name] = round_columns(rows, full, up)[first]
    nearest = x_bar.copy()
    nearest[whole] = np.round(x_bar[whole])
    candidates["nearest"] = nearest
    unique: dict[str, np.ndarray] = {}
    for name, values in candidates.items():
        if not any(np.array_equal(values, seen) for seen in unique.values()):
            unique[name] = values
    names = list(unique)
    steps = [
        Step(k, "fix", fixed=unique[name], mip_gap=gap, time_limit_s=left())
        for name in names
        for k in parts
    ]
    answers = run(steps)
    p = np.array([k.probability for k in parts])
    scored = []
    for i, name in enumerate(names):
        mine = answers[i * len(parts) : (i + 1) * len(parts)]
        if all(a.ok for a in mine):
            service = float(p @ [a.service for a in mine])
            cost = float(p @ [a.cost for a in mine])
            scored.append((service, cost, i, name, mine))
    if not scored:
        raise SolverError(
            "progressive hedging: no whole first stage near the consensus has a plan in "
            "every future"
        )
    least = min(s[0] for s in scored)
    service, cost, _, name, mine = min(
        (s for s in scored if s[0] <= cap(least)),
        key=lambda s: (s[1], s[2]),
    )
    log.info("progressive hedging: consensus rounded %s, expected cost %.6g", name, cost)
    return unique[name], mine, name
