"""How a plan was reached: the solve paths the headline names.

The headline's ``service_path`` is a :class:`SolvePath`, a short token; its
:attr:`SolvePath.prose` is what a person reads. The recipes that take these paths are
data in :mod:`planner.optimize.stages`.
"""

from __future__ import annotations

import enum


class SolvePath(enum.StrEnum):
    """Which way a plan was reached (:mod:`planner.optimize.recipe`)."""

    ONE_INSTANCE = "one_instance"
    ONE_STAGE = "one_stage"
    TWO_STAGES = "two_stages"
    TWO_STAGES_AFTER = "two_stages_after"
    PROFIT = "profit"
    MUST_SERVE_FIRST = "must_serve_first"

    @property
    def prose(self) -> str:
        """The words printed for this path."""
        return _PROSE[self]


_PROSE = {
    SolvePath.ONE_INSTANCE: (
        "one HiGHS instance (lp-first): the service LP, the cost LP with it held, rounded"
    ),
    SolvePath.ONE_STAGE: "one stage: every slack held at 0, the cost minimised",
    SolvePath.TWO_STAGES: "two stages: the most service, then the least cost with it held",
    SolvePath.TWO_STAGES_AFTER: (
        "two stages, after an earlier path found no plan: the most service, then the "
        "least cost with it held"
    ),
    SolvePath.PROFIT: "one stage: NPV cost + PV of revenue forgone minimised",
    SolvePath.MUST_SERVE_FIRST: (
        "two stages: the most must-serve work, then cost + revenue forgone with it held"
    ),
}
