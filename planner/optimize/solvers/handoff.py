"""The Pyomo model as HiGHS's own arrays, handed over in one ``passModel``.

The model's active variables, rows and objective become row-wise sparse arrays
(:class:`Arrays`), read straight from the flat linear expressions the model is built of
(planner.optimize.linear; anything else goes through Pyomo's ``generate_standard_repn``),
and HiGHS gets them in one ``passModel`` (:func:`pass_arrays`). Fixed variables stay
columns with equal bounds. This replaces Pyomo's persistent HiGHS interface, which
re-walks every row twice and adds variables row by row: on the L benchmark its hand-off
took longer than building the model (see bench/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.core.base.var import VarData
from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression
from pyomo.repn.standard_repn import generate_standard_repn

from planner.errors import SolverError
from planner.optimize.solvers.highs import HighsModel, highspy, new_highs

_NUMBERS = (int, float)


@dataclass
class Arrays:
    """A linear model as plain arrays: columns (bounds, cost), rows (bounds) and the
    row-wise sparse matrix (``start``/``index``/``value``), and what each came from."""

    columns: list[Any]
    """The Pyomo variable of each column."""
    rows: dict[int, int]
    """id(ConstraintData) → row."""
    col_lower: np.ndarray
    col_upper: np.ndarray
    cost: np.ndarray
    offset: float
    maximise: bool
    row_lower: np.ndarray
    row_upper: np.ndarray
    start: np.ndarray
    index: np.ndarray
    value: np.ndarray
    integers: np.ndarray
    """Columns that are integer (or binary)."""


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


def model_arrays(model: pyo.ConcreteModel) -> Arrays:
    """``model``'s active variables, rows and single objective as :class:`Arrays`."""
    inf = highspy().kHighsInf
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
    return Arrays(
        columns=columns,
        rows=rows,
        col_lower=np.array(lower_col, dtype=np.double),
        col_upper=np.array(upper_col, dtype=np.double),
        cost=cost,
        offset=offset,
        maximise=objectives[0].sense == pyo.maximize,
        row_lower=np.array(row_lower, dtype=np.double),
        row_upper=np.array(row_upper, dtype=np.double),
        start=np.array(start, dtype=np.int32),
        index=np.array(index, dtype=np.int32),
        value=np.array(value, dtype=np.double),
        integers=np.array(integer, dtype=np.int32),
    )


def pass_arrays(arrays: Arrays) -> Any:
    """A new silent ``highspy.Highs`` holding ``arrays`` (one ``passModel``), not solved."""
    module = highspy()
    lp = module.HighsLp()
    lp.num_col_ = len(arrays.col_lower)
    lp.num_row_ = len(arrays.row_lower)
    lp.offset_ = arrays.offset
    if arrays.maximise:
        lp.sense_ = module.ObjSense.kMaximize
    lp.col_cost_ = arrays.cost
    lp.col_lower_ = arrays.col_lower
    lp.col_upper_ = arrays.col_upper
    lp.row_lower_ = arrays.row_lower
    lp.row_upper_ = arrays.row_upper
    lp.a_matrix_.format_ = module.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = lp.num_col_
    lp.a_matrix_.num_row_ = lp.num_row_
    lp.a_matrix_.start_ = arrays.start
    lp.a_matrix_.index_ = arrays.index
    lp.a_matrix_.value_ = arrays.value
    highs = new_highs()
    if highs.passModel(lp) == module.HighsStatus.kError:
        raise SolverError(
            "HiGHS rejected the model (a bound or coefficient it cannot accept); "
            "try --solver highs-pyomo, and please report this with the scenario file"
        )
    integers = arrays.integers
    if len(integers):
        kinds = np.full(len(integers), int(module.HighsVarType.kInteger), dtype=np.uint8)
        highs.changeColsIntegrality(len(integers), integers, kinds)
    return highs


def highs_model(model: pyo.ConcreteModel) -> HighsModel:
    """``model`` as a HiGHS model, handed over in one ``passModel`` (not solved)."""
    return highs_model_of(model_arrays(model))


def highs_model_of(arrays: Arrays) -> HighsModel:
    """``arrays`` as a HiGHS model, handed over in one ``passModel`` (not solved)."""
    return HighsModel(
        pass_arrays(arrays),
        arrays.columns,
        arrays.rows,
        arrays.integers,
        len(arrays.value),
        arrays.col_lower,
        arrays.col_upper,
    )
