"""Shared fixtures: the shipped scenarios and a way to run the CLI in-process."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

from planner.cli import cli
from planner.cli.common import run_guarded

# Property tests: no per-example deadline and no "too slow" health check (a loaded CI
# machine is slower, not wrong), and the same examples on every run, so CI never fails on
# an example no one has seen locally.
settings.register_profile(
    "planner", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("planner")

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "scenarios"
OWN_MODULE = ("frontier_lab",)
"""Shipped scenarios whose solve (about ten seconds) has a test module of its own
(tests/test_frontier_lab.py) rather than a place in the every-scenario sweeps."""


class CliResult(NamedTuple):
    """Exit code and captured streams of one in-process ``planner`` run."""

    code: int
    out: str
    err: str


RunCli = Callable[..., CliResult]


def run_planner(*args: str | Path) -> CliResult:
    """Run ``planner ARGS...`` the way the console script does (``run_guarded``).

    Library errors become a message on stderr and an exit code, never an exception;
    both streams are captured for this run only, without ANSI colour codes.
    """
    with CliRunner().isolation() as (out, err, _):
        code = run_guarded(cli, [str(a) for a in args])
    return CliResult(
        code, ANSI.sub("", out.getvalue().decode()), ANSI.sub("", err.getvalue().decode())
    )


@pytest.fixture
def run_cli() -> RunCli:
    """:func:`run_planner` on the whole ``planner`` command line."""
    return run_planner


@pytest.fixture(scope="session")
def baseline_text() -> str:
    """The text of scenarios/baseline.yaml, to edit into bad variants."""
    return (SCENARIOS / "baseline.yaml").read_text(encoding="utf-8")
