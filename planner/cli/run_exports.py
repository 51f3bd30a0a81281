"""The files ``planner run`` writes after its plan: a plan is never lost to an export.

By the time anything is exported the plan has been printed (the terminal tables, or
the JSON or CSV document on stdout). Each export then runs on its own, in order:
the workbook, the ``--tables`` files, the ``--plots`` PNGs. One that fails — an
unwritable or full folder, an error inside a writer — is reported on stderr with its
reason and leaves nothing at its target (every file is written to a temporary file
and renamed into place, :mod:`planner.export.atomic`), and the others are still
written. The run then ends with :data:`EXIT_EXPORT_FAILED` (4): the plan is good and
printed, an output asked for is missing. A script can tell that from a bad input (2)
or no plan (3), and nothing is reported as an internal error.

A workbook cut by the time limit is different: the limit is the run's own budget,
and what it leaves undone is named, as for the follow-ups (exit 0, and the tables and
plots are not written either).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from rich.markup import escape

from planner.cli.common import stderr
from planner.deadline import TimeLimitError
from planner.errors import ExportError, PlannerError

EXIT_EXPORT_FAILED = 4
"""Exit code of a run whose plan was printed but an output file could not be written."""


class ExportsFailed(PlannerError):
    """Some outputs of a printed plan were not written (exit 4)."""

    exit_code = EXIT_EXPORT_FAILED


Export = tuple[str, Callable[[], Iterable[Path]]]
"""What an export is called in messages (``workbook``) and the call that writes it."""


def _reason(exc: Exception) -> str:
    if isinstance(exc, ExportError):
        return str(exc)
    if isinstance(exc, PlannerError):
        return str(exc) or type(exc).__name__
    return f"the writer failed: {type(exc).__name__}: {exc}"


def write_exports(exports: list[Export]) -> None:
    """Run each export; report each failure and raise :class:`ExportsFailed` at the end.

    A :class:`TimeLimitError` stops the exports (nothing after it is written) and is
    reported as the limit reached, not as a failure.
    """
    failed: list[str] = []
    for name, write in exports:
        try:
            written = list(write())
        except TimeLimitError as exc:
            stderr.print(
                f"[bold yellow]{escape(name)} not written[/bold yellow]: {escape(str(exc))}; "
                "the plan above is complete (nothing was written over the output; "
                "the outputs after it were not written either)",
                soft_wrap=True,
            )
            return
        except Exception as exc:
            reason = _reason(exc)
            failed.append(f"{name} ({reason})")
            stderr.print(
                f"[bold red]{escape(name)} not written[/bold red]: {escape(reason)}; "
                "the plan above is complete, and no file was left half-written",
                soft_wrap=True,
            )
            continue
        for path in written:
            stderr.print(f"wrote {path}", markup=False, soft_wrap=True)
    if failed:
        raise ExportsFailed(
            f"the plan was found and printed, but {len(failed)} output(s) were not "
            f"written: {'; '.join(failed)}. Fix the cause (a folder you may write, "
            "free disk space) and run again"
        )
