"""``planner compare``: solve several scenarios and line up their results."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd
from rich.markup import escape

from planner.analysis.compare import compare_files
from planner.cli.common import emit_json, frame_records, print_frame, stderr
from planner.cli.options import EACH_SCENARIO, FILE, format_option, out_option, solver_options
from planner.cli.outputs import WORKBOOK, check_outputs, require_suffix, scenario_inputs
from planner.export.excel import write_comparison_workbook
from planner.scenario import load_scenario


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """Scenario names in headers and cells with rich markup escaped."""
    out = frame.rename(columns=lambda c: escape(str(c)))
    return out.apply(lambda column: column.map(lambda v: escape(v) if isinstance(v, str) else v))


@click.command("compare")
@click.argument(
    "scenario_files",
    nargs=-1,
    required=True,
    metavar="SCENARIO...",
    type=FILE,
)
@out_option("Workbook to write.", default=Path("exports/compare.xlsx"), show_default=True)
@solver_options(EACH_SCENARIO, solver=False)
@format_option
def compare(
    scenario_files: tuple[Path, ...],
    out: Path,
    relax: bool,
    mip_gap: float | None,
    time_limit: float | None,
    threads: int | None,
    fmt: str,
) -> None:
    """Solve two or more scenarios and compare them side by side.

    Prints the headline figures of each (NPV, capex, peak MW, accelerators, $/Mtok,
    unmet demand) with differences against the first scenario, and writes a workbook
    with those figures, owned accelerators by period and hardware, present value by
    cost category, and charts. Exit 2 on bad input, 3 when a scenario has no plan.

    \b
    Example:
      planner compare scenarios/baseline.yaml scenarios/power_constrained.yaml \\
        --out exports/compare.xlsx
    """
    if len(scenario_files) < 2:
        raise click.UsageError("give at least two scenario files to compare")
    require_suffix(out, WORKBOOK, "--out")
    inputs = [
        source
        for path in scenario_files
        for source in scenario_inputs(path, load_scenario(path).calibration)
    ]
    check_outputs(inputs, out)
    result = compare_files(
        scenario_files, relax=relax, mip_gap=mip_gap, time_limit_s=time_limit, threads=threads
    )
    if fmt == "json":
        emit_json(
            {
                "scenarios": result.labels,
                "headline": frame_records(result.headline),
                "fleet": frame_records(result.fleet),
                "costs": frame_records(result.costs),
            }
        )
    elif fmt == "csv":
        print_frame(result.headline, "csv")
    else:
        print_frame(_shown(result.headline), "table", title="Headline figures")
        print_frame(_shown(result.costs), "table", title="Present value by category (USD)")
    written = write_comparison_workbook(result, out)
    stderr.print(f"wrote {written}", markup=False)


def register(cli: click.Group) -> None:
    cli.add_command(compare)
