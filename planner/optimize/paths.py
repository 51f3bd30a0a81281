"""How a ``min_cost`` plan was reached: the solve paths the headline names.

Values, not sentences matched by prefix: the headline's ``service_path`` is a
:class:`SolvePath` (its value prints as the sentence), and a service stage that was
not needed has the termination :data:`ALL_SERVED`.
"""

from __future__ import annotations

import enum

ALL_SERVED = "all demand served (no service stage needed)"
"""The service result's termination (and the headline's ``service_status``) when the
one stage served everything, so no service stage ran."""


class SolvePath(enum.StrEnum):
    """Which way ``min_cost`` reached its plan (:mod:`planner.optimize.recipe`)."""

    ONE_STAGE = "one stage: every slack held at 0, the cost minimised"
    TWO_STAGES = "two stages: the most service, then the least cost with it held"
    TWO_STAGES_AFTER = (
        "two stages, after serving everything found no plan: the most service, then the "
        "least cost with it held"
    )
    ONE_INSTANCE = (
        "one HiGHS instance (lp-first): the service LP, the cost LP with it held, rounded"
    )
