"""The ``planner`` command line: a thin click group; each command calls the library.

Conventions every command follows: ``--help`` with an example; ``--format
table|csv|json`` on every command that prints results (json prints exactly one JSON
document on stdout; messages go to stderr); exit codes 0 ok, 2 bad input, 3 solver or
runtime failure, 4 a plan printed whose outputs were not all written (``run``,
:mod:`planner.cli.run_exports`).

Commands load lazily: :data:`COMMANDS` names the module and function of each, and only
the command that runs is imported, so ``planner --help`` and ``planner validate`` do
not pay for pandas, Pyomo or openpyxl. The one-line help ``planner --help`` lists is
kept in :data:`COMMANDS` too (a test holds it equal to each command's docstring).
"""

from __future__ import annotations

import importlib
import sys
from typing import NamedTuple

import click

from planner import __version__
from planner.cli.common import run_guarded


class Entry(NamedTuple):
    """Where a command lives (module in planner.cli, function) and its one-line help."""

    module: str
    function: str
    summary: str


COMMANDS: dict[str, Entry] = {
    "validate": Entry(
        "scenario_cmds",
        "validate",
        "Check scenario files and print a short summary of each valid one.",
    ),
    "hardware": Entry(
        "catalog_cmds", "hardware", "The hardware catalog (purchasable systems with sources)."
    ),
    "models": Entry("catalog_cmds", "models", "The model catalog (architectures with sources)."),
    "crossover": Entry(
        "economics_cmds",
        "crossover_cmd",
        "Days of serving until inference compute equals the model's training compute.",
    ),
    "price": Entry(
        "economics_cmds",
        "price_cmd",
        "Blended $/Mtok of an API price list at an input mix and cache-hit rate.",
    ),
    "throughput": Entry(
        "perf_cmds",
        "throughput",
        "Throughput the performance model gives each hardware type, with unit costs.",
    ),
    "calibrate": Entry(
        "perf_cmds",
        "calibrate",
        "Fit the inference model's efficiency factors to measured benchmark rows.",
    ),
    "perf-check": Entry(
        "perf_cmds", "perf_check", "Compare the performance model with measured benchmark rows."
    ),
    "fidelity": Entry(
        "fidelity_cmds",
        "fidelity",
        "How far the performance model is from measured training and inference rows.",
    ),
    "curve": Entry(
        "curve_cmds",
        "curve",
        "Throughput–interactivity curves: tokens/s per accelerator, layout and $/Mtok.",
    ),
    "run": Entry(
        "run_cmds",
        "run",
        "Optimise the fleet of SCENARIO_FILE: what to buy or rent, period by period, at what cost.",
    ),
    "compare": Entry(
        "compare_cmds", "compare", "Solve two or more scenarios and compare them side by side."
    ),
    "sweep": Entry(
        "analysis_cmds", "sweep", "Sensitivity of SCENARIO_FILE's optimum to its inputs."
    ),
    "montecarlo": Entry(
        "analysis_cmds",
        "montecarlo",
        "Distributions of the optimum when SCENARIO_FILE's inputs are uncertain.",
    ),
    "stochastic": Entry(
        "stochastic_cmds",
        "stochastic",
        "Plan the first stage of SCENARIO_FILE against every future of its uncertainty: tree.",
    ),
    "vendors": Entry(
        "analysis_cmds", "vendors", "What each vendor alone costs, next to all vendors together."
    ),
    "alternatives": Entry(
        "analysis_cmds",
        "alternatives",
        "Near-optimal fleets that differ as much as possible in hardware mix.",
    ),
    "software": Entry(
        "catalog_cmds",
        "software",
        "List the serving software stacks a scenario's `software:` key can pick.",
    ),
    "tco": Entry(
        "tco_cmds",
        "tco",
        "$/accelerator-hour build-up of HARDWARE: capital, energy, O&M, total by tier.",
    ),
    "template": Entry(
        "template_cmds",
        "template",
        "Write an assumptions workbook: one sheet per scenario section.",
    ),
}
"""Every ``planner`` command: name → where it lives and what ``--help`` says of it."""


def load_command(name: str) -> click.Command:
    """Import the module of command ``name`` and return the command."""
    entry = COMMANDS[name]
    command = getattr(importlib.import_module(f"planner.cli.{entry.module}"), entry.function)
    assert isinstance(command, click.Command), f"{entry} is not a click command"
    return command


def _shortened(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with "..."."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 3, 0) + 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "..."


class LazyGroup(click.Group):
    """A group whose commands are imported when they run (or their help is shown)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from :data:`COMMANDS`, without importing any command."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = [(n, _shortened(COMMANDS[n].summary, limit)) for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="planner")
def cli() -> None:
    """Fleet-scale TCO and scenario planner for AI compute.

    \b
    Example:
      planner validate scenarios/baseline.yaml
    """


def main() -> None:
    """Console-script entry point: run the CLI, turning library errors into messages."""
    sys.exit(run_guarded(cli))
