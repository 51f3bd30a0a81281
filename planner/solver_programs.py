"""The one program a classic solver may run, found by absolute path only.

Pyomo's classic interfaces (``cbc``, ``glpk``, ``cplex``, ``gurobi``, ``scip``) run an
executable they look up themselves, the current directory first: a folder someone
sent, holding a scenario that says ``solver.name: cbc`` and a program called ``cbc``,
would run that program. So the planner finds the executable itself and hands Pyomo
its absolute path:

* only in the absolute directories of ``PATH`` — never the current directory, a
  relative or empty ``PATH`` entry (which means the current directory), or a
  directory that is the current one;
* only a regular file (a symbolic link counts by its target) that is executable,
  belongs to root or the current user, and that neither its group nor others may
  write, in directories (the link's and the target's) neither group nor others may
  write, sticky or not (anyone who can write either could swap or plant the program).

The default solver, ``highs``, runs in-process through highspy and runs no program;
so do ``highs-pyomo`` and the ``*_direct`` / ``*_persistent`` interfaces.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from planner.errors import SolverError

EXECUTABLES: dict[str, tuple[str, ...]] = {
    "cbc": ("cbc",),
    "glpk": ("glpsol",),
    "cplex": ("cplex",),
    "gurobi": ("gurobi.sh",),
    "scip": ("scip", "scipampl"),
}
"""Solver name → the program names Pyomo's classic interface runs, in its order."""


def _unsafe(path: Path) -> str | None:
    """Why ``path`` may not be run (None: it may)."""
    try:
        target = path.resolve(strict=True)
        info = target.stat()
    except OSError:
        return "cannot be read"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if not os.access(target, os.X_OK):
        return "is not executable"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "may be written by others"
    if info.st_uid not in (0, os.getuid()):
        return "belongs to another user"
    for place in {target.parent, path.parent}:  # the target's folder and the link's
        try:
            mode = place.stat().st_mode
        except OSError:
            return "is in a folder that cannot be read"
        # a sticky bit stops deleting others' files, not adding one: still refused
        if mode & (stat.S_IWGRP | stat.S_IWOTH):
            return "is in a folder others may write"
    return None


def solver_executable(solver: str) -> Path | None:
    """The absolute path of the program ``solver`` runs, or None when it runs none
    (HiGHS, in-process interfaces). SolverError (naming the solver and what was
    found) when no safe program of its names is on ``PATH``."""
    names = EXECUTABLES.get(solver)
    if names is None:
        return None
    here = Path.cwd().resolve()
    refused: list[str] = []
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # "" and relative entries mean the current directory
        folder = Path(entry)
        try:
            if folder.resolve() == here:
                continue
        except OSError:
            continue
        for name in names:
            candidate = folder / name
            if not candidate.exists():
                continue
            why = _unsafe(candidate)
            if why is None:
                return candidate.resolve()
            refused.append(f"{candidate} {why}")
    found = f" ({'; '.join(refused)})" if refused else ""
    raise SolverError(
        f"solver {solver!r} needs the program {' or '.join(names)} in an absolute PATH "
        f"directory, as a regular executable file others may not write; none found{found}. "
        "Programs in the current directory are never run. Install the solver or use "
        "--solver highs (the default, which runs no program)"
    )
