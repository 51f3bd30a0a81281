"""The headline's solve tokens in words, for what prints them (the workbook, the
terminal): ``termination`` (:class:`planner.optimize.solvers.types.Termination`) and
``service_path`` (:class:`planner.optimize.paths.SolvePath`)."""

from __future__ import annotations

from planner.optimize.paths import SolvePath
from planner.optimize.solvers.types import Termination


def termination_prose(value: object) -> str:
    """The words for a headline's ``termination``; a value that is no token (a results
    file from elsewhere) is shown as it is."""
    return Termination.prose_of(value)


def path_prose(value: object) -> str:
    """The words for a headline's ``service_path``; a value that is no token as it is."""
    try:
        return SolvePath(str(value)).prose
    except ValueError:
        return str(value)
