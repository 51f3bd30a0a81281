"""What a solve is asked and what it answers: options, statuses, results.

Every back-end (planner.optimize.solvers.highs_direct, .contrib, .legacy) returns a
:class:`SolveResult` in these words; planner.optimize.solve picks the back-end.
"""

from __future__ import annotations

import enum
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyomo.environ as pyo

from planner.errors import InputError, Problem
from planner.units import SOLVER_NAMES

DEFAULT_SOLVER = "highs"
PYOMO_HIGHS = "highs-pyomo"
"""HiGHS through Pyomo's own (persistent) interface instead of the bulk hand-off."""

STRATEGIES = ("auto", "direct", "lp-first")
"""``direct``: solve the MILP as built. ``lp-first``: solve the LP relaxation, round it
to a whole plan and stop there if it is within the MIP gap, else start the MILP from it.
``auto``: decided by the model's size (planner.optimize.strategy)."""

Rounding = Callable[[pyo.ConcreteModel, bool], None]
"""Sets the integer variables of a model holding an LP solution to whole values
(rounding up when its argument is True, down when False); see planner.optimize.strategy."""


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


class Termination(enum.StrEnum):
    """Why a solve stopped. The value is a stable token (the name Pyomo's interfaces use
    where they have one): headlines and results files carry it, code compares members,
    and :attr:`prose` is what a person reads."""

    OPTIMAL = "convergenceCriteriaSatisfied"
    INFEASIBLE = "provenInfeasible"
    INFEASIBLE_OR_UNBOUNDED = "infeasibleOrUnbounded"
    UNBOUNDED = "unbounded"
    OBJECTIVE_LIMIT = "objectiveLimit"
    TIME_LIMIT = "maxTimeLimit"
    ITERATION_LIMIT = "iterationLimit"
    INTERRUPTED = "interrupted"
    ERROR = "error"
    EMPTY_MODEL = "emptyModel"
    ALL_SERVED = "allServed"
    """The one stage served everything, so no service stage ran."""
    COST_UNMINIMISED = "costUnminimised"
    """The time guard made the plan (:mod:`planner.optimize.solvers.lexicographic`)."""
    OTHER = "other"
    """A solver's condition with no member here (its name is in the log)."""

    @classmethod
    def of(cls, name: str) -> Termination:
        """The member of a solver's own condition name (Pyomo's, either interface)."""
        member = {m.value: m for m in cls}.get(name) or _LEGACY_NAMES.get(name)
        if member is None:
            logging.getLogger("planner.optimize").info("solver termination %r: other", name)
            return cls.OTHER
        return member

    @property
    def prose(self) -> str:
        """The words printed for this termination."""
        return _PROSE[self]

    @classmethod
    def prose_of(cls, value: object) -> str:
        """The words for a headline's ``termination`` (a token, perhaps read back from a
        results file); a value that is no token is shown as it is."""
        try:
            return cls(str(value)).prose
        except ValueError:
            return str(value)


_LEGACY_NAMES = {
    "optimal": Termination.OPTIMAL,
    "globallyOptimal": Termination.OPTIMAL,
    "locallyOptimal": Termination.OPTIMAL,
    "infeasible": Termination.INFEASIBLE,
    "locallyInfeasible": Termination.INFEASIBLE,
    "maxIterations": Termination.ITERATION_LIMIT,
    "maxEvaluations": Termination.ITERATION_LIMIT,
    "userInterrupt": Termination.INTERRUPTED,
    "resourceInterrupt": Termination.INTERRUPTED,
    "solverFailure": Termination.ERROR,
    "internalSolverError": Termination.ERROR,
}
"""Pyomo's classic ``TerminationCondition`` names that differ from the tokens."""

_PROSE = {
    Termination.OPTIMAL: "optimal within the gap asked",
    Termination.INFEASIBLE: "proven infeasible",
    Termination.INFEASIBLE_OR_UNBOUNDED: "infeasible or unbounded",
    Termination.UNBOUNDED: "unbounded",
    Termination.OBJECTIVE_LIMIT: "stopped at an objective limit",
    Termination.TIME_LIMIT: "stopped at the time limit",
    Termination.ITERATION_LIMIT: "stopped at an iteration limit",
    Termination.INTERRUPTED: "interrupted",
    Termination.ERROR: "the solver reported an error",
    Termination.EMPTY_MODEL: "nothing to decide (an empty model)",
    Termination.ALL_SERVED: "all demand served (no service stage needed)",
    Termination.COST_UNMINIMISED: (
        "time guard: the cost LP did not finish in its share of the time; the whole "
        "decisions come from the service stage (its LP rounded, or its MILP), not chosen "
        "for cost; no bound on cost"
    ),
    Termination.OTHER: "another solver condition (see the log)",
}


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
    termination: Termination
    """Why the solve stopped."""
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


def status_by_gap(
    status: SolveStatus, objective: float | None, bound: float | None, mip_gap: float | None
) -> SolveStatus:
    """``optimal`` only for the relative gap actually reached: HiGHS also stops at an
    absolute gap of 1e-6 (model units, USD millions), which on a model of tiny amounts
    (1e-9 MW datacenter blocks) is a relative gap of 23 % where 0.5 % was asked; such a
    solve is ``feasible``, its gap reported as reached."""
    if status != SolveStatus.OPTIMAL or mip_gap is None or objective is None or bound is None:
        return status
    gap = abs(objective - bound) / max(abs(objective), 1e-9)
    return SolveStatus.FEASIBLE if gap > mip_gap * (1 + 1e-6) + 1e-9 else status


def finite(bound: float | None) -> float | None:
    """A solver's bound, or None where it has none (HiGHS and Pyomo report ±inf)."""
    return None if bound is None or not math.isfinite(bound) else bound


def require_registered(name: str) -> str:
    """``name`` if it is a registered solver name; InputError (exit 2) otherwise.

    Every back-end checks its name with this before it touches Pyomo, which would
    otherwise run an executable of that name or path.
    """
    if isinstance(name, str) and name in SOLVER_NAMES:
        return name
    raise InputError(
        None,
        Problem(
            path="solver.name",
            message="not a registered solver name (paths and other programs are never run)",
            found=repr(name)[:80],
            expected="one of " + ", ".join(SOLVER_NAMES),
            hint=f"set solver.name (or --solver) to one of those names, e.g. {DEFAULT_SOLVER}",
        ),
    )
