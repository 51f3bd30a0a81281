"""What runs after a plan is found, each only while the run's time lasts.

A run's time limit (:class:`planner.deadline.Deadline`) covers the solve. Once a plan
exists, the work that only adds to it — the LP shadow prices, the exact marginal
values of ``--marginal``, the LP estimates of lifting binding limits — is a
*follow-up*: when the limit is spent before or during one, that follow-up is skipped,
its name is recorded, and the plan is kept (``planner run`` exits 0 and says which
were skipped; sweeps record the run as solved with ``follow_ups_skipped``). A plan
found is a plan kept: nothing after the solve may turn it into a time-limit error.

The workbook is not a follow-up here: it is written within the export's grace
(:data:`planner.deadline.EXPORT_GRACE_S`) after the limit, and a workbook that still
cannot be written in that grace is reported by ``planner run`` with the plan kept.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from planner import deadline
from planner.deadline import TimeLimitError
from planner.errors import SolverError
from planner.results.relief_text import MARGINALS, RELIEF, SHADOW_PRICES

__all__ = [
    "MARGINALS",
    "RELIEF",
    "RUN_LIMIT_MARGIN_S",
    "SHADOW_PRICES",
    "FollowUps",
    "skipped_line",
    "time_is_up",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

RUN_LIMIT_MARGIN_S = 0.5
"""A solve that ends without an answer this close to the run's time limit (or after it)
ran out of time: the plan's solve is then the run's time-limit error
(:func:`planner.pipeline.no_plan`), a follow-up is skipped rather than failed."""


def time_is_up() -> bool:
    """Whether the run's time limit is spent (within :data:`RUN_LIMIT_MARGIN_S`); False
    without a limit."""
    run = deadline.current()
    return run is not None and run.remaining() < RUN_LIMIT_MARGIN_S


class FollowUps:
    """Runs follow-ups of one plan and records the names of those the time limit cut."""

    def __init__(self) -> None:
        self.skipped: list[str] = []
        self.seconds: dict[str, float] = {}
        """Wall-clock seconds each follow-up took (run or cut short), by name."""

    def run(self, name: str, work: Callable[[], T | None]) -> T | None:
        """``work()``, or None with ``name`` recorded as skipped when the run's time is up
        before it starts, it raises TimeLimitError, or it ends without an answer
        (None, or a SolverError) because its solver reached the run's limit."""
        if time_is_up():
            self.skip(name)
            return None
        started = time.perf_counter()
        try:
            done = work()
        except TimeLimitError:
            self.skip(name)
            return None
        except SolverError:
            if not time_is_up():
                raise
            done = None
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started
        if done is None and time_is_up():
            self.skip(name)
        return done

    def skip(self, name: str) -> None:
        """Record ``name`` as skipped for lack of time."""
        log.warning("the run's time limit was spent: %s skipped, the plan is kept", name)
        if name not in self.skipped:
            self.skipped.append(name)


def skipped_line(skipped: Sequence[str]) -> str:
    """One sentence for the terminal: which follow-ups the time limit cut."""
    return (
        "time limit reached after the plan was found: the plan is kept; skipped "
        + "; ".join(skipped)
        + " (raise --time-limit or the scenario's solver.time_limit_s to have them)"
    )
