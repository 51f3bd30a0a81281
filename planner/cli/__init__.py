"""The ``planner`` command line: a thin click group; each command calls the library.

Conventions every command follows: ``--help`` with an example; ``--format
table|csv|json`` on every command that prints results (json prints exactly one JSON
document on stdout; messages go to stderr); exit codes 0 ok, 2 bad input, 3 solver or
runtime failure.
"""

from __future__ import annotations

import sys

import click

from planner import __version__
from planner.cli import (
    analysis_cmds,
    catalog_cmds,
    compare_cmds,
    economics_cmds,
    perf_cmds,
    run_cmds,
    scenario_cmds,
    template_cmds,
)
from planner.cli.common import run_guarded


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="planner")
def cli() -> None:
    """Fleet-scale TCO and scenario planner for AI compute.

    \b
    Example:
      planner validate scenarios/baseline.yaml
    """


for module in (
    scenario_cmds,
    catalog_cmds,
    economics_cmds,
    perf_cmds,
    run_cmds,
    compare_cmds,
    analysis_cmds,
    template_cmds,
):
    module.register(cli)


def main() -> None:
    """Console-script entry point: run the CLI, turning library errors into messages."""
    sys.exit(run_guarded(cli))
