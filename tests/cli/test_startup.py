"""Fast start: `planner --help` imports no command module; the lazy command table is true."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click

from planner.cli import COMMANDS, cli, load_command

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "pyomo", "openpyxl", "numpy", "pydantic", "highspy")


def _modules_after(*args: str) -> set[str]:
    code = (
        "import sys\nfrom planner.cli import cli\n"
        f"try:\n    cli.main(args={list(args)!r}, prog_name='planner')\n"
        "except SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    return set(done.stdout.split()[-1000:]) if done.stdout else set()


def test_help_imports_no_heavy_library_and_no_command_module() -> None:
    loaded = _modules_after("--help")
    assert "planner.cli" in loaded
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY)
    assert heavy == []
    commands = sorted(m for m in loaded if m.startswith("planner.cli.") and m.endswith("_cmds"))
    assert commands == []


def test_the_table_summary_is_each_commands_own_first_sentence() -> None:
    for name, entry in COMMANDS.items():
        command = load_command(name)
        assert command.name == name
        assert command.get_short_help_str(limit=1000) == entry.summary, name


def test_help_lists_every_command_and_an_unknown_one_is_refused() -> None:
    context = click.Context(cli)
    assert cli.list_commands(context) == sorted(COMMANDS)
    assert cli.get_command(context, "no-such-command") is None
    help_text = cli.get_help(context)
    for name in COMMANDS:
        assert f"\n  {name} " in help_text


def test_a_long_summary_is_cut_at_a_word_with_dots() -> None:
    from planner.cli import _shortened

    assert _shortened("Optimise the fleet: what to buy, or rent", 25) == "Optimise the fleet..."
    assert _shortened("what to buy, or rent", 15) == "what to buy..."
    assert _shortened("short enough", 12) == "short enough"


def test_validate_imports_no_table_solver_or_workbook_library() -> None:
    # `planner validate` needs pydantic and YAML only: pandas, numpy, Pyomo, openpyxl
    # and HiGHS would each add to its start (bench/startup.py measures it)
    loaded = _modules_after("validate", "scenarios/baseline.yaml")
    assert "planner.scenario.loader" in loaded and "pydantic" in loaded
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY and m.split(".")[0] != "pydantic")
    assert heavy == []
