"""``planner template``: write an assumptions workbook to edit a scenario in Excel."""

from __future__ import annotations

from pathlib import Path

import click

from planner.cli.common import echo_err
from planner.cli.options import INPUT, out_option
from planner.cli.outputs import WORKBOOK, check_outputs, require_suffix, scenario_inputs
from planner.export.template import write_template
from planner.scenario import load_scenario


@click.command()
@out_option("Workbook to write (.xlsx); missing folders are created.", required=True)
@click.option(
    "--from",
    "source",
    type=INPUT,
    default=None,
    help="Scenario to fill it from (YAML, after extends and overrides, or .xlsx). "
    "Without it: defaults and empty tables.",
)
def template(out: Path, source: Path | None) -> None:
    """Write an assumptions workbook: one sheet per scenario section.

    Edit it in Excel or LibreOffice, then pass it to `planner validate` or
    `planner run` like a YAML file. A README sheet explains every field; drop-down
    lists offer catalog hardware and model ids. Year-indexed values are one number
    or 'see series' with values by year on the series sheet. Errors in the
    workbook name the sheet, row and column.

    \b
    Example:
      planner template --from scenarios/baseline.yaml --out exports/baseline-inputs.xlsx
      planner validate exports/baseline-inputs.xlsx
    """
    require_suffix(out, WORKBOOK, "--out")
    scenario = load_scenario(source) if source is not None else None
    inputs = scenario_inputs(source, scenario.calibration) if source and scenario else []
    check_outputs(inputs, out)
    write_template(out, scenario)
    what = f"from {source}" if source is not None else "with defaults"
    echo_err(f"wrote {out} ({what})")
    if scenario is not None and scenario.uncertainty is not None:
        echo_err(
            "note: the uncertainty: tree is not carried to the workbook (it holds the base "
            "scenario); plan the tree from the YAML with planner stochastic"
        )


def register(cli: click.Group) -> None:
    cli.add_command(template)
