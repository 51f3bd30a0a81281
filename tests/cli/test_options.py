"""The shared option bundles: every command spells, types and checks an option the same way."""

from __future__ import annotations

from typing import Any

import click
import pytest

from planner.cli import cli, load_command
from planner.cli.options import (
    EACH_RUN,
    EACH_SCENARIO,
    ONE_PLAN,
    SolveScope,
    bundle,
    solver_options,
)

SOLVING = ["run", "compare", "sweep", "montecarlo", "vendors", "alternatives"]
SOLVER = ["--relax", "--mip-gap", "--time-limit", "--solver", "--threads", "--strategy"]
SHARED = [
    *SOLVER[:5],
    "--format",
    "--workers",
    "--scheduler",
    "--dask-local",
    "--results",
    "--resume",
]
SHARED += ["--fresh", "--no-progress", "--table", "--all-columns"]
SHARED += ["--calibration"]


def _commands(group: click.Group = cli) -> dict[str, click.Command]:
    out: dict[str, click.Command] = {}
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            out.update({f"{name} {k}": v for k, v in _commands(command).items()})
        else:
            out[name] = command
    return out


def _option(command: click.Command, flag: str) -> click.Option | None:
    return next((p for p in command.params if isinstance(p, click.Option) and flag in p.opts), None)


def _declaration(option: click.Option) -> dict[str, Any]:
    """What must not differ between commands: name, type, default, flag-ness, metavar."""
    info = option.to_info_dict()
    return {k: info[k] for k in ("name", "opts", "type", "default", "is_flag", "multiple")} | {
        "metavar": option.metavar
    }


@pytest.mark.parametrize("flag", SHARED)
def test_a_shared_option_is_declared_alike_in_every_command(flag: str) -> None:
    found = {n: o for n, c in _commands().items() if (o := _option(c, flag)) is not None}
    assert len(found) >= 2, f"{flag} is offered by {sorted(found)} only"
    declarations = {name: _declaration(option) for name, option in found.items()}
    first = next(iter(declarations.values()))
    assert all(d == first for d in declarations.values()), declarations


@pytest.mark.parametrize(
    ("command", "scope"),
    [
        ("run", ONE_PLAN),
        ("compare", EACH_SCENARIO),
        *((name, EACH_RUN) for name in ("sweep", "montecarlo", "vendors", "alternatives")),
    ],
)
def test_solver_help_says_how_many_solves(command: str, scope: SolveScope) -> None:
    helps = {
        flag: getattr(_option(load_command(command), flag), "help", None) for flag in SOLVER[:3]
    }
    assert helps == {
        "--relax": scope.relax,
        "--mip-gap": scope.mip_gap,
        "--time-limit": scope.time_limit,
    }


def test_solver_options_are_added_in_help_order() -> None:
    @click.command()
    @solver_options(EACH_RUN, strategy=True)
    def command(**_: Any) -> None:
        """Test command."""

    assert [p.name for p in command.params] == [
        "relax",
        "mip_gap",
        "time_limit",
        "solver",
        "threads",
        "strategy",
    ]


def test_solver_options_leave_out_what_the_command_cannot_pass() -> None:
    offered = {
        name: [flag for flag in SOLVER if _option(load_command(name), flag)] for name in SOLVING
    }
    assert offered == {
        "run": SOLVER,
        "compare": ["--relax", "--mip-gap", "--time-limit", "--threads"],
        **{
            name: ["--relax", "--mip-gap", "--time-limit", "--solver"]
            for name in ("sweep", "montecarlo", "vendors", "alternatives")
        },
    }


def test_bundle_applies_its_decorators_in_the_order_given() -> None:
    both = bundle(click.option("--first"), click.option("--second"))

    @click.command()
    @both
    def command(first: str | None, second: str | None) -> None:
        """Test command."""

    assert [p.name for p in command.params] == ["first", "second"]


def _arguments(command: str) -> list[str]:
    return ["compare", "a.yaml", "b.yaml"] if command == "compare" else [command, "a.yaml"]


@pytest.mark.parametrize("command", SOLVING)
@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--mip-gap", "2", "Invalid value for '--mip-gap': 2.0 is not in the range 0<=x<=1."),
        ("--time-limit", "0", "Invalid value for '--time-limit': 0.0 is not in the range x>0."),
    ],
)
def test_solver_limits_are_checked_before_anything_runs(
    command: str, flag: str, value: str, message: str, run_cli
) -> None:
    # The scenario files do not exist: click rejects the option before any file is read.
    result = run_cli(*_arguments(command), flag, value)
    assert result.code == 2 and result.out == ""
    assert result.err.endswith(f"Error: {message}\n")


@pytest.mark.parametrize("command", ["run", "compare"])
def test_threads_are_at_least_one(command: str, run_cli) -> None:
    result = run_cli(*_arguments(command), "--threads", "0")
    assert result.code == 2
    assert result.err.endswith(
        "Error: Invalid value for '--threads': 0 is not in the range 1<=x<=256.\n"
    )
