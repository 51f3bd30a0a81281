"""What every command shares: printing tables and JSON, error handling and exit codes.

Nothing a file or an argument contains reaches the terminal as a control sequence:
every console here (:data:`stderr`, :func:`stdout_console`) shows C0 and C1 control
characters, DEL and bidirectional overrides as visible ``\\xNN``/``\\uNNNN`` escapes
(:func:`printable`; tab and newline kept) and never turns ``:name:`` into an emoji;
error messages, click's usage errors and CSV on stdout go through the same function.
JSON on stdout is ASCII with every control character escaped by the encoder.

Tables fit :data:`TABLE_WIDTH` (120) columns: when a table is wider, the columns a
frame names in ``attrs["drop_first"]`` go first (in that order), then columns from
the right, never the first (the row label); the columns left out are named in a
footnote line under the table. ``--wide`` (:func:`planner.cli.options.format_option`) shows every
column. Piped output is laid out at 120 columns too (240 with ``--wide``).

The options commands share are declared in :mod:`planner.cli.options`.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from planner.cli.numbers import column_formatter
from planner.errors import PlannerError

if TYPE_CHECKING:  # pandas loads with the first table printed, not with `planner --help`
    import pandas as pd

EXIT_OK, EXIT_BAD_INPUT, EXIT_FAILURE = 0, 2, 3
TABLE_WIDTH = 120
"""Columns a printed table may take unless ``--wide``."""
WIDE_WIDTH = 240
"""Columns of piped output with ``--wide`` (a wider table still prints whole)."""
WIDE_KEY = "planner.wide"
"""Key in click's context ``meta`` set by ``--wide``."""

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape_control(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with control characters (C0 but tab and newline, DEL, C1) and bidi
    overrides shown as ``\\xNN``/``\\uNNNN`` escapes: safe to echo to a terminal."""
    return _CONTROL.sub(_escape_control, text)


class SafeConsole(Console):
    """A rich console that escapes control characters in every string it renders
    (messages, table titles, headers and cells) and shows no emoji codes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(highlight=False, emoji=False, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Any:
        return super().render_str(printable(text), **kwargs)


stderr = SafeConsole(stderr=True)


def run_guarded(command: click.Command, args: Sequence[str] | None = None) -> int:
    """Run ``command``; a PlannerError becomes a message on stderr and its exit code.

    Nothing the user can cause prints a traceback: unexpected exceptions are reported
    as an internal error (exit 3) with a one-line description.
    """
    try:
        code = command.main(args=args, standalone_mode=False, prog_name="planner")
    except PlannerError as exc:
        stderr.print(f"[red]error:[/red] {escape(str(exc))}", markup=True, soft_wrap=True)
        return exc.exit_code
    except click.exceptions.Abort:
        stderr.print("aborted")
        return 130
    except click.ClickException as exc:
        shown = io.StringIO()
        exc.show(file=shown)
        click.echo(printable(shown.getvalue()), err=True, nl=False)
        return EXIT_BAD_INPUT
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except KeyboardInterrupt:
        stderr.print("interrupted")
        return 130
    except Exception as exc:  # a bug: say so briefly, never a traceback
        stderr.print(
            f"internal error: {type(exc).__name__}: {str(exc)[:2000]}\n"
            "please report this with the command and input that caused it",
            markup=False,
        )
        return EXIT_FAILURE
    return code if isinstance(code, int) else EXIT_OK


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):
        return _jsonable(value.item())
    return value


def emit_json(document: Any) -> None:
    """Print exactly one JSON document on stdout."""
    click.echo(json.dumps(_jsonable(document), indent=2, default=str))


def frame_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A DataFrame as a list of JSON-safe records (NaN → null)."""
    return [_jsonable(r) for r in frame.to_dict(orient="records")]


def print_frame(
    frame: pd.DataFrame,
    fmt: str,
    title: str | None = None,
    json_key: str | None = None,
) -> None:
    """Print a table in the chosen format (json: a list of records, or under ``json_key``)."""
    from planner.export.cells import csv_safe

    if fmt == "json":
        records = frame_records(frame)
        emit_json({json_key: records} if json_key else records)
    elif fmt == "csv":
        echo_out(csv_safe(frame).to_csv(index=False), nl=False)
    else:
        wide = wide_output()
        table, dropped = terminal_table(frame, title, None if wide else TABLE_WIDTH)
        out = stdout_console()
        if wide and table.columns:  # every column, however wide the terminal
            out = SafeConsole(width=max(out.width, out.measure(table).maximum))
        out.print(table)
        if dropped:  # names as the headers show them (markup escaped by the caller)
            out.print(dropped_note(dropped))


def wide_output() -> bool:
    """Whether the running command was given ``--wide``."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.find_root().meta.get(WIDE_KEY))


def dropped_note(dropped: Sequence[str]) -> str:
    """The footnote under a table whose right-hand columns did not fit."""
    return f"  not shown to fit {TABLE_WIDTH} columns: {', '.join(dropped)} (--wide shows all)"


def terminal_table(
    frame: pd.DataFrame, title: str | None = None, width: int | None = None
) -> tuple[Table, list[str]]:
    """``frame`` as a rich table and the names of the columns left out: one number
    format per column (:mod:`planner.cli.numbers`); long headers wrap instead of being
    cut. With ``width``, columns are kept from the left while the table fits it (the
    first always); the rest are left out."""
    import pandas as pd

    table = Table(title=title, show_lines=False, header_style="bold")
    shown: list[list[str]] = []
    numeric: list[bool] = []
    for column in frame.columns:
        numeric.append(pd.api.types.is_numeric_dtype(frame[column]))
        money = numeric[-1] and frame.attrs.get("unit") == "USD"
        show = column_formatter(str(column), frame[column].tolist(), money=money)
        shown.append([show(value) for value in frame[column].tolist()])
    names = [str(c) for c in frame.columns]
    first = [str(c) for c in frame.attrs.get("drop_first", ())]
    keep = range(len(names)) if width is None else _fitting(names, shown, width, first)
    for n in keep:
        table.add_column(names[n], justify="right" if numeric[n] else "left", overflow="fold")
    for i in range(len(frame)):
        table.add_row(*(shown[n][i] for n in keep))
    return table, [name for n, name in enumerate(names) if n not in keep]


def _fitting(
    names: Sequence[str], shown: Sequence[Sequence[str]], width: int, first: Sequence[str]
) -> list[int]:
    """Indices of the columns kept to fit ``width``: each column takes its widest cell or
    header plus 3 (padding and a rule), the table 1 more (its left rule); columns named
    in ``first`` are dropped first, then from the right; column 0 stays."""
    widths = [
        max([len(name), *map(len, cells)]) + 3 for name, cells in zip(names, shown, strict=True)
    ]
    order = [names.index(n) for n in first if n in names[1:]]
    order += [n for n in reversed(range(1, len(names))) if n not in order]
    kept = set(range(len(names)))
    for n in order:
        if 1 + sum(widths[k] for k in kept) <= width:
            break
        kept.discard(n)
    return sorted(kept)


def stdout_console() -> Console:
    """A console on stdout; when piped, :data:`TABLE_WIDTH` columns wide
    (:data:`WIDE_WIDTH` with ``--wide``), whatever ``COLUMNS`` says."""
    console = SafeConsole()
    if not console.is_terminal:
        console = SafeConsole(width=WIDE_WIDTH if wide_output() else TABLE_WIDTH)
    return console


def echo_out(text: str, nl: bool = True) -> None:
    """Plain text on stdout (CSV, one-line results), control characters escaped."""
    click.echo(printable(text), nl=nl)


def echo_err(message: str) -> None:
    """A message for the user on stderr (never on stdout)."""
    stderr.print(message, markup=False, soft_wrap=True)
