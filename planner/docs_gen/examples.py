"""Outputs the pages quote, made by running the commands they show.

Each function returns the Markdown of one generated region. Commands run in-process
in a scratch folder that links the repository's ``scenarios/``, so what they write
(workbooks, results files) never lands in the working tree.
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from planner.cli import cli
from planner.cli.common import run_guarded
from planner.cli.numbers import scaled
from planner.optimize.stages import MAX_PROFIT, MIN_COST, recipe_table
from planner.perf.efficiency import calibration_table
from planner.perf.fidelity import fidelity, shipped_benchmark_files

REPO = Path(__file__).resolve().parents[2]

RUN_BASELINE = "planner run scenarios/baseline.yaml --out exports/baseline.xlsx"
VENDORS = "planner vendors scenarios/vendor_shootout.yaml --workers 0"
VENDOR_COLUMNS = [
    "vendor",
    "npv_cost_usd",
    "vs_all_vendors_usd",
    "shortfall",
    "hardware_bought",
]


@contextmanager
def _scratch() -> Iterator[Path]:
    """A temporary working folder with ``scenarios/`` linked from the repository."""
    before = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="planner-docs-") as folder:
        (Path(folder) / "scenarios").symlink_to(REPO / "scenarios")
        os.chdir(folder)
        try:
            yield Path(folder)
        finally:
            os.chdir(before)


def _run(command: str) -> str:
    """Stdout of ``command`` (a ``planner ...`` line) run in-process; fails loudly."""
    args = shlex.split(command)
    assert args[0] == "planner", command
    with CliRunner().isolation() as (out, err, _):
        code = run_guarded(cli, args[1:])
    if code != 0:
        raise RuntimeError(f"`{command}` exited {code}: {err.getvalue().decode()}")
    return str(out.getvalue().decode())


@cache
def _baseline() -> tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """``planner run`` on baseline: its stdout, the workbook's sheets and the Summary
    sheet's headline rows (item, value or formula, unit)."""
    from openpyxl import load_workbook

    with _scratch() as folder:
        out = _run(RUN_BASELINE)
        book = load_workbook(folder / "exports" / "baseline.xlsx", read_only=True)
        rows = [r[:3] for r in book["Summary"].iter_rows(values_only=True)]
        sheets = tuple(book.sheetnames)
        book.close()
    start = next(i for i, r in enumerate(rows) if r[0] == "Headline figures") + 1
    end = next(i for i, r in enumerate(rows[start:], start=start) if r[0] is None)
    headline = tuple(tuple("" if c is None else str(c) for c in r) for r in rows[start:end])
    return out, sheets, headline


def _console(command: str, output: str, keep: int) -> str:
    """A console block: the command, then the first ``keep`` lines of its output."""
    lines = [line.rstrip() for line in output.splitlines()]
    shown = lines[:keep] + (["..."] if len(lines) > keep else [])
    return "\n".join(["```console", f"$ {command}", *shown, "```"])


def run_baseline() -> str:
    """The plan-a-fleet example: headline, fleet and costs by year."""
    out = _baseline()[0]
    lines = out.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("└")) + 1
    end = next(i for i, line in enumerate(lines[end:], start=end) if line.startswith("└")) + 1
    return _console(RUN_BASELINE, out, end)


def workbook_sheets() -> str:
    """The memo-workbook example: the sheets, and the Summary sheet's headline rows."""
    _, sheets, headline = _baseline()
    rows = ["| item | value | unit or note |", "|---|---|---|"]
    rows += [
        "| " + " | ".join(f"`{c}`" if c.startswith("=") else c for c in r) + " |" for r in headline
    ]
    names = ", ".join(f"**{name}**" for name in sheets)
    return "\n".join([f"Sheets: {names}.", "", "Summary, headline figures:", "", *rows])


def vendors_table() -> str:
    """The compare-vendors example: one row per vendor (columns abridged)."""
    with _scratch():
        out = _run(f"{VENDORS} --format json")
    frame = pd.DataFrame(json.loads(out)["tables"]["Vendors"])[VENDOR_COLUMNS].fillna("")
    for column in ("npv_cost_usd", "vs_all_vendors_usd"):
        frame[column] = [scaled(value, "$") for value in frame[column]]
    header = "| " + " | ".join(VENDOR_COLUMNS) + " |"
    rows = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(False)]
    lines = ["```console", f"$ {VENDORS}", "```", "", header, "|---" * len(VENDOR_COLUMNS) + "|"]
    return "\n".join([*lines, *rows])


def fidelity_table() -> str:
    """``planner fidelity`` with the shipped data and calibration, as a Markdown table."""
    groups = fidelity(shipped_benchmark_files(), calibration_table(None))
    lines = [
        "| domain | group | rows | median abs. error | bias | worst |",
        "|---|---|---|---|---|---|",
    ]
    for g in groups:
        lines.append(
            f"| {g.domain} | {g.group} | {g.rows} | {g.median_abs_pct:.1f}% "
            f"| {g.bias_pct:+.1f}% | {g.worst_pct:+.1f}% |"
        )
    return "\n".join(lines)


def plan_tables() -> str:
    """Every table of a Plan (what ``--tables DIR`` writes) with its units."""
    from planner.results import TABLE_UNITS

    rows = ["| table | units |", "|---|---|"]
    rows += [f"| `{name}` | {' '.join(unit.split())} |" for name, unit in TABLE_UNITS.items()]
    return "\n".join(rows)


def solve_recipes() -> str:
    """The decision tables of ``min_cost`` and ``max_profit``, from the recipe data the
    solve driver walks (:mod:`planner.optimize.stages`)."""
    return (
        "`objective: min_cost`\n\n"
        + recipe_table(MIN_COST)
        + "\n`objective: max_profit`\n\n"
        + recipe_table(MAX_PROFIT)
    )
