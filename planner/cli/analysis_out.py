"""The end of a sweep's, Monte Carlo's or other many-run analysis's table output: the
runs that produced no plan, on stdout, so a reader of the printed tables (or of a log
of stdout alone) sees that some rows are missing, and why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from planner.cli.common import print_frame, stdout_console

SHOWN_FAILURES = 10
"""Failed runs listed by name; the rest are counted (every one is in the runs table)."""
ERROR_CHARS = 160
"""Characters of a run's error shown in the list."""


def failures_frame(failed: list[dict[str, Any]]) -> pd.DataFrame:
    """Label, status and error (cut to :data:`ERROR_CHARS`) of the first failed runs."""
    rows = []
    for run in failed[:SHOWN_FAILURES]:
        error = " ".join(str(run.get("error") or "").split())
        if len(error) > ERROR_CHARS:
            error = error[: ERROR_CHARS - 1] + "…"
        rows.append({"run": str(run["label"]), "status": str(run["status"]), "error": error})
    return pd.DataFrame(rows, columns=["run", "status", "error"])


def print_failures(failed: list[dict[str, Any]], runs: int, table: Path) -> None:
    """A line saying how many of ``runs`` failed, then the first of them as a table."""
    out = stdout_console()
    out.print(
        f"{len(failed)} of {runs} runs failed (no plan; left out of the tables above); "
        f"every run's status and error: {table}",
        markup=False,
    )
    from rich.markup import escape

    frame = failures_frame(failed)
    shown = frame.apply(lambda column: column.map(escape))
    print_frame(shown, "table", title="Failed runs")
    if len(failed) > SHOWN_FAILURES:
        out.print(f"… and {len(failed) - SHOWN_FAILURES} more", markup=False)
