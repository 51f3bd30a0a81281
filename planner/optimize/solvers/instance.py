"""The HiGHS instance of ``min_cost``'s lexicographic solve (:mod:`.lexicographic`).

One HiGHS model, handed over once, with two objectives it switches between (the
service share s and the NPV cost c), one extra row ``s ≤ cap`` that holds the service,
and the columns it holds back until the LP's duals price them in (:mod:`.columns`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.repn import generate_standard_repn

from planner.optimize.objective import SERVICE_ABSOLUTE, SERVICE_TOLERANCE
from planner.optimize.roles import Part, families
from planner.optimize.solvers import highs as hs
from planner.optimize.solvers.columns import Pool, restrict
from planner.optimize.solvers.handoff import Arrays, highs_model_of, model_arrays
from planner.optimize.solvers.types import Rounding, SolverOptions

log = logging.getLogger("planner.optimize")

PRIMAL_SIMPLEX = 4
"""HiGHS's ``simplex_strategy`` for the primal simplex (1 is the dual, 0 its choice)."""
CHOOSE_SIMPLEX = 0
DUAL_SIMPLEX = 1


def cap(unserved: float) -> float:
    """The held row's upper bound for a service value: :class:`CostWithServiceHeld`'s."""
    return unserved * (1 + SERVICE_TOLERANCE) + SERVICE_ABSOLUTE


Warm = tuple[list[float], Any]
"""An LP's column values and its basis."""


def coefficients(expr: Any, column: dict[int, int], count: int) -> np.ndarray:
    """A linear expression's coefficients as a dense column vector."""
    repn = generate_standard_repn(expr, compute_values=True)
    out = np.zeros(count)
    for var, coef in zip(repn.linear_vars, repn.linear_coefs, strict=True):
        out[column[id(var)]] += coef
    return out


@dataclass
class Problem:
    """What an :class:`Instance` solves, from a Pyomo model or an array model alike.

    ``arrays``: the model's arrays with the service objective (the priority-weighted
    unserved share, scaled) as their cost; ``cost``: the NPV cost vector (USD millions,
    no penalties); ``slacks``: the unmet-demand columns; ``held``/``groups``: columns
    the instance starts without and their pricing groups; ``round_whole(values, up)``:
    a full column vector with its whole decisions rounded (:func:`round_plan`'s rules);
    ``load(values)``: a full column vector into the model it came from; ``duals(row
    duals)``: the named rows' duals (a Pyomo model's shadow prices; None: none)."""

    arrays: Arrays
    cost: np.ndarray
    slacks: np.ndarray
    round_whole: Callable[[np.ndarray, bool], np.ndarray]
    load: Callable[[np.ndarray], None]
    held: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    groups: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    duals: Callable[[Any, Sequence[str]], dict[str, dict[Any, float]]] | None = None
    offset: float = 0.0
    """The NPV cost's constant (USD millions; the power contracts): not in ``cost``,
    added to the cost result's objective and bound."""


def pyomo_problem(
    model: pyo.ConcreteModel,
    cost: Any,
    rounding: Rounding,
    held: Sequence[tuple[Any, Hashable]] = (),
) -> Problem:
    """The :class:`Problem` of a Pyomo ``model`` whose active objective is the service
    share; ``cost`` the NPV cost expression; ``held`` (variable, group) pairs."""
    arrays = model_arrays(model)
    column = {id(v): j for j, v in enumerate(arrays.columns)}
    labels: dict[Any, int] = {}
    pairs = [(column[id(v)], labels.setdefault(g, len(labels))) for v, g in held if id(v) in column]
    slacks = [
        column[id(v)]
        for family in families(part=Part.SLACK)
        for v in getattr(model, family, {}).values()
        if id(v) in column
    ]
    variables = arrays.columns

    def load(values: np.ndarray) -> None:
        hs.set_values(variables, values)

    def round_whole(values: np.ndarray, up: bool) -> np.ndarray:
        load(values)
        rounding(model, up)
        return np.array([v.value or 0.0 for v in variables], dtype=np.double)

    def duals(bridge: Any, names: Sequence[str]) -> dict[str, dict[Any, float]]:
        return hs.duals(model, bridge, names)

    return Problem(
        arrays=arrays,
        cost=coefficients(cost, column, len(variables)),
        slacks=np.array(slacks, dtype=np.int64),
        round_whole=round_whole,
        load=load,
        held=np.array([j for j, _ in pairs], dtype=np.int64),
        groups=np.array([g for _, g in pairs], dtype=np.int64),
        duals=duals,
        offset=float(pyo.value(generate_standard_repn(cost, compute_values=True).constant)),
    )


class Instance:
    """The HiGHS instance, the two objectives it switches between, and the columns it
    holds back until the LP's duals price them in (:mod:`.columns`)."""

    def __init__(self, problem: Problem, options: SolverOptions) -> None:
        started = time.perf_counter()
        self.problem = problem
        arrays = problem.arrays
        count = len(arrays.col_lower)
        service = arrays.cost.copy()
        costs = problem.cost
        self.pool: Pool | None = None
        mask = np.zeros(count, dtype=bool)
        group = np.arange(count)
        mask[problem.held] = True
        group[problem.held] = problem.groups
        mask &= (service == 0.0) & (arrays.col_lower == 0.0)  # never a service slack
        self.full_index = np.flatnonzero(~mask)
        """The instance's column → the model's (columns priced in are appended)."""
        self.count = count
        if mask.any():
            arrays, self.pool = restrict(arrays, mask, group)
            self.pool_service, self.pool_cost = service[self.pool.full], costs[self.pool.full]
            service, costs = service[~mask], costs[~mask]
        self.bridge = highs_model_of(arrays)
        self.highs = self.bridge.highs
        if options.threads is not None:
            hs.reset_scheduler()
            self.highs.setOptionValue("threads", options.threads)
        self.all = np.arange(len(service), dtype=np.int32)
        self.service, self.cost, self.active = service, costs, "service"
        nonzero = np.flatnonzero(self.service).astype(np.int32)
        self.highs.addRow(-np.inf, np.inf, len(nonzero), nonzero, self.service[nonzero])
        self.row = self.highs.getNumRow() - 1
        kept = np.cumsum(~mask) - 1  # full column → the instance's
        self.slacks = kept[problem.slacks].astype(np.int32)
        self.zeroed = False
        self.after_milp = 0
        self.handoff = time.perf_counter() - started
        self.options = options

    @property
    def exact(self) -> bool:
        """No column held back: a MILP's dual bound is the full model's."""
        return self.pool is None or self.pool.left == 0

    def serve_all(self, zero: bool) -> None:
        """Every unmet slack's upper bound at 0 (``zero``: the service LP found all
        can be served, so no slack may be used, not even the row's tolerance, as
        :class:`CostWithServiceHeld` of 0 does), or back as handed over."""
        if zero == self.zeroed or not len(self.slacks):
            return
        upper = np.zeros(len(self.slacks)) if zero else self.bridge.upper[self.slacks]
        self.highs.changeColsBounds(
            len(self.slacks), self.slacks, self.bridge.lower[self.slacks], upper
        )
        self.zeroed = zero

    def objective(self, name: str) -> None:
        """Switch the active objective: ``"service"`` or ``"cost"``."""
        self.active = name
        costs = self.cost if name == "cost" else self.service
        self.highs.changeColsCost(len(self.all), self.all, costs)

    def hold(self, upper: float) -> None:
        self.highs.changeRowBounds(self.row, -np.inf, upper)

    def run(
        self, deadline: float | None, solver: str = "choose", strategy: int = CHOOSE_SIMPLEX
    ) -> bool:
        """One LP run; True when it ended optimal."""
        self.highs.setOptionValue("solver", solver)
        self.highs.setOptionValue("simplex_strategy", strategy)
        # An LP run stops when the instance's run time, summed over all its runs (MILP
        # runs too), passes time_limit, unlike a MILP run (HiGHS 1.16): so the time
        # left goes on top of the run time so far.
        if deadline is not None:
            left = max(0.0, deadline - time.perf_counter())
            self.highs.setOptionValue("time_limit", self.highs.getRunTime() + left)
        hs.run(self.bridge, self.options, None)
        self.highs.setOptionValue("solver", "choose")
        self.highs.setOptionValue("simplex_strategy", CHOOSE_SIMPLEX)
        log.debug("lexicographic lp-first: LP run ended %s", self.highs.getModelStatus())
        return bool(self.highs.getModelStatus() == hs.highspy().HighsModelStatus.kOptimal)

    def lp(
        self, deadline: float | None, solver: str = "choose", strategy: int = CHOOSE_SIMPLEX
    ) -> bool:
        """An LP solved over every column: :meth:`run`, then, while held columns price
        out negative at its duals, those added and the LP re-solved warm (primal
        simplex; interior point when that gives no answer). True when the last run
        ended optimal with nothing left to price in."""
        done = self.run(deadline, solver, strategy)
        while done and self.price_in():
            done = self.run(deadline, "simplex", PRIMAL_SIMPLEX) or self.run(deadline, "ipm")
        return done

    def price_in(self) -> int:
        """The held columns whose reduced cost at the last LP's duals is negative,
        added to the instance (non-basic at 0, so its basis stays valid): how many."""
        pool = self.pool
        if pool is None or not pool.left:
            return 0
        dual = np.asarray(self.highs.getSolution().row_dual)
        costs = self.pool_cost if self.active == "cost" else self.pool_service
        chosen = pool.price(costs, dual, self.pool_service, float(dual[self.row]))
        if not len(chosen):
            return 0
        starts, index, value = pool.entries(chosen)
        self.highs.addCols(
            len(chosen),
            costs[chosen],
            pool.lower[chosen],
            pool.upper[chosen],
            len(index),
            starts,
            index,
            value,
        )
        pool.waiting[chosen] = False
        pool.added_total += len(chosen)
        bridge = self.bridge
        self.full_index = np.concatenate([self.full_index, pool.full[chosen]])
        bridge.lower = np.concatenate([bridge.lower, pool.lower[chosen]])
        bridge.upper = np.concatenate([bridge.upper, pool.upper[chosen]])
        bridge.nonzeros += len(index)
        self.service = np.concatenate([self.service, self.pool_service[chosen]])
        self.cost = np.concatenate([self.cost, self.pool_cost[chosen]])
        self.all = np.arange(len(self.service), dtype=np.int32)
        log.debug("column generation: %d columns priced in, %d held", len(chosen), pool.left)
        return len(chosen)

    def warm(self) -> Warm:
        """The last LP's column values and basis."""
        return list(self.highs.getSolution().col_value), self.highs.getBasis()

    def padded(self, values: Sequence[float]) -> list[float]:
        """Column values taken before columns were priced in, those columns at 0."""
        return [*values, *([0.0] * (len(self.full_index) - len(values)))]

    def full(self, values: Sequence[float]) -> np.ndarray:
        """The instance's column values as the model's full column vector (columns
        still held at 0)."""
        out = np.zeros(self.count)
        out[self.full_index] = self.padded(values)
        return out

    def load(self, values: Sequence[float]) -> None:
        """Column values (:meth:`padded`) into the model the problem came from."""
        self.problem.load(self.full(values))

    def round(self, values: Sequence[float], up: bool) -> np.ndarray:
        """The integer columns' values of ``values`` rounded (``up`` or down), by
        :func:`round_plan`'s rules over the whole model."""
        whole = self.problem.round_whole(self.full(values), up)
        return whole[self.full_index[self.bridge.integers]]

    def restore(self, warm: Warm) -> None:
        """``warm``'s values into the variables and its basis into HiGHS; columns
        priced in since it was taken are 0 and non-basic at their lower bound."""
        values, basis = warm
        extra = len(self.full_index) - len(values)
        if extra:
            module = hs.highspy()
            padded = module.HighsBasis()
            padded.col_status = [*basis.col_status, *[module.HighsBasisStatus.kLower] * extra]
            padded.row_status = list(basis.row_status)
            padded.valid = basis.valid
            basis = padded
        self.highs.setBasis(basis)

    def value(self) -> float:
        return float(self.highs.getInfo().objective_function_value)

    def value_service(self) -> float:
        """The service share of the solution last found (whatever the objective)."""
        return float(self.service @ np.asarray(self.highs.getSolution().col_value))

    def columns(self) -> dict[str, int]:
        """How many assignment columns were held back and how many priced in."""
        if self.pool is None:
            return {"columns_held_back": 0, "columns_priced_in": 0, "columns_priced_after_milp": 0}
        return {
            "columns_held_back": len(self.pool.full),
            "columns_priced_in": self.pool.added_total,
            "columns_priced_after_milp": self.after_milp,
        }
