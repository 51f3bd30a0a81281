"""Every CLI command has help text with an example and is documented in the README."""

from __future__ import annotations

from pathlib import Path

import click

from planner.cli import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
        full = f"{prefix}{name}"
        if isinstance(command, click.Group):
            out += _commands(command, f"{full} ")
        else:
            out.append((full, command))
    return out


def test_every_command_is_in_the_readme_with_help() -> None:
    commands = _commands(cli)
    assert len(commands) >= 10
    for name, command in commands:
        assert command.help and "Example" in command.help, f"{name}: help needs an example"
        assert f"planner {name}" in README, f"README does not mention `planner {name}`"


def test_the_readme_says_what_each_usd_per_mtok_means_and_what_is_modelled() -> None:
    assert "## What $/Mtok means here" in README
    assert "**Full-load** (`planner throughput`" in README
    assert "**Realised** (`planner run`" in README
    assert "## What is and is not modelled" in README
    assert "an over-constrained scenario\nstill returns a plan" in README


def test_the_tables_option_lists_every_plan_table() -> None:
    from planner.results import TABLE_UNITS

    paragraph = README[README.index("`--tables DIR` writes") :].split("\n\n")[0]
    for name in TABLE_UNITS:
        assert f"`{name}`" in paragraph, name
