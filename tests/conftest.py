"""Shared fixtures: the shipped scenarios and a way to run the CLI in-process."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from planner.cli import cli
from planner.cli.common import run_guarded

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "scenarios"


@dataclass(frozen=True)
class CliResult:
    """Exit code and captured streams of one in-process ``planner`` run."""

    code: int
    out: str
    err: str


RunCli = Callable[..., CliResult]


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> RunCli:
    """Run ``planner ARGS...`` the way the console script does (``run_guarded``)."""

    def run(*args: str | Path) -> CliResult:
        capsys.readouterr()  # drop anything printed before this run
        code = run_guarded(cli, [str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(code, ANSI.sub("", captured.out), ANSI.sub("", captured.err))

    return run


@pytest.fixture(scope="session")
def baseline_text() -> str:
    """The text of scenarios/baseline.yaml, to edit into bad variants."""
    return (SCENARIOS / "baseline.yaml").read_text(encoding="utf-8")
