"""Pyomo rows straight from precomputed sparse terms (docs/design.md).

Each constraint family computes its rows from ModelData's lookups as plain data —
``{key: (lower, [(coefficient, variable), ...], upper)}`` — and :func:`add_rows` declares
them. :func:`linear` makes each body one flat ``LinearExpression`` of monomials, without
operator overloading: no nested sums for the hand-off to re-walk, and about four times
faster to build than ``sum(c * x for ...)``. Variables are looked up in plain dicts
(:func:`variables`), not through the indexed component's ``__getitem__``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pyomo.environ as pyo
from pyomo.core.base.var import VarData
from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

Term = tuple[float, VarData]
"""(coefficient, variable)."""
Row = tuple[float | None, list[Term], float | None]
"""(lower bound or None, terms, upper bound or None); equal bounds make an equality."""


def linear(terms: Iterable[Term]) -> LinearExpression:
    """Σ coefficient · variable as one flat expression (a unit coefficient needs no
    monomial: the variable itself is the term)."""
    return LinearExpression(
        [term[1] if term[0] == 1.0 else MonomialTermExpression(term) for term in terms]
    )


def variables(var: pyo.Var) -> dict[Any, VarData]:
    """Index → variable of an indexed Var, as a plain dict (fast lookups)."""
    return dict(var.items())


def add_rows(m: pyo.ConcreteModel, name: str, rows: Mapping[Any, Row], doc: str) -> None:
    """Declare ``m.<name>``: one constraint per row, indexed by the rows' keys.

    A row without terms is skipped (it constrains nothing). On a
    :class:`planner.optimize.rows.RowModel` (whose variables are column numbers) the
    rows are appended as arrays instead.
    """
    append = getattr(m, "append_rows", None)
    if append is not None:
        append(name, rows)
        return

    def rule(_: pyo.ConcreteModel, *index: Any) -> Any:
        lower, terms, upper = rows[index[0] if len(index) == 1 else index]
        if not terms:
            return pyo.Constraint.Skip
        body = linear(terms)
        if lower is not None and lower == upper:
            return (body, lower)
        return (lower, body, upper)

    setattr(m, name, pyo.Constraint(list(rows), rule=rule, doc=doc))
