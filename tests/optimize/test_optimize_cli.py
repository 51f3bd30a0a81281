"""``planner run`` in-process, the way the console script runs it (``run_guarded``)."""

from __future__ import annotations

import json
from pathlib import Path

from openpyxl import load_workbook

HAND = Path(__file__).resolve().parents[1] / "scenarios"


def test_run_json_prints_the_plan_and_writes_the_workbook(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "exports" / "plan.xlsx"
    code, stdout, stderr = run_cli(
        "run", HAND / "power_switch.yaml", "--out", out, "--format", "json"
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


def test_run_table_format(run_cli, tmp_path: Path) -> None:
    code, stdout, stderr = run_cli(
        "run",
        HAND / "power_switch.yaml",
        "--out",
        tmp_path / "p.xlsx",
        "--marginal",
        "sites[dc].power_cap_mw.2027",
        "--mip-gap",
        "0",
        "--threads",
        "1",
        "--wide",  # every column: the shadow prices' method column is past 120
    )
    assert code == 0, stderr
    for text in ("optimal", "Fleet by year", "Cost by year", "Binding constraints", "Diagnosis"):
        assert text in stdout
    assert "sites[dc].power_cap_mw.2027" in stdout  # not eaten as rich markup
    assert "MILP finite difference" in stdout
    # Every headline figure states its convention next to it.
    flat = " ".join(stdout.split())
    assert (
        "(perfect foresight; horizon end: straight_line; cash costs less residual, "
        "discounted at wacc 0.1);"
    ) in flat
    # all demand is met: no line values a shortfall (the notional penalty is printed,
    # labelled, only for unmet work with no price; tests/test_results_checker.py)
    assert "notional unmet-demand penalty" not in flat and "lost revenue" not in flat
    assert "(straight-line book value at the horizon end, undiscounted)" in flat
    assert "priced under each horizon-end convention (not re-optimised)" in flat


def test_run_reports_unmet_demand_loudly_and_exits_0(run_cli, tmp_path: Path) -> None:
    code, stdout, stderr = run_cli(
        "run", HAND / "budget_shortfall.yaml", "--out", tmp_path / "b.xlsx", "--format", "csv"
    )
    assert code == 0
    assert "UNMET DEMAND" in stderr and "capex budget" in stderr
    assert stdout.startswith("item,value")


def test_run_exit_codes(run_cli, tmp_path: Path) -> None:
    missing = run_cli("run", tmp_path / "nope.yaml", "--out", tmp_path / "x.xlsx")
    assert missing.code == 2
    bad_solver = run_cli(
        "run",
        HAND / "power_switch.yaml",
        "--solver",
        "no-such-solver",
        "--out",
        tmp_path / "x.xlsx",
    )
    assert bad_solver.code == 2 and "no-such-solver" in bad_solver.err
    missing_solver = run_cli(
        "run", HAND / "power_switch.yaml", "--solver", "xpress", "--out", tmp_path / "x.xlsx"
    )
    assert missing_solver.code == 3 and "xpress" in missing_solver.err
    bad_path = run_cli(
        "run",
        HAND / "power_switch.yaml",
        "--marginal",
        "nothing.here",
        "--out",
        tmp_path / "x.xlsx",
    )
    assert bad_path.code == 2
    assert not (tmp_path / "x.xlsx").exists()


def test_run_help_has_an_example(run_cli) -> None:
    code, stdout, _ = run_cli("run", "--help")
    assert code == 0 and "planner run scenarios/baseline.yaml" in stdout
