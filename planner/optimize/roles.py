"""What each variable family is: one table read by the model, rounding, foresight, the
one-instance solve and column generation.

Before this table the answer lived in six lists (the domains, :func:`round_plan`'s
families, foresight's decisions, the one instance's slacks, a MIP start, column
generation); a family added to one and not another was rounded but not fixed, or fixed
but not rounded. Now a family is declared once, here:

==============  ==========  ===========  ==============  ========  ==========
family          kind        part         rounding        foresight generated
==============  ==========  ===========  ==============  ========  ==========
buy             whole       commitment   up or down      fixed
kept            whole       commitment   up or down      fixed
installed       continuous  stock
rent            continuous  decision
y               choice      decision     most work
x_train         continuous  assignment
z_train         choice      decision     largest value
x_inf           continuous  assignment                             yes
unmet_inf       continuous  slack
lost_inf        continuous  slack
unmet_train     continuous  slack
commit          continuous  commitment                   fixed
dc_build        whole       commitment   up or down      fixed
dc_lease        continuous  commitment                   fixed
sell            whole       commitment   down            fixed
sell_existing   whole       commitment   down            fixed
==============  ==========  ===========  ==============  ========  ==========

*kind*: the domain when the model is not relaxed (``relax`` makes every family
continuous, a choice in [0, 1]). *part*: a decision the plan takes, a commitment that
cannot be undone later (what a rolling-horizon step fixes), a stock defined by a
balance, an assignment of units to work, or a slack of unmet demand (the service
objective's columns, outside the cost). *rounding*: how :func:`round_plan` makes an LP
value whole. *generated*: the family column generation may hold back.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.StrEnum):
    WHOLE = "whole"
    CHOICE = "choice"
    CONTINUOUS = "continuous"


class Part(enum.StrEnum):
    DECISION = "decision"
    COMMITMENT = "commitment"
    STOCK = "stock"
    ASSIGNMENT = "assignment"
    SLACK = "slack"


class Rounding(enum.StrEnum):
    NONE = "none"
    UP_OR_DOWN = "up or down"
    """Up to the next whole unit on the first try, down on the second."""
    DOWN = "down"
    """Always down (a sale rounded down never sells more than is held)."""
    MOST_WORK = "most work"
    """The one choice per run that did most of the run's work in the LP."""
    LARGEST_VALUE = "largest value"
    """The one choice per run (on its chosen cluster) with the largest LP value."""


@dataclass(frozen=True)
class Role:
    kind: Kind
    part: Part
    rounding: Rounding = Rounding.NONE
    foresight_fixes: bool = False
    generated: bool = False


_COMMITMENT = Role(Kind.WHOLE, Part.COMMITMENT, Rounding.UP_OR_DOWN, foresight_fixes=True)
_SALE = Role(Kind.WHOLE, Part.COMMITMENT, Rounding.DOWN, foresight_fixes=True)
_SLACK = Role(Kind.CONTINUOUS, Part.SLACK)

ROLES: dict[str, Role] = {
    "buy": _COMMITMENT,
    "kept": _COMMITMENT,
    "installed": Role(Kind.CONTINUOUS, Part.STOCK),
    "rent": Role(Kind.CONTINUOUS, Part.DECISION),
    "y": Role(Kind.CHOICE, Part.DECISION, Rounding.MOST_WORK),
    "x_train": Role(Kind.CONTINUOUS, Part.ASSIGNMENT),
    "z_train": Role(Kind.CHOICE, Part.DECISION, Rounding.LARGEST_VALUE),
    "x_inf": Role(Kind.CONTINUOUS, Part.ASSIGNMENT, generated=True),
    "unmet_inf": _SLACK,
    "lost_inf": _SLACK,
    "unmet_train": _SLACK,
    "commit": Role(Kind.CONTINUOUS, Part.COMMITMENT, foresight_fixes=True),
    "dc_build": _COMMITMENT,
    "dc_lease": Role(Kind.CONTINUOUS, Part.COMMITMENT, foresight_fixes=True),
    "sell": _SALE,
    "sell_existing": _SALE,
}
"""Every variable family of :mod:`planner.optimize.variables`, by name."""


def families(**wanted: object) -> tuple[str, ...]:
    """The families whose role has every attribute given, in table order
    (``families(part=Part.SLACK)``, ``families(foresight_fixes=True)``)."""
    return tuple(
        name
        for name, role in ROLES.items()
        if all(getattr(role, key) == value for key, value in wanted.items())
    )
