"""The results file of an analysis: a header line, then one JSON row per finished run.

The first line identifies the file, ``{"format": "planner-analysis-results",
"version": 2}``; every later line is a result row. ``--results`` names the file,
``--resume`` keeps its rows, ``--fresh`` discards them. Because a results path may be
mistyped (the scenario itself, a ``notes.csv``), nothing is appended to, rewritten or
deleted unless its first line is that header: any other non-empty file, and anything
that is not a regular file (a device, a FIFO, a folder), is refused with exit 2 and
left untouched. An empty file counts as new (there is nothing in it to lose).

Files written before the header existed (version 1: rows only) are refused too, with
``--resume`` and with ``--fresh``: their rows cannot be told apart from any other JSON
lines with certainty, and resuming them would mix formats. The message says how to
proceed: move or delete the file yourself and start again, or name another file.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from planner import safe_io
from planner.errors import InputError, Problem

FORMAT = "planner-analysis-results"
VERSION = 2
HEADER: dict[str, Any] = {"format": FORMAT, "version": VERSION}
HEADER_LINE = json.dumps(HEADER) + "\n"
MAX_HEADER_BYTES = 4096
"""How much of a file is read to decide whether it is a results file."""
MAX_ROW_BYTES = 1_000_000
"""The longest row read back; a longer line is not a row this planner wrote (skipped)."""

Row = dict[str, Any]


def _refuse(path: Path, message: str, hint: str) -> InputError:
    return InputError(str(path), Problem(path="--results", message=message, hint=hint))


def _another() -> str:
    return "name another file with --results (or leave it out for the default under exports/)"


def _first_line(path: Path) -> bytes:
    with safe_io.open_regular(path, "results file") as handle:
        return handle.readline(MAX_HEADER_BYTES)


def check_results_file(path: Path) -> bool:
    """Whether ``path`` holds a results file (True) or is new/empty (False).

    Raises InputError (exit 2) for anything else — a symbolic link too, dangling or
    not: rows are never written through a link (to a file elsewhere, or creating its
    target) — before any run starts; the file is only read, never changed.
    """
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise _refuse(
                path,
                "is a symbolic link; results are never written through a link",
                _another(),
            )
        info = path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _refuse(path, f"cannot read the results file: {exc.strerror}", _another()) from None
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, "is not a regular file (a folder, device or pipe)", _another())
    if info.st_size == 0:
        return False
    first = _first_line(path)
    try:
        header = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        header = None
    if isinstance(header, dict) and header.get("format") == FORMAT:
        if header.get("version") != VERSION:
            raise _refuse(
                path,
                f"results file version {header.get('version')!r}; this planner reads "
                f"version {VERSION}",
                "finish it with the planner version that wrote it, or " + _another(),
            )
        return True
    if isinstance(header, dict) and "task_id" in header and "task_key" in header:
        raise _refuse(
            path,
            "was written by an earlier planner version (no header line), so it is not "
            "resumed or deleted",
            "move or delete it yourself and run again, or " + _another(),
        )
    raise _refuse(
        path,
        f"is not a planner results file (its first line is not the header {HEADER_LINE.strip()}); "
        "it was left unchanged",
        "--results names the JSON-lines file an analysis writes: " + _another(),
    )


def read_results(path: Path) -> list[Row]:
    """Rows of a results file (checked first); a torn last line (a killed run) is skipped."""
    if not check_results_file(path):
        return []
    rows = []
    with safe_io.open_regular(path, "results file") as handle:
        handle.readline(MAX_HEADER_BYTES)  # the header
        while raw := handle.readline(MAX_ROW_BYTES):
            try:
                row = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
                continue  # not a row this planner wrote (a 5,000-deep list, say)
            if _is_row(row):
                rows.append(row)
    return rows


def _is_row(row: Any) -> bool:
    """A result row as this planner writes them: a mapping with an integer ``task_id``
    and a text ``task_key`` (anything else in a results file is skipped, not trusted)."""
    if not isinstance(row, dict):
        return False
    task_id, key = row.get("task_id"), row.get("task_key")
    return isinstance(task_id, int) and not isinstance(task_id, bool) and isinstance(key, str)


def write_rows(path: Path, rows: Sequence[Row]) -> None:
    """Replace ``path`` atomically with the header and ``rows``."""
    from planner.export.atomic import write_atomically

    def write(temp: Path) -> None:
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(HEADER_LINE)
            for row in rows:
                handle.write(json.dumps(row, sort_keys=False) + "\n")

    write_atomically(path, write)


class Appender:
    """Appends rows to a results file as they finish; the file (checked first: new, empty
    or a results file) is opened at the first row, so a run that fails before any
    task finishes (a scheduler that does not answer) creates no file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.existing = check_results_file(path)
        self.handle: IO[str] | None = None

    def write(self, row: Row) -> None:
        if self.handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # no link followed, even one planted after the check
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
            try:
                descriptor = os.open(self.path, flags, 0o644)
            except OSError as exc:
                raise _refuse(self.path, f"cannot be written: {exc.strerror}", _another()) from None
            self.handle = open(descriptor, "a", encoding="utf-8")  # noqa: SIM115 (see close)
            if not self.existing:
                self.handle.write(HEADER_LINE)
        self.handle.write(json.dumps(row) + "\n")
        self.handle.flush()

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def discard(path: Path) -> None:
    """``--fresh``: delete a results file (refusing anything else, which stays as it is)."""
    if check_results_file(path):
        os.unlink(path)
