"""The fleet optimiser's steps: model data, model, solve, extract (no runner here).

    check_size(scenario)                          # refuse a model too big to build
    data = build_data(scenario, *tables)          # sparse sets and parameter dicts
    model = build_model(data)                     # Pyomo, one function per family
    result = solve(model, options)                # the only place that names HiGHS
    solution = extract(model, data)               # plain dicts; Pyomo ends here

:mod:`planner.pipeline` runs them (with the checks before and the Plan after); this
package imports neither it nor :mod:`planner.results`.
"""

from __future__ import annotations

from planner.optimize.data import ModelData, build_data
from planner.optimize.extract import Solution, extract
from planner.optimize.mga import AlternativeObjective, ModelHook
from planner.optimize.model import build_model, model_size
from planner.optimize.size import DEFAULT_MAX_NONZEROS, SizeEstimate, check_size, estimate_size
from planner.optimize.solve import (
    DEFAULT_SOLVER,
    SolveResult,
    SolverOptions,
    SolveStatus,
    solve,
)
from planner.optimize.strategy import resolve, round_plan

__all__ = [
    "DEFAULT_MAX_NONZEROS",
    "DEFAULT_SOLVER",
    "AlternativeObjective",
    "ModelData",
    "ModelHook",
    "SizeEstimate",
    "Solution",
    "SolveResult",
    "SolveStatus",
    "SolverOptions",
    "build_data",
    "build_model",
    "check_size",
    "estimate_size",
    "extract",
    "model_size",
    "resolve",
    "round_plan",
    "solve",
]
