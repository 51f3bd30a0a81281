"""``planner run`` in-process, the way the console script runs it (``run_guarded``)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

from planner.cli import run_cmds
from planner.cli.common import run_guarded

HAND = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.fixture
def cli() -> click.Group:
    @click.group()
    def group() -> None:
        """Test group."""

    run_cmds.register(group)
    return group


def guarded(cli: click.Group, args: list[str]) -> tuple[int, str, str]:
    with CliRunner().isolation() as (out, err, _):
        code = run_guarded(cli, args)
    return code, out.getvalue().decode(), err.getvalue().decode()


def test_run_json_prints_the_plan_and_writes_the_workbook(cli: click.Group, tmp_path: Path) -> None:
    out = tmp_path / "exports" / "plan.xlsx"
    code, stdout, stderr = guarded(
        cli, ["run", str(HAND / "power_switch.yaml"), "--out", str(out), "--format", "json"]
    )
    assert code == 0, stderr
    document = json.loads(stdout)
    assert document["status"] == "optimal"
    assert document["headline"]["objective_usd"] > 0
    assert {"purchases", "fleet", "costs", "shadow_prices", "power"} <= set(document["tables"])
    assert any("Power binds" in s for s in document["diagnosis"])
    assert "wrote" in stderr and "variables" in stderr
    sheets = load_workbook(out).sheetnames
    assert sheets[0] == "Summary" and "Purchases" in sheets and "Shadow prices" in sheets
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]  # no temp file left


def test_run_table_format(cli: click.Group, tmp_path: Path) -> None:
    code, stdout, stderr = guarded(
        cli,
        [
            "run",
            str(HAND / "power_switch.yaml"),
            "--out",
            str(tmp_path / "p.xlsx"),
            "--marginal",
            "sites[dc].power_cap_mw.2027",
            "--mip-gap",
            "0",
            "--threads",
            "1",
        ],
    )
    assert code == 0, stderr
    for text in ("optimal", "Fleet by year", "Cost by year", "Binding constraints", "Diagnosis"):
        assert text in stdout
    assert "sites[dc].power_cap_mw.2027" in stdout  # not eaten as rich markup
    assert "MILP finite difference" in stdout


def test_run_reports_unmet_demand_loudly_and_exits_0(cli: click.Group, tmp_path: Path) -> None:
    code, stdout, stderr = guarded(
        cli,
        [
            "run",
            str(HAND / "budget_shortfall.yaml"),
            "--out",
            str(tmp_path / "b.xlsx"),
            "--format",
            "csv",
        ],
    )
    assert code == 0
    assert "UNMET DEMAND" in stderr and "capex budget" in stderr
    assert stdout.startswith("item,value")


def test_run_exit_codes(cli: click.Group, tmp_path: Path) -> None:
    missing = guarded(cli, ["run", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "x.xlsx")])
    assert missing[0] == 2
    bad_solver = guarded(
        cli,
        [
            "run",
            str(HAND / "power_switch.yaml"),
            "--solver",
            "no-such-solver",
            "--out",
            str(tmp_path / "x.xlsx"),
        ],
    )
    assert bad_solver[0] == 3 and "no-such-solver" in bad_solver[2]
    bad_path = guarded(
        cli,
        [
            "run",
            str(HAND / "power_switch.yaml"),
            "--marginal",
            "nothing.here",
            "--out",
            str(tmp_path / "x.xlsx"),
        ],
    )
    assert bad_path[0] == 2
    assert not (tmp_path / "x.xlsx").exists()


def test_run_help_has_an_example(cli: click.Group) -> None:
    code, stdout, _ = guarded(cli, ["run", "--help"])
    assert code == 0 and "planner run scenarios/baseline.yaml" in stdout
