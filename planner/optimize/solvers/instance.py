"""The HiGHS instance of ``min_cost``'s lexicographic solve (:mod:`.lexicographic`).

One HiGHS model, handed over once, with two objectives it switches between (the
service share s and the NPV cost c), one extra row ``s ≤ cap`` that holds the service,
and the columns it holds back until the LP's duals price them in (:mod:`.columns`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.repn import generate_standard_repn

from planner.optimize.objective import SERVICE_ABSOLUTE, SERVICE_TOLERANCE
from planner.optimize.roles import Part, families
from planner.optimize.solvers import highs as hs
from planner.optimize.solvers.columns import Pool, restrict
from planner.optimize.solvers.handoff import highs_model_of, model_arrays
from planner.optimize.solvers.types import SolverOptions

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


class Instance:
    """The HiGHS instance, the two objectives it switches between, and the columns it
    holds back until the LP's duals price them in (:mod:`.columns`)."""

    def __init__(
        self,
        model: pyo.ConcreteModel,
        cost: Any,
        options: SolverOptions,
        held: Sequence[tuple[Any, Hashable]] = (),
    ) -> None:
        started = time.perf_counter()
        arrays = model_arrays(model)
        column = {id(v): j for j, v in enumerate(arrays.columns)}
        service = arrays.cost.copy()
        costs = coefficients(cost, column, len(arrays.columns))
        self.pool: Pool | None = None
        mask = np.zeros(len(arrays.columns), dtype=bool)
        group = np.arange(len(arrays.columns))
        labels: dict[Any, int] = {}
        for var, label in held:
            j = column.get(id(var))
            if j is not None:
                mask[j] = True
                group[j] = labels.setdefault(label, len(labels))
        mask &= (service == 0.0) & (arrays.col_lower == 0.0)  # never a service slack
        if mask.any():
            arrays, self.pool = restrict(arrays, mask, group)
            self.pool_service, self.pool_cost = service[self.pool.full], costs[self.pool.full]
            service, costs = service[~mask], costs[~mask]
            for var in self.pool.variables:  # 0 in every plan until priced in
                var.set_value(0.0, skip_validation=True)
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
        slacks = [
            column[id(v)]
            for family in families(part=Part.SLACK)
            for v in getattr(model, family, {}).values()
            if id(v) in column
        ]
        kept = np.cumsum(~mask) - 1  # full column → the instance's
        self.slacks = kept[np.array(slacks, dtype=np.int64)].astype(np.int32)
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
        bridge.columns.extend(pool.variables[k] for k in chosen)
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
        return [*values, *([0.0] * (len(self.bridge.columns) - len(values)))]

    def load(self, values: Sequence[float]) -> None:
        """Column values (:meth:`padded`) into the Pyomo variables."""
        hs.load(self.bridge, self.padded(values))

    def restore(self, warm: Warm) -> None:
        """``warm``'s values into the variables and its basis into HiGHS; columns
        priced in since it was taken are 0 and non-basic at their lower bound."""
        values, basis = warm
        self.load(values)
        extra = len(self.bridge.columns) - len(values)
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
