"""A value that passes validation runs (issue 29, item 7): every bounded input at its
validated extremes goes through ``planner run`` — solve, terminal and workbook — to exit
0 (or exit 2 with a message), never an internal error; just past its bound it is
refused at validation with the field path."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from planner.cli import cli
from planner.errors import PlannerError

TINY = Path(__file__).resolve().parents[1] / "scenarios" / "one_hardware_one_year.yaml"

# field (as it appears in the tiny scenario), its smallest and largest valid values, and
# a value just outside; the last column is the field path validation names.
BOUNDED = [
    ("availability: 1.0", "availability: {}", 1e-9, 1.0, 0.0, "finance.availability"),
    ("tokens_per_day: 1.0e10", "tokens_per_day: {}", 1.0, 1e18, 1e-308, "tokens_per_day"),
    (
        "electricity_usd_per_kwh: 0.07",
        "electricity_usd_per_kwh: {}",
        1e-9,
        100.0,
        1e30,
        "finance.electricity_usd_per_kwh",
    ),
    (
        "peak_to_average: 1.5",
        "peak_to_average: 1.5\n    slo_ttft_s: {}",
        1e-9,
        86_400.0,
        1e15,
        "slo_ttft_s",
    ),
    (
        "peak_to_average: 1.5",
        "peak_to_average: 1.5\n    price_usd_per_mtok: {}",
        0.0,
        1e6,
        1e308,
        "price_usd_per_mtok",
    ),
]


def _run(tmp_path: Path, old: str, new: str, value: float) -> tuple[int, str]:
    text = TINY.read_text()
    assert old in text
    path = tmp_path / "s.yaml"
    path.write_text(text.replace(old, new.format(repr(float(value))), 1))
    result = CliRunner().invoke(cli, ["run", str(path), "--out", str(tmp_path / "s.xlsx")])
    error = result.exception
    if isinstance(error, PlannerError):  # what planner's entry point prints, with its code
        return error.exit_code, str(error)
    if error is not None and not isinstance(error, SystemExit):
        raise error  # an internal error: the test fails with its traceback
    return result.exit_code, result.output


@pytest.mark.parametrize(("old", "new", "low", "high", "outside", "path"), BOUNDED)
def test_validated_extremes_run_and_values_outside_are_refused(
    tmp_path: Path, old: str, new: str, low: float, high: float, outside: float, path: str
) -> None:
    for value in (low, high):
        code, output = _run(tmp_path, old, new, value)
        assert code == 0, (value, output)
        assert (tmp_path / "s.xlsx").exists()
        (tmp_path / "s.xlsx").unlink()
    code, output = _run(tmp_path, old, new, outside)
    assert code == 2 and path in output, output


def test_a_plan_whose_cost_stage_found_nothing_is_printed_not_lost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """When the cost stage ends without a plan the service stage's is kept, its
    objective unknown (baseline at 1e18 tokens a day did this after a 60 s solve); the
    terminal then says the cost was not minimised and gives the plan's NPV cost, where
    it used to end in an internal error formatting None."""
    from dataclasses import replace

    from planner.cli.run_cmds import _print_table
    from planner.pipeline import plan
    from planner.scenario import load_scenario

    found = plan(load_scenario(TINY))
    kept = replace(found, status="feasible", headline={**found.headline, "objective_usd": None})
    _print_table(kept)
    shown = capsys.readouterr().out
    npv = found.headline["npv_cost_usd"]
    assert f"not minimised (the service stage's plan, NPV cost ${npv:,.0f})" in shown
