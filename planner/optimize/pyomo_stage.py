"""One stage on a Pyomo model: build it, let a hook edit it (another objective, held
rows, fixed purchases), solve it with any registered solver, read the plan back.

The stages of :mod:`planner.optimize.stages` other than the one HiGHS instance run
here, as do the analyses that edit a model (MGA, fixed purchases, marginal values).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from planner import deadline
from planner.optimize.data import ModelData
from planner.optimize.extract import Solution, extract
from planner.optimize.mga import ModelHook
from planner.optimize.model import build_model, model_size
from planner.optimize.solve import solve
from planner.optimize.solvers.types import SolveResult, SolverOptions
from planner.optimize.strategy import resolve, round_plan

log = logging.getLogger("planner.pipeline")


def build_and_solve(
    data: ModelData,
    options: SolverOptions,
    duals: Sequence[str] = (),
    *,
    extend: ModelHook | None = None,
) -> tuple[SolveResult, Solution | None, dict[str, Any]]:
    """Build, solve and extract ``data``; time each step and log them with the model's size.

    ``extend(model, data)`` runs on the built model before it is solved (extra rows,
    another objective). The figures returned: ``build_seconds`` (ModelData → model,
    with ``extend``), the model's size, ``handoff_seconds`` (model → the solver's own
    model), ``solver_seconds`` (the solver's runs; with ``lp-first`` the LP
    relaxation's and the rounded plan's too), ``load_seconds`` and ``extract_seconds``
    (solution → plain dicts).

    Within a run's :class:`planner.deadline.Deadline` the solver gets the time left.
    """
    deadline.check("the model build")
    started = time.perf_counter()
    model = build_model(data)
    if extend is not None:
        extend(model, data)
    build_seconds = time.perf_counter() - started
    size = model_size(model)
    log.info(
        "built %s model in %.3f s: %d variables (%d integer), %d constraints",
        "LP" if data.relax else "MILP",
        build_seconds,
        size["variables"],
        size["integer_variables"],
        size["constraints"],
    )
    strategy = resolve(options.strategy, options.name, size["variables"], data.relax)
    lp_first = strategy == "lp-first"
    deadline.check("the hand-off to the solver")
    left = deadline.remaining()
    if left is not None and (options.time_limit_s is None or left < options.time_limit_s):
        options = replace(options, time_limit_s=left)
    result = solve(
        model,
        replace(options, strategy=strategy),
        duals=duals,
        rounding=round_plan if lp_first else None,
    )
    started = time.perf_counter()
    solution = extract(model, data) if result.status.has_solution else None
    timings = {
        "build_seconds": build_seconds,
        "handoff_seconds": result.handoff_seconds,
        "solver_seconds": result.solver_seconds,
        "load_seconds": result.load_seconds,
        "extract_seconds": time.perf_counter() - started,
        "nonzeros": result.nonzeros,
        "strategy": strategy,
    }
    return result, solution, {**timings, **size}


def both(first: ModelHook, then: ModelHook | None) -> ModelHook:
    """``first``, then ``then`` (when given), on the same built model."""
    if then is None:
        return first

    def hook(model: Any, data: ModelData) -> None:
        first(model, data)
        then(model, data)

    return hook
