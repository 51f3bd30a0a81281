"""The plan workbook read back with openpyxl: sheets, tables, formats, formulas, charts.

Values of formula cells need a spreadsheet engine: see test_excel_recalc.py.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import openpyxl
import pytest
from openpyxl.chart import BarChart

from planner.errors import ExportError
from planner.export import cells
from planner.export.excel import SHEETS, build_workbook, write_workbook
from planner.export.sheets.costs import CASH_ROW, PENALTIES
from planner.export.sheets.summary import MEASURED
from planner.perf.curves import scenario_curves
from planner.pipeline import plan
from planner.results import COST_CATEGORIES
from planner.scenario import load_scenario

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "scenarios" / "baseline.yaml"
TRIGGERS = ("=", "+", "-", "@")


@pytest.fixture(scope="module")
def solved():
    scenario = load_scenario(BASELINE)
    return scenario, plan(scenario)


@pytest.fixture(scope="module")
def book(solved, tmp_path_factory: pytest.TempPathFactory) -> openpyxl.Workbook:
    scenario, result = solved
    path = tmp_path_factory.mktemp("wb") / "baseline.xlsx"
    write_workbook(result, scenario, path, source=BASELINE, curves=scenario_curves(scenario))
    return openpyxl.load_workbook(path)


def _find(ws, text: str) -> int:
    """Row whose column A holds ``text``."""
    for row in range(1, ws.max_row + 1):
        if ws.cell(row=row, column=1).value == text:
            return row
    raise AssertionError(f"{text!r} not in column A of {ws.title}")


def test_sheets_in_order_with_short_names(book: openpyxl.Workbook) -> None:
    assert tuple(book.sheetnames) == SHEETS
    assert all(len(name) <= 31 for name in book.sheetnames)
    assert book.active.title == "Summary"


def test_every_sheet_has_a_table_or_header_and_a_frozen_header(book: openpyxl.Workbook) -> None:
    for ws in book.worksheets:
        assert ws.freeze_panes is not None and ws.freeze_panes[-1] == "2", ws.title
        if ws.title not in ("Summary", "Charts", "Costs", "Investment"):
            assert ws.tables, f"{ws.title} has no Excel table"
        assert ws["A1"].value, f"{ws.title} has no header in A1"
        for letter, dim in ws.column_dimensions.items():
            assert dim.width is None or 8 <= dim.width <= 80, (ws.title, letter, dim.width)


def test_units_in_headers(book: openpyxl.Workbook) -> None:
    def headers(title: str) -> list[str]:
        return [c.value for c in book[title][1]]

    assert "energy (USD)" in headers("Fleet")
    assert "IT power (kW per unit)" in headers("Fleet")
    assert "facility power used (MW)" in headers("Power")
    assert "realised cost (USD per Mtok)" in headers("Cost per Mtok")
    assert {"source", "as_of"} <= set(headers("Hardware")) and "as_of" in headers("Models")
    assert headers("Assumptions")[:7] == [
        "section",
        "parameter",
        "item",
        "period",
        "value",
        "unit",
        "note",
    ]


def test_number_formats(book: openpyxl.Workbook) -> None:
    costs = book["Costs"]
    assert costs["B8"].number_format == cells.USD_SCALED
    assert book["Cost per Mtok"]["E2"].number_format == "0.00"
    assert book["Utilisation"]["G2"].number_format == "0.0%"
    assert book["Fleet"]["G2"].number_format == "#,##0"
    wacc = book.defined_names["wacc"].attr_text
    sheet, cell = wacc.replace("$", "").split("!")
    assert book[sheet.strip("'")][cell].number_format.endswith("%")


def test_defined_names_point_at_assumptions(book: openpyxl.Workbook) -> None:
    for name in ("wacc", "utilisation", "energy_hours_per_year", "horizon_start", "horizon_end"):
        assert book.defined_names[name].attr_text.startswith("'Assumptions'!$E$"), name
    assert book.defined_names["npv_tco"].attr_text.startswith("'Costs'!")


def test_costs_are_live_formulas(book: openpyxl.Workbook) -> None:
    ws = book["Costs"]
    assert ws["B4"].value == "=(1+wacc)^-(B2-horizon_start)"
    assert ws["B5"].value == "=(1+wacc)^-(horizon_end-horizon_start)"
    n = len(COST_CATEGORIES)
    for col in "BCDEFG":
        for row in range(8, 8 + n):
            value = ws[f"{col}{row}"].value
            if row == 8 + COST_CATEGORIES.index("residual") and col != "G":
                assert value == 0  # the residual credit is booked in the last period only
            else:
                assert isinstance(value, str) and value.startswith("="), f"{col}{row}: {value}"
        assert ws[f"{col}{8 + n}"].value == f"=SUM({col}8:{col}{7 + n})"
    assert ws["B8"].value.startswith("=SUMIFS('Purchases'!")
    # residual_usd is column L: order_period and capex_at_order_usd sit before it (lead times);
    # 12 purchase rows since the shipped calibration became the default (8, and no GB300,
    # under the built-in efficiency priors)
    assert ws["G13"].value == "=-SUM('Purchases'!$L$2:$L$11)"
    npv_row = _find(ws, "Total present value (TCO, excl. penalties)")
    assert ws.cell(row=npv_row, column=8).value == f"=SUM(B{npv_row}:G{npv_row})"
    first_pv = _find(ws, "Present value at the horizon start (USD)") + 1
    # capex of 2027 (baseline, peak_average): its purchases arrive through the year, so
    # it is paid on average at the middle; 2026 opens with its deliveries at the start
    assert ws[f"C{first_pv}"].value == "=C8*C$4*(1+wacc)^-(C$3/2)"
    assert ws[f"B{first_pv}"].value == "=B8*B$4"
    assert ws[f"C{first_pv + 1}"].value == "=C9*C$4"
    assert ws[f"C{first_pv + 5}"].value == "=C13*discount_factor_end"


def test_energy_cost_is_a_formula_of_kw_pue_hours_and_price(book: openpyxl.Workbook) -> None:
    fleet = book["Fleet"]
    headers = {c.value: c.column_letter for c in fleet[1]}
    energy = fleet[f"{headers['energy (USD per unit-year)']}2"].value
    assert "energy_hours_per_year" in energy
    for name in ("IT power (kW per unit)", "PUE", "electricity (USD/kWh)"):
        assert f"{headers[name]}2" in energy
    assert fleet[f"{headers['electricity (USD/kWh)']}2"].value.startswith("='Assumptions'!$E$")
    # the system's kW plus its network and storage kW, both from the Hardware sheet
    power = fleet[f"{headers['IT power (kW per unit)']}2"].value
    assert re.fullmatch(r"=\('Hardware'!\$[A-Z]+\$\d+\+'Hardware'!\$[A-Z]+\$\d+\)", power)


def test_native_charts(book: openpyxl.Workbook) -> None:
    charts = book["Charts"]._charts
    assert len(charts) == 4
    fleet, costs, power, demand = charts
    assert isinstance(fleet, BarChart) and fleet.grouping == "stacked"
    assert isinstance(costs, BarChart) and costs.grouping == "stacked"
    # power steps from period to period: columns, not a smoothed line
    assert isinstance(power, BarChart) and power.grouping == "clustered"
    assert isinstance(demand, BarChart) and demand.grouping == "clustered"
    for chart in charts:
        assert chart.title is not None and chart.y_axis.title is not None
    assert "'Costs'!" in costs.series[0].val.numRef.f
    # penalties are left out of the cost chart (their own rows on Costs), so that
    # real costs keep a readable axis
    assert len(costs.series) == len(COST_CATEGORIES) - len(PENALTIES) == 6
    assert [s.tx.strRef.f for s in costs.series][-1] == f"'Costs'!A{CASH_ROW + 5}"
    summary = book["Summary"]._charts
    assert len(summary) == 2 and all(isinstance(c, BarChart) for c in summary)


def test_summary_names_the_run(book: openpyxl.Workbook) -> None:
    ws = book["Summary"]
    values = {
        ws.cell(row=r, column=1).value: ws.cell(row=r, column=2).value
        for r in range(1, ws.max_row + 1)
    }
    assert values["scenario"] == "baseline"
    assert values["scenario file SHA-256"] == hashlib.sha256(BASELINE.read_bytes()).hexdigest()
    assert values["planner version"]
    assert values["status"] == "optimal"
    assert values["NPV of total cost of ownership"] == "=npv_tco"
    assert values["total capex"].startswith("=SUM('Purchases'!")
    assert values["peak facility power"].startswith("=MAX('Charts'!")
    assert any(str(k).startswith("owned accelerators in 2031: NVIDIA") for k in values)
    assert any(str(k).startswith("realised cost per Mtok in 2031: chat") for k in values)
    column_a = [ws.cell(row=r, column=1).value for r in range(1, ws.max_row + 1)]
    assert any("supply cap of gb200-nvl72 binds" in str(v) for v in column_a)


INJECTED = """
name: "=HYPERLINK(\\"http://x\\",\\"click\\")"
description: "@SUM(1,2)"
horizon: {start: 2026, years: 1}
finance: {availability: 1.0}
sites: [{name: "-dc", power_cap_mw: 10}]
hardware: [{id: h100-hgx}]
models: [{id: llama-3.1-8b}]
inference:
  - {name: "=chat", model: llama-3.1-8b, tokens_per_day: 1.0e10, slo_tokens_per_s_per_user: 50}
  - {name: "+cmd|' /C calc'!A0", model: llama-3.1-8b, tokens_per_day: 1.0e9,
     slo_tokens_per_s_per_user: 50}
  - {name: "@agent", model: llama-3.1-8b, tokens_per_day: 1.0e9, slo_tokens_per_s_per_user: 50}
solver: {mip_gap: 0.0}
"""


def test_user_strings_starting_with_formula_characters_are_text(tmp_path: Path) -> None:
    source = tmp_path / "evil.yaml"
    source.write_text(INJECTED, encoding="utf-8")
    scenario = load_scenario(source)
    path = write_workbook(plan(scenario), scenario, tmp_path / "evil.xlsx", source=source)
    wb = openpyxl.load_workbook(path)
    names = ("=HYPERLINK", "@SUM", "-dc", "=chat", "+cmd", "@agent")
    seen = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                value = cell.value
                if isinstance(value, str) and value.startswith(TRIGGERS) and cell.data_type == "f":
                    assert not any(n in value for n in names), f"{ws.title}!{cell.coordinate}"
                if isinstance(value, str) and value.startswith(names):
                    assert cell.data_type == "s" and cell.quotePrefix, (
                        f"{ws.title}!{cell.coordinate}"
                    )
                    seen.add(value.split("(")[0].split("|")[0])
    assert {"=HYPERLINK", "@SUM", "-dc", "=chat", "+cmd", "@agent"} <= seen


def test_a_failed_export_leaves_the_old_file_byte_identical(
    solved, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario, result = solved
    target = tmp_path / "plan.xlsx"
    write_workbook(result, scenario, target)
    before = target.read_bytes()

    def broken(self: openpyxl.Workbook, filename: str) -> None:
        Path(filename).write_bytes(b"PK\x03\x04 half a workbook")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(openpyxl.Workbook, "save", broken)
    with pytest.raises(ExportError, match="disk full"):
        write_workbook(result, scenario, target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.xlsx"]


def _cells(wb: openpyxl.Workbook) -> dict[str, object]:
    out = {}
    for ws in wb.worksheets:
        skip = {r for r in range(1, ws.max_row + 1) if ws.cell(row=r, column=1).value in MEASURED}
        for row in ws.iter_rows():
            for cell in row:
                if ws.title != "Summary" or cell.row not in skip:
                    out[f"{ws.title}!{cell.coordinate}"] = cell.value
    return out


def test_same_scenario_same_cells() -> None:
    """Two solves and exports of one scenario: identical values and formulas (solve and
    build times, wall-clock measurements, aside)."""
    scenario = load_scenario(REPO / "tests" / "scenarios" / "rental_spike.yaml")
    first = build_workbook(plan(scenario), scenario).workbook
    second = build_workbook(plan(scenario), scenario).workbook
    assert _cells(first) == _cells(second)
    assert list(first.defined_names) == list(second.defined_names)


def test_run_writes_the_workbook(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "run" / "existing.xlsx"
    result = run_cli("run", REPO / "tests" / "scenarios" / "existing_fleet.yaml", "--out", out)
    assert result.code == 0, result.err
    wb = openpyxl.load_workbook(out)
    assert "Costs" in wb.sheetnames and str(out) in result.err.replace("\n", "")


def test_run_into_a_directory_fails_cleanly(run_cli, tmp_path: Path) -> None:
    result = run_cli("run", REPO / "tests" / "scenarios" / "existing_fleet.yaml", "--out", tmp_path)
    assert result.code != 0
    assert "Traceback" not in result.err


def test_the_scenario_hash_reads_only_regular_files(tmp_path: Path) -> None:
    """The Summary's file hash goes through the bounded reader: a pipe put where the
    scenario was is refused (exit-2 InputError), not read without end."""
    import hashlib
    import os

    from planner.errors import InputError
    from planner.export.sheets.summary import file_sha256

    plain = tmp_path / "s.yaml"
    plain.write_bytes(b"name: x\n" * 300_000)  # several 1 MiB chunks
    assert file_sha256(plain) == hashlib.sha256(plain.read_bytes()).hexdigest()
    fifo = tmp_path / "swapped.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as refused:
        file_sha256(fifo)
    message = refused.value.render()
    assert "is a pipe (FIFO), not a scenario file; only regular files are read" in message


def test_chart_axes_and_legends(book: openpyxl.Workbook) -> None:
    fleet, costs, power, demand = book["Charts"]._charts
    # baseline cash costs run to billions a year: the whole money axis is in $B
    assert costs.y_axis.numFmt.formatCode == '$#,##0.0,,,"B"'
    assert costs.y_axis.numFmt.sourceLinked is False
    for chart in (fleet, power, demand):
        assert chart.y_axis.numFmt.formatCode == "#,##0"
    # legends name the series; the unit is the axis title's
    block = book["Charts"]
    hardware = [block.cell(row=3, column=c).value for c in range(2, 2 + len(fleet.series))]
    assert [s.tx.v for s in fleet.series] == [h.removesuffix(" (accelerators)") for h in hardware]
    # gb300-nvl72 since the shipped calibration became the default; no h200-hgx since
    # list prices hold until each part's successor ships (h200's price no longer falls
    # from 2024, so b200-hgx, whose price falls from 2025Q4, serves instead)
    assert [s.tx.v for s in fleet.series] == [
        "h100-hgx",
        "b200-hgx",
        "gb200-nvl72",
        "gb300-nvl72",
    ]
    assert [s.tx.v for s in power.series] == ["facility power used", "cap"]
    assert [s.tx.v for s in demand.series] == ["demand", "served"]
    summary_costs, _ = book["Summary"]._charts
    assert summary_costs.y_axis.numFmt.formatCode == '$#,##0.0,,,"B"'


def test_summary_description_wraps(book: openpyxl.Workbook) -> None:
    ws = book["Summary"]
    row = _find(ws, "description")
    cell = ws.cell(row=row, column=2)
    assert cell.value.startswith("Frontier lab, 2026-2031")
    assert cell.alignment.wrap_text is True
    # 199 characters wrap to 3 lines of at most 70: three 15 pt lines
    assert len(cell.value) == 199
    assert ws.row_dimensions[row].height == 45.0
    assert ws.column_dimensions["B"].width == 70


@pytest.mark.parametrize(
    ("name", "price"),
    [
        ("tests/scenarios/datacenter_build.yaml", 0.5),  # built MW: capex and O&M
        ("tests/scenarios/lease_or_build.yaml", 0.5),  # leased kW
        ("tests/scenarios/commitment_steady.yaml", 0.5),  # committed rentals only
        ("tests/scenarios/sell_after_first_year.yaml", None),  # resale proceeds
    ],
)
def test_the_workbook_npv_and_cash_flow_are_the_plan_s(name: str, price: float | None) -> None:
    """Procurement costs (commitments, datacenter builds and leases) are rows of the
    Costs sheet and of the Investment sheet's cash, so the workbook's NPV and cash flow
    are the plan's (before, commitment_steady's workbook NPV was $0 against $895,426)."""
    scenario = load_scenario(REPO / name)
    if price is not None:  # a price on every workload: the Investment sheet's cash rows
        priced = [w.model_copy(update={"price_usd_per_mtok": price}) for w in scenario.inference]
        scenario = scenario.model_copy(update={"inference": priced})
    result = plan(scenario)
    built = build_workbook(result, scenario)
    names = built.workbook.defined_names
    npv = built.expected[str(names["npv_tco"].attr_text)]
    assert npv == pytest.approx(result.headline["npv_cost_usd"], rel=1e-9)
    if price is None:
        return
    flows = result.tables["investment"]["cash_flow_usd"].tolist()
    ws = built.workbook["Investment"]
    label = "Cash flow (gross margin − capex)"
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == label)
    letters = [ws.cell(row, 3 + j).column_letter for j in range(len(flows))]
    cash = [built.expected[f"'Investment'!${letter}${row}"] for letter in letters]
    assert cash == pytest.approx(flows, rel=1e-9, abs=1e-6)
    assert result.tables["investment"]["operating_cost_usd"].sum() > 0
