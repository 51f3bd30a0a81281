"""The solver boundary: the only module that names HiGHS or any other solver.

``highs`` (the default) is handed over in bulk: the Pyomo model's active variables,
rows and objective become HiGHS's own arrays (row-wise sparse, one ``passModel``), read
straight from the flat linear expressions the model is built of (planner.optimize.linear;
anything else goes through Pyomo's ``generate_standard_repn``), then ``highspy`` solves
and the primal values (and requested duals) are loaded back into the Pyomo variables.
Fixed variables stay columns with equal bounds. This replaces Pyomo's persistent HiGHS
interface, which re-walks every row twice and adds variables row by row: on the L
benchmark its hand-off took longer than building the model (see bench/README.md).
Statuses and termination names follow that interface (``maxTimeLimit``, …).

``highs-pyomo`` still runs HiGHS through Pyomo's ``pyomo.contrib.solver`` interface
(called with ``raise_exception_on_nonoptimal_result=False, load_solutions=False``; the
older ``appsi_highs`` silently drops time limits). Any other Pyomo solver name is
accepted: names the new interface knows (``gurobi_direct``, ``scip_direct``, …) go
through it; anything else (``cbc``, ``glpk``, ``cplex``, …) through the classic
``SolverFactory``.

Every result times its steps separately: ``handoff_seconds`` (Pyomo model → the
solver's own model), ``solver_seconds`` (the solver's run) and ``load_seconds``
(solution back into Pyomo).

HiGHS gives no duals for a MILP; ask for duals on a model built with ``relax`` (see
DESIGN.md section 5), or solve with the ``lp-first`` strategy, which returns its LP
relaxation's. HiGHS quirks handled here: the thread pool is per process
(reset before a solve that sets ``threads``).
"""

from __future__ import annotations

import enum
import logging
import math
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.common.timing import HierarchicalTimer
from pyomo.contrib.solver.common.factory import SolverFactory as ContribSolverFactory
from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition
from pyomo.contrib.solver.common.util import NoDualsError
from pyomo.core.base.var import VarData
from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression
from pyomo.opt import SolverStatus as LegacySolverStatus
from pyomo.opt import TerminationCondition as LegacyTermination
from pyomo.repn.standard_repn import generate_standard_repn

from planner.errors import SolverError

log = logging.getLogger("planner.optimize")

DEFAULT_SOLVER = "highs"
PYOMO_HIGHS = "highs-pyomo"
"""HiGHS through Pyomo's own (persistent) interface instead of the bulk hand-off."""


class SolveStatus(enum.Enum):
    """What a solve produced, in our words."""

    OPTIMAL = "optimal"
    """Proven optimal within the MIP gap."""
    FEASIBLE = "feasible"
    """Stopped early (time or iteration limit) with an incumbent; see the gap."""
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    NO_SOLUTION = "no solution"
    """Stopped early without any feasible plan."""
    ERROR = "error"

    @property
    def has_solution(self) -> bool:
        return self in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)


STRATEGIES = ("auto", "direct", "lp-first")
"""``direct``: solve the MILP as built. ``lp-first``: solve the LP relaxation, round it
to a whole plan and stop there if it is within the MIP gap, else start the MILP from it.
``auto``: decided by the model's size (planner.optimize.strategy)."""


@dataclass(frozen=True)
class SolverOptions:
    """Solver, relative MIP gap, wall-clock limit (s), threads (None: solver default)
    and strategy (one of ``STRATEGIES``)."""

    name: str = DEFAULT_SOLVER
    mip_gap: float | None = None
    time_limit_s: float | None = None
    threads: int | None = None
    strategy: str = "auto"


@dataclass(frozen=True)
class SolveResult:
    """The outcome of one solve; objective and bound in model units (USD millions)."""

    status: SolveStatus
    termination: str
    """The solver's own termination condition, for the log and the curious."""
    objective: float | None
    bound: float | None
    seconds: float
    solver: str
    duals: dict[str, dict[Any, float]] = field(default_factory=dict)
    """Constraint name → index → dual, for the components asked for: an LP's own, or
    the LP relaxation's under ``lp-first``; empty for a MILP otherwise."""
    handoff_seconds: float | None = None
    """Pyomo model → the solver's own model (None where the solver does not say)."""
    solver_seconds: float | None = None
    """The solver's own run."""
    load_seconds: float | None = None
    """Solution back into the Pyomo variables."""
    nonzeros: int | None = None
    """Constraint-matrix nonzeros handed to the solver (bulk HiGHS hand-off only)."""

    @property
    def gap(self) -> float | None:
        """Relative gap |objective − bound| / |objective| (0 when proven optimal)."""
        if self.objective is None or self.bound is None:
            return None
        if self.objective == self.bound:
            return 0.0
        return abs(self.objective - self.bound) / max(abs(self.objective), 1e-9)


def solve(
    model: pyo.ConcreteModel,
    options: SolverOptions,
    *,
    duals: Sequence[str] = (),
    rounding: Rounding | None = None,
) -> SolveResult:
    """Solve ``model``; load the primal solution into it when there is one.

    ``duals`` names constraint components whose duals to return (LP models only).
    ``rounding`` is what the ``lp-first`` strategy rounds an LP solution with (HiGHS
    only; without it, ``lp-first`` solves the MILP directly).
    Raises SolverError when the solver is unknown or not installed.
    """
    if next(model.component_data_objects(pyo.Var, active=True), None) is None:
        # Nothing to decide (no demand, no fleet): solvers report empty models oddly.
        constant = float(pyo.value(model.cost.expr))
        return SolveResult(SolveStatus.OPTIMAL, "emptyModel", constant, constant, 0.0, options.name)
    lp_first = options.strategy == "lp-first"
    if lp_first and options.name != DEFAULT_SOLVER:
        raise SolverError(
            f"solver strategy {options.strategy!r} needs --solver {DEFAULT_SOLVER}, "
            f"not {options.name!r}; use --strategy direct"
        )
    started = time.perf_counter()
    if options.name == DEFAULT_SOLVER:
        result = _solve_highs(model, options, duals, rounding)
    else:
        contrib = _contrib_solver(options.name)
        if contrib is not None:
            result = _solve_contrib(contrib, model, options, duals)
        else:
            result = _solve_legacy(model, options, duals)
    seconds = time.perf_counter() - started
    gap = result.gap
    log.info(
        "solved with %s in %.2f s: %s, objective %s, gap %s",
        options.name,
        seconds,
        result.status.value,
        "n/a" if result.objective is None else f"{result.objective:,.3f} USD M",
        "n/a" if gap is None else f"{gap:.4%}",
    )
    return replace(result, seconds=seconds, solver=options.name)


# --- HiGHS, handed over in bulk -------------------------------------------------------

_TERMINATION = {
    "kOptimal": "convergenceCriteriaSatisfied",
    "kInfeasible": "provenInfeasible",
    "kUnboundedOrInfeasible": "infeasibleOrUnbounded",
    "kUnbounded": "unbounded",
    "kObjectiveBound": "objectiveLimit",
    "kObjectiveTarget": "objectiveLimit",
    "kTimeLimit": "maxTimeLimit",
    "kIterationLimit": "iterationLimit",
    "kSolutionLimit": "iterationLimit",
    "kInterrupt": "interrupted",
    "kHighsInterrupt": "interrupted",
    "kMemoryLimit": "error",
    "kLoadError": "error",
    "kModelError": "error",
    "kPresolveError": "error",
    "kSolveError": "error",
    "kPostsolveError": "error",
}
"""HiGHS model status → the termination names Pyomo's interfaces use."""
_HIGHS_STATUS = {
    "kOptimal": SolveStatus.OPTIMAL,
    "kInfeasible": SolveStatus.INFEASIBLE,
    "kUnboundedOrInfeasible": SolveStatus.INFEASIBLE,
    "kUnbounded": SolveStatus.UNBOUNDED,
}


@dataclass
class _HighsModel:
    """A Pyomo model as HiGHS arrays: which variable is which column, which row which."""

    highs: Any
    columns: list[Any]
    rows: dict[int, int]
    """id(ConstraintData) → row."""
    integers: np.ndarray
    """Columns that are integer (or binary)."""
    nonzeros: int
    lower: np.ndarray
    """Column lower bounds as handed over."""
    upper: np.ndarray


def _linear_row(
    body: Any, column: dict[int, int], extra: list[Any]
) -> tuple[list[int], list[float], float]:
    """Columns, coefficients and constant of a linear ``body``.

    Flat LinearExpressions of monomials (how planner.optimize builds rows) are read
    directly; anything else (or a row naming a variable twice) through Pyomo's
    standard representation.
    """
    cols: list[int] = []
    coefs: list[float] = []
    constant = 0.0
    if body.__class__ is LinearExpression:
        for arg in body.args:
            cls = arg.__class__
            if cls is VarData:
                coef, var = 1.0, arg
            elif cls is MonomialTermExpression:
                coef, var = arg.args
                if coef.__class__ is not float:
                    coef = pyo.value(coef)
            elif cls in _NUMBERS:
                constant += arg
                continue
            elif isinstance(arg, VarData):
                coef, var = 1.0, arg
            else:
                break  # not flat: fall through to the standard representation
            j = column.get(id(var))
            if j is None:
                j = _add_column(var, column, extra)
            cols.append(j)
            coefs.append(coef)
        else:
            if len(set(cols)) == len(cols):
                return cols, coefs, constant
    repn = generate_standard_repn(body, compute_values=True, quadratic=False)
    if repn.nonlinear_expr is not None:
        raise SolverError("HiGHS solves linear models only; a constraint is nonlinear")
    merged: dict[int, float] = {}
    for coef, var in zip(repn.linear_coefs, repn.linear_vars, strict=True):
        j = column.get(id(var))
        if j is None:
            j = _add_column(var, column, extra)
        merged[j] = merged.get(j, 0.0) + float(coef)
    return list(merged), list(merged.values()), float(pyo.value(repn.constant))


_NUMBERS = (int, float)


def _add_column(var: Any, column: dict[int, int], extra: list[Any]) -> int:
    """A variable outside the model's active blocks that a row uses: one more column."""
    column[id(var)] = j = len(column)
    extra.append(var)
    return j


def _column_bounds(columns: list[Any], inf: float) -> tuple[list[float], list[float], list[int]]:
    """Lower and upper bounds of each column (fixed: both its value) and the integers.

    Reads each variable's own bounds (``_lb``/``_ub``, as Pyomo's persistent solver
    interfaces do) and its domain's once per domain: the tighter of the two.
    """
    lower, upper, integer = [], [], []
    domains: dict[int, tuple[float, float, int]] = {}  # domains are shared objects
    for j, var in enumerate(columns):
        domain = var.domain
        known = domains.get(id(domain))
        if known is None:
            low, high, step = domain.get_interval()
            if step not in (0, 1):
                raise SolverError(f"HiGHS cannot model the domain of {var.name}")
            known = domains[id(domain)] = (
                -inf if low is None else float(low),
                inf if high is None else float(high),
                step,
            )
        if var.fixed:
            lower.append(float(var.value))
            upper.append(float(var.value))
            continue
        low, high, step = known
        own = var._lb
        if own is not None:
            own = own if own.__class__ in _NUMBERS else pyo.value(own)
            low = max(low, own)
        own = var._ub
        if own is not None:
            own = own if own.__class__ in _NUMBERS else pyo.value(own)
            high = min(high, own)
        lower.append(low)
        upper.append(high)
        if step:
            integer.append(j)
    return lower, upper, integer


def _highspy() -> Any:
    import highspy

    return highspy


def new_highs() -> Any:
    """A silent ``highspy.Highs`` (its banner, printed once per process, is swallowed)."""
    from pyomo.common.tee import capture_output

    with capture_output(capture_fd=True):
        highs = _highspy().Highs()
    highs.setOptionValue("output_flag", False)
    return highs


def highs_model(model: pyo.ConcreteModel) -> _HighsModel:
    """``model`` as a HiGHS model, handed over in one ``passModel`` (not solved)."""
    highspy = _highspy()
    inf = highspy.kHighsInf
    columns: list[Any] = []
    for var in model.component_objects(pyo.Var, active=True, descend_into=True):
        columns.extend(var.values())
    column = {id(v): j for j, v in enumerate(columns)}
    extra: list[Any] = []
    start: list[int] = [0]
    index: list[int] = []
    value: list[float] = []
    row_lower: list[float] = []
    row_upper: list[float] = []
    rows: dict[int, int] = {}
    for con in (
        con
        for family in model.component_objects(pyo.Constraint, active=True, descend_into=True)
        for con in family.values()
        if con.active
    ):
        lower, body, upper = con.to_bounded_expression(evaluate_bounds=True)
        cols, coefs, constant = _linear_row(body, column, extra)
        rows[id(con)] = len(row_lower)
        row_lower.append(-inf if lower is None else lower - constant)
        row_upper.append(inf if upper is None else upper - constant)
        index += cols
        value += coefs
        start.append(len(index))
    objectives = list(model.component_data_objects(pyo.Objective, active=True))
    if len(objectives) != 1:
        raise SolverError(f"the model has {len(objectives)} active objectives, not one")
    cost_cols, cost_coefs, offset = _linear_row(objectives[0].expr, column, extra)
    columns += extra
    lower_col, upper_col, integer = _column_bounds(columns, inf)
    cost = np.zeros(len(columns))
    cost[cost_cols] = cost_coefs
    lp = highspy.HighsLp()
    lp.num_col_ = len(columns)
    lp.num_row_ = len(row_lower)
    lp.offset_ = offset
    if objectives[0].sense == pyo.maximize:
        lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = cost
    lp.col_lower_ = np.array(lower_col, dtype=np.double)
    lp.col_upper_ = np.array(upper_col, dtype=np.double)
    lp.row_lower_ = np.array(row_lower, dtype=np.double)
    lp.row_upper_ = np.array(row_upper, dtype=np.double)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = lp.num_col_
    lp.a_matrix_.num_row_ = lp.num_row_
    lp.a_matrix_.start_ = np.array(start, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(value, dtype=np.double)
    highs = new_highs()
    if highs.passModel(lp) == highspy.HighsStatus.kError:
        raise SolverError("HiGHS rejected the model (see its log with --verbose)")
    integers = np.array(integer, dtype=np.int32)
    if len(integers):
        kinds = np.full(len(integers), int(highspy.HighsVarType.kInteger), dtype=np.uint8)
        highs.changeColsIntegrality(len(integers), integers, kinds)
    return _HighsModel(
        highs,
        columns,
        rows,
        integers,
        len(value),
        np.array(lower_col, dtype=np.double),
        np.array(upper_col, dtype=np.double),
    )


Rounding = Callable[[pyo.ConcreteModel, bool], None]
"""Sets the integer variables of a model holding an LP solution to whole values
(rounding up when its argument is True, down when False); see planner.optimize.strategy."""


def _set_integrality(bridge: _HighsModel, integer: bool) -> None:
    highspy = _highspy()
    kind = highspy.HighsVarType.kInteger if integer else highspy.HighsVarType.kContinuous
    count = len(bridge.integers)
    kinds = np.full(count, int(kind), dtype=np.uint8)
    bridge.highs.changeColsIntegrality(count, bridge.integers, kinds)


def _run(bridge: _HighsModel, options: SolverOptions, deadline: float | None) -> None:
    """One HiGHS run with the options and whatever time is left before ``deadline``."""
    highs = bridge.highs
    if deadline is not None:
        highs.setOptionValue("time_limit", max(0.0, deadline - time.perf_counter()))
    if options.mip_gap is not None:
        highs.setOptionValue("mip_rel_gap", float(options.mip_gap))
    try:
        highs.run()
    except Exception as exc:  # solver crashes become our error, not a traceback
        raise SolverError(f"highs failed: {type(exc).__name__}: {exc}") from exc


def _status(bridge: _HighsModel) -> tuple[SolveStatus, str]:
    name = bridge.highs.getModelStatus().name
    found = bridge.highs.getInfo().primal_solution_status == 2  # 0 none, 1 infeasible, 2 yes
    status = _HIGHS_STATUS.get(name)
    if status is None:
        status = SolveStatus.FEASIBLE if found else SolveStatus.NO_SOLUTION
        if _TERMINATION.get(name) == "error":
            status = SolveStatus.ERROR
    if status == SolveStatus.OPTIMAL and not found:
        status = SolveStatus.NO_SOLUTION
    return status, _TERMINATION.get(name, "unknown")


def _load(bridge: _HighsModel, values: Any) -> None:
    from pyomo.core.staleflag import StaleFlagManager

    for var, x in zip(bridge.columns, values, strict=True):
        var.set_value(x, skip_validation=True)
    StaleFlagManager.mark_all_as_stale(delayed=True)


def _solve_highs(
    model: pyo.ConcreteModel,
    options: SolverOptions,
    duals: Sequence[str],
    rounding: Rounding | None,
) -> SolveResult:
    started = time.perf_counter()
    bridge = highs_model(model)
    highs = bridge.highs
    handoff = time.perf_counter() - started
    if options.threads is not None:
        _reset_highs_scheduler()
        highs.setOptionValue("threads", options.threads)
    started = time.perf_counter()
    deadline = None if options.time_limit_s is None else started + options.time_limit_s
    lp_first = options.strategy == "lp-first" and rounding is not None and len(bridge.integers) > 0
    bound_floor = None
    relaxation_duals: dict[str, dict[Any, float]] = {}
    if lp_first:
        assert rounding is not None
        early, bound_floor, relaxation_duals = _round_the_lp(
            model, bridge, options, rounding, deadline, duals
        )
        if early is not None:
            return replace(early, handoff_seconds=handoff, nonzeros=bridge.nonzeros)
    _run(bridge, options, deadline)
    solver_seconds = time.perf_counter() - started
    started = time.perf_counter()
    status, termination = _status(bridge)
    info = highs.getInfo()
    objective = bound = None
    dual_values: dict[str, dict[Any, float]] = relaxation_duals
    if status.has_solution:
        solution = highs.getSolution()
        _load(bridge, solution.col_value)
        objective = info.objective_function_value
        bound = info.mip_dual_bound if info.mip_node_count >= 0 else None
        if status == SolveStatus.OPTIMAL and bound is None:
            bound = objective
        if duals and solution.dual_valid:
            dual_values = _duals(model, bridge, duals)
    if bound_floor is not None:  # the LP relaxation's bound holds for the MILP too
        known = bound is not None and math.isfinite(bound)
        bound = max(bound_floor, bound) if bound is not None and known else bound_floor
    return SolveResult(
        status=status,
        termination=termination,
        objective=objective,
        bound=None if bound is None or not math.isfinite(bound) else bound,
        seconds=0.0,
        solver=options.name,
        duals=dual_values,
        handoff_seconds=handoff,
        solver_seconds=solver_seconds,
        load_seconds=time.perf_counter() - started,
        nonzeros=bridge.nonzeros,
    )


def _duals(
    model: pyo.ConcreteModel, bridge: _HighsModel, names: Sequence[str]
) -> dict[str, dict[Any, float]]:
    """Row duals of the last solve for the named constraint components, by index."""
    row_dual = bridge.highs.getSolution().row_dual
    out: dict[str, dict[Any, float]] = {}
    for component in (getattr(model, n, None) for n in names):
        if component is None or not len(component):
            continue
        out[component.local_name] = {
            c.index(): float(row_dual[bridge.rows[id(c)]])
            for c in component.values()
            if id(c) in bridge.rows
        }
    return out


def _round_the_lp(
    model: pyo.ConcreteModel,
    bridge: _HighsModel,
    options: SolverOptions,
    rounding: Rounding,
    deadline: float | None,
    duals: Sequence[str],
) -> tuple[SolveResult | None, float | None, dict[str, dict[Any, float]]]:
    """The ``lp-first`` strategy: solve the LP relaxation (interior point, then
    crossover), round its integers up — or, if that breaks a cap, down — and solve the
    LP left with them fixed, warm from the relaxation's basis. A whole plan within the
    MIP gap of the relaxation's bound is the answer (returned); otherwise the MILP
    starts from it, and the relaxation's bound is returned to tighten the MILP's. The
    relaxation's duals of the ``duals`` components come back too (a MILP has none)."""
    highspy = _highspy()
    highs = bridge.highs
    started = time.perf_counter()
    _set_integrality(bridge, False)
    highs.setOptionValue("solver", "ipm")
    _run(bridge, options, deadline)
    highs.setOptionValue("solver", "choose")
    if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        log.info("lp-first: the LP relaxation ended %s; solving the MILP", highs.getModelStatus())
        _set_integrality(bridge, True)
        return None, None, {}
    bound = highs.getInfo().objective_function_value
    relaxation_duals = _duals(model, bridge, duals) if duals else {}
    _load(bridge, highs.getSolution().col_value)
    relaxation = [v.value for v in bridge.columns]
    ints, count = bridge.integers, len(bridge.integers)
    plan = None
    for up in (True, False):
        rounding(model, up)
        whole = np.array([bridge.columns[j].value for j in ints], dtype=np.double)
        highs.changeColsBounds(count, ints, whole, whole)
        _run(bridge, options, deadline)
        if highs.getModelStatus() == highspy.HighsModelStatus.kOptimal:
            plan = (highs.getInfo().objective_function_value, list(highs.getSolution().col_value))
            break
        _load(bridge, relaxation)  # back to the relaxation before rounding the other way
    highs.changeColsBounds(count, ints, bridge.lower[ints], bridge.upper[ints])
    _set_integrality(bridge, True)
    if plan is None:
        log.info("lp-first: no rounding of the LP relaxation is feasible; solving the MILP")
        return None, bound, relaxation_duals
    objective, values = plan
    gap = abs(objective - bound) / max(abs(objective), 1e-9)
    log.info("lp-first: rounded plan %.6g, LP bound %.6g, gap %.4f%%", objective, bound, gap * 100)
    if gap <= (options.mip_gap or 0.0):
        solver_seconds = time.perf_counter() - started
        started = time.perf_counter()
        _load(bridge, values)
        return (
            SolveResult(
                status=SolveStatus.OPTIMAL,
                termination="convergenceCriteriaSatisfied",
                objective=objective,
                bound=bound,
                seconds=0.0,
                solver=options.name,
                duals=relaxation_duals,
                solver_seconds=solver_seconds,
                load_seconds=time.perf_counter() - started,
            ),
            bound,
            relaxation_duals,
        )
    start = highspy.HighsSolution()
    start.col_value = values
    highs.setSolution(start)
    return None, bound, relaxation_duals


def _contrib_solver(name: str) -> Any:
    try:
        return ContribSolverFactory("highs" if name == PYOMO_HIGHS else name)
    except Exception:  # an unknown name: fall back to the classic factory
        return None


_CONTRIB_STATUS = {
    TerminationCondition.convergenceCriteriaSatisfied: SolveStatus.OPTIMAL,
    TerminationCondition.provenInfeasible: SolveStatus.INFEASIBLE,
    TerminationCondition.locallyInfeasible: SolveStatus.INFEASIBLE,
    TerminationCondition.infeasibleOrUnbounded: SolveStatus.INFEASIBLE,
    TerminationCondition.unbounded: SolveStatus.UNBOUNDED,
}


def _solve_contrib(
    solver: Any, model: pyo.ConcreteModel, options: SolverOptions, duals: Sequence[str]
) -> SolveResult:
    if not solver.available():
        raise SolverError(
            f"solver {options.name!r} is not available on this machine; "
            "install it or use --solver highs"
        )
    config: dict[str, Any] = {
        "load_solutions": False,
        "raise_exception_on_nonoptimal_result": False,
    }
    if options.mip_gap is not None:
        config["rel_gap"] = options.mip_gap
    if options.time_limit_s is not None:
        config["time_limit"] = options.time_limit_s
    if options.threads is not None:
        config["threads"] = options.threads
    if options.threads is not None and options.name == PYOMO_HIGHS:
        _reset_highs_scheduler()
    timer = HierarchicalTimer()
    try:
        results = solver.solve(model, timer=timer, **config)
    except Exception as exc:  # solver crashes become our error, not a traceback
        raise SolverError(f"{options.name} failed: {type(exc).__name__}: {exc}") from exc
    found = results.solution_status in (SolutionStatus.feasible, SolutionStatus.optimal)
    status = _CONTRIB_STATUS.get(results.termination_condition)
    if status is None:
        status = SolveStatus.FEASIBLE if found else SolveStatus.NO_SOLUTION
        if results.termination_condition == TerminationCondition.error:
            status = SolveStatus.ERROR
    if status == SolveStatus.OPTIMAL and not found:
        status = SolveStatus.NO_SOLUTION
    dual_values: dict[str, dict[Any, float]] = {}
    if status.has_solution:
        results.solution_loader.load_vars()
        if duals:
            dual_values = _contrib_duals(model, results, duals)
    objective = results.incumbent_objective if status.has_solution else None
    bound = results.objective_bound
    if status == SolveStatus.OPTIMAL and bound is None:
        bound = objective
    timings = {name: timer.get_total_time(name) for name in timer.get_timers()}
    return SolveResult(
        status=status,
        termination=results.termination_condition.name,
        objective=objective,
        bound=None if bound is None or not math.isfinite(bound) else bound,
        seconds=0.0,
        solver=options.name,
        duals=dual_values,
        handoff_seconds=timings.get("set_instance"),
        solver_seconds=timings.get("optimize"),
        load_seconds=timings.get("load solution"),
    )


def _reset_highs_scheduler() -> None:
    """HiGHS keeps one thread pool per process, sized by the first solve; asking a later
    solve for another thread count ends it with status "unknown". Resetting the pool
    first lets every solve pick its own ``threads``."""
    import highspy

    highspy.Highs.resetGlobalScheduler(True)


def _contrib_duals(model: pyo.ConcreteModel, results: Any, names: Sequence[str]) -> dict:
    rows = {
        name: list(getattr(model, name).values())
        for name in names
        if hasattr(model, name) and len(getattr(model, name)) > 0
    }
    every = [c for cons in rows.values() for c in cons]
    if not every:
        return {}
    try:
        values = results.solution_loader.get_duals(every)
    except NoDualsError:  # a MILP: no duals (the caller solves the LP relaxation)
        return {}
    return {name: {c.index(): float(values[c]) for c in cons} for name, cons in rows.items()}


# Option names of common classic solvers: (gap, time limit, threads).
_LEGACY_OPTIONS = {
    "cbc": ("ratioGap", "seconds", "threads"),
    "glpk": ("mipgap", "tmlim", None),
    "cplex": ("mipgap", "timelimit", "threads"),
    "gurobi": ("MIPGap", "TimeLimit", "Threads"),
    "scip": ("limits/gap", "limits/time", None),
}


def _solve_legacy(
    model: pyo.ConcreteModel, options: SolverOptions, duals: Sequence[str]
) -> SolveResult:
    available = False
    # An unregistered name would be tried as an AMPL executable: only if one exists.
    if options.name in pyo.SolverFactory or shutil.which(options.name):
        try:
            solver = pyo.SolverFactory(options.name)
            available = bool(solver.available(exception_flag=False))
        except Exception:
            available = False
    if not available:
        raise SolverError(
            f"solver {options.name!r} is unknown or not installed; "
            "use --solver highs (the default) or install that solver"
        )
    names = _LEGACY_OPTIONS.get(options.name)
    if names is None and (options.mip_gap or options.time_limit_s or options.threads):
        log.warning(
            "do not know %s's option names: gap, time limit, threads not passed", options.name
        )
    values = (options.mip_gap, options.time_limit_s, options.threads)
    for key, value in zip(names or (None, None, None), values, strict=True):
        if key is not None and value is not None:
            solver.options[key] = value
    if duals:
        model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    try:
        results = solver.solve(model, load_solutions=False, tee=False)
    except Exception as exc:
        raise SolverError(f"{options.name} failed: {type(exc).__name__}: {exc}") from exc
    condition = results.solver.termination_condition
    found = len(results.solution) > 0
    if condition == LegacyTermination.optimal:
        status = SolveStatus.OPTIMAL
    elif condition in (LegacyTermination.infeasible, LegacyTermination.infeasibleOrUnbounded):
        status = SolveStatus.INFEASIBLE
    elif condition == LegacyTermination.unbounded:
        status = SolveStatus.UNBOUNDED
    elif results.solver.status == LegacySolverStatus.error:
        status = SolveStatus.ERROR
    else:
        status = SolveStatus.FEASIBLE if found else SolveStatus.NO_SOLUTION
    objective = bound = None
    dual_values: dict[str, dict[Any, float]] = {}
    if status.has_solution and found:
        model.solutions.load_from(results)
        objective = pyo.value(model.cost)
        bound = objective if status == SolveStatus.OPTIMAL else None
        if duals:
            dual_values = {
                name: {
                    c.index(): float(model.dual.get(c, 0.0)) for c in getattr(model, name).values()
                }
                for name in duals
                if hasattr(model, name)
            }
    elif status.has_solution:
        status = SolveStatus.NO_SOLUTION
    return SolveResult(
        status=status,
        termination=str(condition),
        objective=objective,
        bound=bound,
        seconds=0.0,
        solver=options.name,
        duals=dual_values,
    )
