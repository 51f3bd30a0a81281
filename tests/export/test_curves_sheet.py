"""The Curves sheet: the same points as `planner curve`, the SLO row as Throughput inference."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import range_boundaries
from openpyxl.worksheet.worksheet import Worksheet

from planner import api
from planner.export.excel import PlanWorkbook, build_workbook
from planner.export.sheets.book import absolute
from planner.perf.curves import scenario_curves
from planner.pipeline import plan
from planner.scenario import load_scenario
from planner.units import MTOK, SECONDS_PER_HOUR

REPO = Path(__file__).resolve().parents[2]
CURVES = REPO / "tests" / "scenarios" / "curves.yaml"


@pytest.fixture(scope="module")
def built() -> PlanWorkbook:
    scenario = load_scenario(CURVES)
    return build_workbook(plan(scenario), scenario, curves=scenario_curves(scenario))


def rows_of(book: PlanWorkbook, ws: Worksheet, table: str) -> list[dict]:
    """The data rows of an Excel table as {header: value}; a formula cell gives the
    number the planner computed for it."""
    min_col, min_row, max_col, max_row = range_boundaries(ws.tables[table].ref)
    headers = [ws.cell(row=min_row, column=c).value for c in range(min_col, max_col + 1)]
    rows = []
    for r in range(min_row + 1, max_row + 1):
        row = {}
        for header, c in zip(headers, range(min_col, max_col + 1), strict=True):
            value = ws.cell(row=r, column=c).value
            if isinstance(value, str) and value.startswith("="):
                value = book.expected[absolute(ws.title, r, c)]
            row[header] = value
        rows.append(row)
    return rows


def blocks(book: PlanWorkbook) -> dict[str, list[dict]]:
    ws = book.workbook["Curves"]
    found = {}
    for name in ws.tables:
        rows = rows_of(book, ws, name)
        found[rows[0]["workload"]] = rows
    return found


def test_points_equal_planner_curve(built: PlanWorkbook, run_cli) -> None:
    # "match" is the case planner curve builds for these options (tests/scenarios/curves.yaml)
    sheet = blocks(built)["match"]
    grid = sorted({r["required speed (tokens/s per user)"] for r in sheet})
    assert 35 in grid and grid[0] == 10 and grid[-1] == 200 and len(grid) == 21
    code, out, err = run_cli(
        "curve",
        "--model",
        "llama-3.1-70b",
        "--hardware",
        "h100-hgx,b200-hgx",
        "--precision",
        "fp8",
        "--input-tokens",
        "8192",
        "--output-tokens",
        "1024",
        "--interactivity",
        ",".join(f"{v:g}" for v in grid),
        "--format",
        "json",
    )
    assert code == 0, err
    printed = {
        (p["hardware"], p["interactivity_tokens_per_s_per_user"]): p
        for p in json.loads(out)["points"]
    }
    assert len(printed) == len(sheet) == 2 * 21
    unservable = 0
    for row in sheet:
        p = printed[(row["hardware"], row["required speed (tokens/s per user)"])]
        assert row["precision"] == p["precision"] and row["servable"] == p["servable"]
        assert (row["parallel layout"] or "") == p["layout"]
        assert row["replica (accelerators)"] == p["replica_accelerators"]
        assert row["batch (sequences per replica)"] == p["batch"]
        assert row["decode speed (tokens/s per user)"] == p["tokens_per_s_per_user"]
        served = row["served output (tokens/s per accelerator)"]
        assert served == p["output_tokens_per_s_per_accelerator"]
        assert row["binding"] == p["binding"] and (row["reason not servable"] or "") == p["reason"]
        unservable += not row["servable"]
    assert unservable > 0  # the h100 runs out of speed above ~134 tok/s/user


def test_slo_point_row_is_the_throughput_row(built: PlanWorkbook) -> None:
    ws = built.workbook["Throughput inference"]
    throughput = {
        (r["workload"], r["hardware"]): r for r in rows_of(built, ws, "Throughput_inference")
    }
    accelerators = {"h100-hgx": 8, "b200-hgx": 8}
    seen = 0
    for workload, rows in blocks(built).items():
        for row in rows:
            if row["SLO point"] != "yes":
                continue
            seen += 1
            t = throughput[(workload, row["hardware"])]
            for key in (
                "precision",
                "servable",
                "parallel layout",
                "replica (accelerators)",
                "batch (sequences per replica)",
                "decode speed (tokens/s per user)",
                "binding",
                "unit cost (USD per accelerator-hour)",
                "full-load cost (USD per Mtok output)",
            ):
                assert row[key] == t[key], (workload, row["hardware"], key)
            per_unit = row["served output (tokens/s per accelerator)"] * accelerators[t["hardware"]]
            assert per_unit == pytest.approx(t["served output (tokens/s per unit)"], rel=1e-12)
    assert seen == len(throughput) == 4  # one SLO point per (workload, hardware)


def test_usd_per_mtok_is_the_hourly_cost_over_the_hours_tokens(built: PlanWorkbook) -> None:
    # $/Mtok = $/acc-hour / (tok/s/acc x 3,600 s) x 1e6: e.g. $1.48/h at 400 tok/s
    # serves 1.44 Mtok an hour, $1.03 per Mtok
    for rows in blocks(built).values():
        for row in rows:
            hourly = row["unit cost (USD per accelerator-hour)"]
            served = row["served output (tokens/s per accelerator)"]
            usd = row["full-load cost (USD per Mtok output)"]
            if row["servable"]:
                assert usd == pytest.approx(hourly / (served * SECONDS_PER_HOUR) * MTOK)
            else:
                assert usd is None and served == 0
                assert row["reason not servable"].startswith("SLO of ")


def test_ttft_column_only_where_the_workload_sets_a_target(built: PlanWorkbook) -> None:
    found = blocks(built)
    assert "time to first token (s)" not in found["match"][0]
    ttft = [r["time to first token (s)"] for r in found["ttft"]]
    assert all(0 < t <= 0.05 for t in ttft)  # slo_ttft_s: 0.05 holds at every point


def test_block_header_states_the_case_and_a_chart_per_workload(built: PlanWorkbook) -> None:
    ws = built.workbook["Curves"]
    assert ws["A1"].value.startswith("Throughput vs interactivity") and ws.freeze_panes == "A2"
    text = [ws.cell(row=r, column=1).value or "" for r in range(1, ws.max_row + 1)]
    assert any("Unit costs at 2026 prices, as Throughput inference" in t for t in text)
    header = next(t for t in text if t.startswith("match: "))
    assert "8,192 input + 1,024 output tokens per request" in header
    assert "sized for 9,216-token sequences" in header and "SLO 35 tok/s/user" in header
    assert "TTFT target 0.05 s" in next(t for t in text if t.startswith("ttft: "))
    charts = ws._charts
    assert len(charts) == 2
    assert [s.tx.v for s in charts[0].series] == ["h100-hgx", "b200-hgx"]


def test_api_workbook_has_the_curves_sheet(tmp_path: Path) -> None:
    scenario = load_scenario(CURVES)
    result = plan(scenario)
    path = api.write_workbook(result, scenario, tmp_path / "curves.xlsx")
    book = openpyxl.load_workbook(path)
    names = book.sheetnames
    assert names.index("Curves") == names.index("Throughput training") + 1
    assert "Curves" not in build_workbook(result, scenario).workbook.sheetnames


def test_training_only_scenario_has_an_empty_curves_sheet() -> None:
    scenario = load_scenario(REPO / "tests" / "scenarios" / "training_one_type.yaml")
    curves = scenario_curves(scenario)
    assert curves.empty
    ws = build_workbook(plan(scenario), scenario, curves=curves).workbook["Curves"]
    assert ws["A2"].value == "No serving workloads."
    assert not ws.tables and not ws._charts


NON_NATIVE = """\
name: non-native
horizon: {start: 2026, years: 1}
finance: {network_and_storage: false, availability: 1.0}
sites: [{name: dc, power_cap_mw: 20}]
hardware: [{id: h100-hgx}, {id: b200-hgx}]
models: [{id: llama-3.1-70b}]
inference:
  - {name: chat, model: llama-3.1-70b, precision: fp4, tokens_per_day: 1.0e9}
solver: {mip_gap: 0.01, time_limit_s: 30}
"""


def test_no_sheet_shows_a_precision_the_part_has_no_units_for(tmp_path: Path) -> None:
    """An fp4 workload: H100 (no fp4 units) serves it as w4a8, and no row of any sheet
    that names h100-hgx says fp4; B200 rows say fp4 (Throughput inference, Curves)."""
    path = tmp_path / "non-native.yaml"
    path.write_text(NON_NATIVE, encoding="utf-8")
    scenario = load_scenario(path)
    book = build_workbook(plan(scenario), scenario, curves=scenario_curves(scenario))
    shown: dict[str, set[str]] = {"h100-hgx": set(), "b200-hgx": set()}
    for ws in book.workbook.worksheets:
        for row in ws.iter_rows(values_only=True):
            cells = {str(v) for v in row if v is not None}
            for hardware, sheets in shown.items():
                if hardware in cells:
                    assert hardware != "h100-hgx" or "fp4" not in cells, (ws.title, row)
                    if {"fp4", "w4a8"} & cells:
                        sheets.add(ws.title)
    assert {"Throughput inference", "Curves"} <= shown["h100-hgx"]
    assert {"Throughput inference", "Curves"} <= shown["b200-hgx"]
