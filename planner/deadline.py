"""A whole run's time limit: one monotonic clock shared by every stage of the run.

``planner run --time-limit N`` (or the scenario's ``solver.time_limit_s``) bounds the
run — perf tables, model data, model build, solve and export — not only the solver.
The command opens a :class:`Deadline` for the run::

    with Deadline(120.0):
        tables = throughput(scenario)   # long loops call deadline.check("perf tables")
        plan = optimise(scenario, ...)  # the solver gets deadline.remaining()
        write_workbook(plan, ...)       # under Deadline.grace(EXPORT_GRACE_S)

Code deep in a stage calls the module-level :func:`check` (a no-op when no run is
bounded) instead of taking a deadline argument through every signature. When the time
is up, :class:`TimeLimitError` (exit 3) names the stage and how to proceed.

Once a plan exists its export is allowed :data:`EXPORT_GRACE_S` seconds past the limit:
a solve that used all of its time still gets its workbook written, and an export that
runs away is still stopped.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from planner.errors import InputError, Problem, SolverError

EXPORT_GRACE_S = 30.0
"""Seconds past the time limit an export of a finished plan may take."""

_ACTIVE: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar(
    "planner_deadline", default=None
)


class TimeLimitError(SolverError):
    """The run reached its time limit before it finished (exit 3).

    A SolverError: like a solve that stops without a plan, the run ended without one,
    and a sweep records it as "no plan" rather than retrying it.
    """


class Deadline:
    """``seconds`` from now on the monotonic clock; ``with`` makes it the run's deadline.

    Deadlines nest: an inner ``with`` (e.g. :func:`planner.pipeline.plan` called by a
    command that opened one already) keeps the earlier of the two ends.
    """

    def __init__(self, seconds: float) -> None:
        if not (seconds > 0 and math.isfinite(seconds)):  # NaN compares false to all
            raise InputError(
                None,
                Problem(
                    path="--time-limit",
                    message="the time limit must be a positive number of seconds",
                    found=repr(seconds),
                    expected="a number above 0, e.g. --time-limit 120",
                ),
            )
        self.seconds = float(seconds)
        self.started = time.monotonic()
        self.end = self.started + self.seconds
        self.grace_s = 0.0
        self._tokens: list[contextvars.Token[Deadline | None]] = []

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started

    def remaining(self) -> float:
        """Seconds left (0 when the time is up; grace included while one is open)."""
        return max(0.0, self.end + self.grace_s - time.monotonic())

    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def check(self, stage: str) -> None:
        """Raise TimeLimitError, naming ``stage``, when the time is up."""
        if self.expired():
            raise TimeLimitError(self.message(stage))

    def message(self, stage: str) -> str:
        limit = f"{self.seconds:g} s"
        if self.grace_s:
            limit += f" (and the export's grace of {self.grace_s:g} s)"
        return (
            f"the run reached its time limit of {limit} during {stage}, after "
            f"{self.elapsed():.1f} s; raise --time-limit (or the scenario's "
            "solver.time_limit_s), or make the model smaller (coarser periods, fewer "
            "workloads or hardware)"
        )

    @contextmanager
    def grace(self, seconds: float = EXPORT_GRACE_S) -> Iterator[Deadline]:
        """Allow ``seconds`` past the limit inside the block (a finished plan's export)."""
        before = self.grace_s
        self.grace_s = max(before, seconds)
        try:
            yield self
        finally:
            self.grace_s = before

    def __enter__(self) -> Deadline:
        outer = _ACTIVE.get()
        active = self if outer is None or self.end < outer.end + outer.grace_s else outer
        self._tokens.append(_ACTIVE.set(active))
        return active

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        _ACTIVE.reset(self._tokens.pop())


def current() -> Deadline | None:
    """The deadline of the run in progress, if any."""
    return _ACTIVE.get()


def check(stage: str) -> None:
    """Raise TimeLimitError when the run in progress has reached its time limit."""
    deadline = _ACTIVE.get()
    if deadline is not None:
        deadline.check(stage)


def remaining() -> float | None:
    """Seconds left to the run in progress (None when no run is bounded)."""
    deadline = _ACTIVE.get()
    return None if deadline is None else deadline.remaining()


@contextmanager
def export_grace(seconds: float = EXPORT_GRACE_S) -> Iterator[None]:
    """Inside the block, the run in progress may overrun its limit by ``seconds``."""
    deadline = _ACTIVE.get()
    if deadline is None:
        yield
        return
    with deadline.grace(seconds):
        yield
