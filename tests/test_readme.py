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
