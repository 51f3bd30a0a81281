"""`planner run --resolution-check P`: the worst shortfall per period and a verdict."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GROWING = REPO / "tests" / "scenarios" / "growing_within_year.yaml"  # hand numbers inside


def test_the_table_names_the_quarter_that_falls_short(run_cli, tmp_path: Path) -> None:
    result = run_cli("run", GROWING, "--out", tmp_path / "p.xlsx", "--resolution-check", "4")
    assert result.code == 0, result.err
    assert "Resolution check: fleet against each quarter's peak" in result.out
    text = " ".join(result.out.split())
    assert "falls short of the peak in 1 quarter(s): 2026Q4 (chat 1.9% short)" in text
    assert "(horizon.demand_within_period: start); peak_average sizes the fleet" in text
    summary = result.out.split("Resolution check")[1]
    assert "0.0195" in summary  # 2026's worst shortfall share, 1 − 4τ/181,250


def test_peak_average_meets_every_quarter(run_cli, tmp_path: Path) -> None:
    scenario = tmp_path / "peak.yaml"
    text = GROWING.read_text(encoding="utf-8")
    scenario.write_text(text.replace("within_period: start", "within_period: peak_average"))
    result = run_cli("run", scenario, "--out", tmp_path / "p.xlsx", "--resolution-check", "4")
    assert result.code == 0, result.err
    assert "resolution check: meets every quarter's peak" in result.out


def test_json_carries_the_check_and_stays_one_document(run_cli, tmp_path: Path) -> None:
    result = run_cli(
        "run", GROWING, "--out", tmp_path / "p.xlsx", "--resolution-check", "2", "--format", "json"
    )
    assert result.code == 0, result.err
    part = json.loads(result.out)["resolution_check"]
    assert part["periods_per_year"] == 2
    assert [r["sub_period"] for r in part["rows"]] == ["2026H1", "2026H2", "2027H1", "2027H2"]
    assert [r["meets"] for r in part["rows"]] == [True, False, True, True]
    assert part["verdict"].startswith("falls short of the peak in 1 half-year(s): 2026H2")
    assert "resolution check: falls short" in " ".join(result.err.split())


def test_a_cut_that_is_not_even_exits_2_before_solving(run_cli, tmp_path: Path) -> None:
    result = run_cli("run", GROWING, "--out", tmp_path / "p.xlsx", "--resolution-check", "3")
    assert result.code == 2
    assert "--resolution-check" in result.err
    assert "one of 1, 2, 4, 12" in result.err
    assert "solved in" not in result.err
    assert not (tmp_path / "p.xlsx").exists()


def test_run_help_offers_the_check(run_cli) -> None:
    result = run_cli("run", "--help")
    assert "--resolution-check" in result.out
