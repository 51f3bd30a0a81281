"""Errors the user can act on.

Every error raised to the CLI is a :class:`PlannerError`. Its message says what was
found, what was expected and how to fix it; the CLI prints it without a traceback and
exits with the error's ``exit_code`` (2 for bad input, 3 for solver or runtime
failures).
"""

from __future__ import annotations

from dataclasses import dataclass, field


class PlannerError(Exception):
    """Base class of every error the CLI reports as a message instead of a traceback."""

    exit_code = 3


@dataclass(frozen=True)
class Problem:
    """One problem found in an input file.

    ``path`` is the field path in the document (``inference[1].cache_hit_rate``),
    ``line`` the 1-based line in the file where the offending value sits (None when
    unknown), ``found`` what the file has and ``expected`` what it should have.
    """

    path: str
    message: str
    found: str | None = None
    expected: str | None = None
    hint: str | None = None
    line: int | None = None
    file: str | None = None
    """The file the value came from, when it differs from the file being loaded."""
    where: str | None = None
    """Where in the file when lines do not apply: ``sheet 'inference', row 3, column F``."""

    def render(self, file: str | None) -> str:
        where = self.file or file
        if self.line is not None:
            where = f"{where or '<input>'}, line {self.line}"
        if self.where:
            where = f"{where or '<input>'}, {self.where}"
        prefix = f"{where}: " if where else ""  # no file: a command-line option
        parts = [f"{prefix}{self.path or '(document)'}: {self.message}"]
        if self.found is not None:
            parts.append(f"    found:    {self.found}")
        if self.expected is not None:
            parts.append(f"    expected: {self.expected}")
        if self.hint:
            parts.append(f"    fix:      {self.hint}")
        return "\n".join(parts)


MAX_SHOWN = 50
"""Problems an InputError lists in full; a file with 60,000 bad rows shows 50 and a count."""


class InputError(PlannerError):
    """Bad input: a scenario, catalog, benchmark or spec file the user must fix (exit 2)."""

    exit_code = 2

    def __init__(self, file: str | None, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem(path="", message=problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.file = file
        self.problems: list[Problem] = problems
        super().__init__(self.render())

    def render(self) -> str:
        """The problems, one block each; past ``MAX_SHOWN`` only a count of the rest."""
        head = f"{self.file or '<input>'}: {len(self.problems)} problem(s)"
        body = "\n".join(p.render(self.file) for p in self.problems[:MAX_SHOWN])
        rest = len(self.problems) - MAX_SHOWN
        if rest > 0:
            body += f"\n… and {rest:,} more problem(s), not shown; fix these and run again"
        return f"{head}\n{body}" if len(self.problems) > 1 else body


class SolverError(PlannerError):
    """The solver failed or found no feasible plan (exit 3)."""

    exit_code = 3


@dataclass
class ExportError(PlannerError):
    """A result could not be written; any previous file is left untouched (exit 3)."""

    path: str
    reason: str
    exit_code: int = field(default=3)

    def __post_init__(self) -> None:
        super().__init__(f"could not write {self.path}: {self.reason}")
