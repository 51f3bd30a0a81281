"""TTFT columns in the throughput table and sheet, only when a workload sets slo_ttft_s."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.export.excel import build_workbook
from planner.pipeline import plan
from planner.scenario import load_scenario

REPO = Path(__file__).resolve().parents[2]
WITH_TTFT = REPO / "tests" / "scenarios" / "curves.yaml"  # workload "ttft": slo_ttft_s 0.05
WITHOUT = REPO / "tests" / "scenarios" / "one_hardware_one_year.yaml"
TTFT_HEADERS = ["time to first token, colocated (s)", "time to first token, prefill pool (s)"]


@pytest.mark.parametrize(("path", "shown"), [(WITH_TTFT, True), (WITHOUT, False)])
def test_throughput_sheet_ttft_columns(path: Path, shown: bool) -> None:
    scenario = load_scenario(path)
    assert scenario.sets_ttft is shown
    ws = build_workbook(plan(scenario), scenario).workbook["Throughput inference"]
    headers = [c.value for c in ws[1]]
    assert all((h in headers) is shown for h in TTFT_HEADERS)
    if shown:  # placed after binding, before the unit costs
        at = headers.index(TTFT_HEADERS[0])
        assert headers[at - 1] == "binding" and headers[at + 2].startswith("unit cost")
        ttft = [ws.cell(row=r, column=at + 1).value for r in range(2, ws.max_row + 1)]
        ttft = [t for t in ttft if isinstance(t, float)]
        assert len(ttft) == 4 and all(0 < t <= 0.5 for t in ttft)


def test_throughput_terminal_table_ttft_columns(run_cli) -> None:
    code, out, err = run_cli("throughput", WITH_TTFT, "--only", "inference")
    assert code == 0, err
    assert "ttft s" in out and "prefill ttft s" in out
    code, out, err = run_cli("throughput", WITHOUT, "--only", "inference")
    assert code == 0, err
    assert "ttft" not in out


def test_throughput_json_matches_the_sheet_ttft(run_cli) -> None:
    code, out, err = run_cli("throughput", WITH_TTFT, "--only", "inference", "--format", "json")
    assert code == 0, err
    rows = {(r["workload"], r["hardware"]): r for r in json.loads(out)["inference"]}
    scenario = load_scenario(WITH_TTFT)
    ws = build_workbook(plan(scenario), scenario).workbook["Throughput inference"]
    headers = [c.value for c in ws[1]]
    col = headers.index(TTFT_HEADERS[0]) + 1
    for r in range(2, 6):
        key = (ws.cell(row=r, column=1).value, ws.cell(row=r, column=2).value)
        assert ws.cell(row=r, column=col).value == rows[key]["ttft_s"]
    assert rows[("ttft", "h100-hgx")]["ttft_s"] <= 0.05  # the target holds
