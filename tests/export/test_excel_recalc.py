"""The plan workbook recalculated in LibreOffice: every formula reproduces the planner.

Skipped only where LibreOffice is absent (the skip reason says so); CI installs it.
Each workbook is recalculated once per module and shared by the tests; tests that edit
the shared baseline workbook do it through the ``edit`` fixture, which undoes the edits.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from libreoffice import error_cells, recalculated, require_soffice

from planner import economics
from planner.catalog import hardware_catalog
from planner.economics.addons import network_storage_usd_per_unit, with_network_storage_power
from planner.export.excel import PlanWorkbook, build_workbook
from planner.export.sheets.costs import npv_at
from planner.optimize import build_data
from planner.pipeline import plan
from planner.results import Plan
from planner.results.costs import usd_per_mtok_table
from planner.results.rented import rented_usd_per_unit_year
from planner.scenario import load_scenario
from planner.scenario.resolve import hardware_specs

REPO = Path(__file__).resolve().parents[2]
REL = 1e-9
FLOOR = 1e-9
"""Absolute tolerance where a column's values are all rounding noise (a slack of 7e-18 MW)."""
ADDRESS = re.compile(r"^'(?P<sheet>(?:[^']|'')+)'!\$(?P<col>[A-Z]+)\$(?P<row>\d+)$")
NEW_WACC = 0.07


def _cell(wb: openpyxl.Workbook, address: str):
    m = ADDRESS.match(address)
    assert m, address
    return wb[m["sheet"].replace("''", "'")][f"{m['col']}{m['row']}"]


def _solve(relative: str) -> tuple[Plan, PlanWorkbook]:
    scenario = load_scenario(REPO / relative)
    result = plan(scenario)
    return result, build_workbook(result, scenario)


def _recalculate(built: PlanWorkbook, folder: Path, profile: Path) -> openpyxl.Workbook:
    source = folder / "in" / "plan.xlsx"
    source.parent.mkdir(parents=True)
    built.workbook.save(source)
    return recalculated(source, folder / "out", profile)


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_soffice()
    return tmp_path_factory.mktemp("lo-profile")


@pytest.fixture(
    scope="module",
    params=[
        "scenarios/baseline.yaml",
        "tests/scenarios/budget_shortfall.yaml",  # unmet tokens on a chord of the load shape
        "tests/scenarios/load_shape_shortfall.yaml",  # ... and on its linear part
        "tests/scenarios/rental_spike.yaml",
        "tests/scenarios/sell_after_first_year.yaml",  # Sales sheet, resale_proceeds line
        "tests/scenarios/lead_time_order_ahead.yaml",  # capex paid at order, a year early
        "tests/scenarios/priced_growth.yaml",  # an IRR with capex paid mid-year
        "tests/scenarios/datacenter_build.yaml",  # Datacenter sheet: builds, their residual
        "tests/scenarios/lease_or_build.yaml",  # power caps raised by built and leased MW
        "tests/scenarios/contracted_power.yaml",  # power_contract: cap × rate on Assumptions
    ],
)
def recalc(request, profile: Path, tmp_path_factory: pytest.TempPathFactory):
    """(plan, built workbook, recalculated workbook) of a scenario."""
    result, built = _solve(request.param)
    return result, built, _recalculate(built, tmp_path_factory.mktemp("recalc"), profile)


def _scales(expected: dict[str, float]) -> dict[tuple[str, str], float]:
    """Largest expected magnitude per sheet column: the scale of its rounding noise."""
    scale: dict[tuple[str, str], float] = defaultdict(float)
    for address, value in expected.items():
        m = ADDRESS.match(address)
        scale[(m["sheet"], m["col"])] = max(scale[(m["sheet"], m["col"])], abs(value))
    return scale


def test_every_formula_matches_the_plan(recalc) -> None:
    _, built, values = recalc
    assert built.expected, "no formulas were written"
    scale = _scales(built.expected)
    wrong = []
    for address, want in built.expected.items():
        got = _cell(values, address).value
        m = ADDRESS.match(address)
        noise = max(REL * scale[(m["sheet"], m["col"])], FLOOR)
        if not isinstance(got, int | float) or not math.isclose(
            got, want, rel_tol=REL, abs_tol=noise
        ):
            wrong.append(f"{address}: workbook {got!r}, planner {want!r}")
    assert not wrong, "\n".join(wrong[:20])


def test_no_cell_is_an_error(recalc) -> None:
    assert error_cells(recalc[2]) == []


def test_every_formula_is_checked(recalc) -> None:
    _, built, _ = recalc
    unchecked = [
        f"{ws.title}!{cell.coordinate}"
        for ws in built.workbook.worksheets
        for row in ws.iter_rows()
        for cell in row
        if cell.data_type == "f"
        and f"'{ws.title}'!${cell.column_letter}${cell.row}" not in built.expected
    ]
    assert unchecked == []


def test_headline_npv_is_the_plans(recalc) -> None:
    result, built, values = recalc
    npv = _cell(values, built.refs["npv_tco"]).value
    assert npv == pytest.approx(result.headline["npv_cost_usd"], rel=REL)
    assert npv_at(result, result.parameters["wacc"]) == pytest.approx(npv, rel=REL)


@pytest.fixture(scope="module")
def baseline() -> tuple[Plan, PlanWorkbook]:
    return _solve("scenarios/baseline.yaml")


Edit = Callable[[str, Any], None]


@pytest.fixture
def edit(baseline: tuple[Plan, PlanWorkbook]) -> Iterator[Edit]:
    """Set cells of the shared baseline workbook for one test; the old values come back
    afterwards, whether the test passes or fails, so the next test sees the plan's workbook."""
    workbook = baseline[1].workbook
    saved: dict[str, Any] = {}

    def set_cell(address: str, value: Any) -> None:
        cell = _cell(workbook, address)
        saved.setdefault(address, cell.value)
        cell.value = value

    yield set_cell
    for address, value in saved.items():
        _cell(workbook, address).value = value


def test_changing_the_wacc_moves_the_npv(
    baseline, edit: Edit, profile: Path, tmp_path: Path
) -> None:
    result, built = baseline
    edit(built.refs["wacc"], NEW_WACC)
    values = _recalculate(built, tmp_path, profile)
    npv = _cell(values, built.refs["npv_tco"]).value
    assert npv == pytest.approx(npv_at(result, NEW_WACC), rel=REL)
    assert npv != pytest.approx(result.headline["npv_cost_usd"], rel=1e-3)
    objective = _cell(values, built.refs["npv_with_penalties"]).value
    assert objective == pytest.approx(npv_at(result, NEW_WACC, penalties=True), rel=REL)
    # the Investment sheet discounts revenue with the same factors: NPV of profit moves
    periods = result.tables["periods"].set_index("period")
    first = float(periods["start_year"].iloc[0])
    revenue = result.tables["revenue"]
    revenue_pv = sum(
        usd * economics.discount_factor(NEW_WACC, float(periods.loc[p, "start_year"]) - first)
        for p, usd in zip(revenue["period"], revenue["revenue_usd"], strict=True)
    )
    assert _cell(values, built.refs["revenue_pv"]).value == pytest.approx(revenue_pv, rel=REL)
    assert _cell(values, built.refs["npv_profit"]).value == pytest.approx(
        revenue_pv - npv_at(result, NEW_WACC), rel=REL
    )
    assert error_cells(values) == []


def test_changing_the_electricity_price_moves_energy_and_npv(
    baseline, edit: Edit, profile: Path, tmp_path: Path
) -> None:
    result, built = baseline
    address = built.refs[("electricity", "texas", 2026)]
    # texas sets one price for every year: one cell feeds them all
    assert len({built.refs[("electricity", "texas", y)] for y in range(2026, 2032)}) == 1
    edit(address, _cell(built.workbook, address).value * 2)
    values = _recalculate(built, tmp_path, profile)
    costs = result.tables["costs"]
    energy = costs[costs["category"] == "energy"]
    ws = values["Costs"]
    energy_row = next(r for r in range(1, ws.max_row) if ws.cell(row=r, column=1).value == "Energy")
    for j, usd in enumerate(energy["usd"], start=2):
        assert ws.cell(row=energy_row, column=j).value == pytest.approx(2 * usd, rel=REL)
    moved = result.headline["npv_cost_usd"] + float(energy["usd_pv"].sum())
    assert _cell(values, built.refs["npv_tco"]).value == pytest.approx(moved, rel=REL)
    # realised $/Mtok: the planner's function, charging the same fleet twice the energy
    scenario = load_scenario(REPO / "scenarios/baseline.yaml")
    data = build_data(scenario, result.inference_throughput, result.training_throughput)
    fleet = result.tables["fleet"]
    texas = fleet["site"] == "texas"
    doubled = fleet.assign(
        energy_usd_per_unit_year=fleet["energy_usd_per_unit_year"].where(
            ~texas, 2 * fleet["energy_usd_per_unit_year"]
        )
    )
    want = usd_per_mtok_table(
        data, _split(result, data), doubled, result.tables["served"], _rented_rates(result)
    )
    got = _sheet_usd_per_mtok(values)
    for row in want.itertuples(index=False):
        assert got[(str(row.period), row.workload)] == pytest.approx(row.usd_per_mtok, rel=REL)


def _rented_rates(result: Plan) -> dict[tuple[str, str], float]:
    """What the plan pays per assigned unit-year of each rented pool, as the planner's
    own $/Mtok table charges it (rented units as paid)."""
    t = result.tables
    periods = t["periods"]
    lengths = dict(zip(periods["period"].astype(str), periods["length_years"], strict=True))
    return rented_usd_per_unit_year(
        t["rentals"],
        t.get("commitments"),
        t["assignment_training"],
        t["assignment_inference"],
        {k: float(v) for k, v in lengths.items()},
    )


def _split(result: Plan, data: Any) -> dict[tuple, float]:
    """The plan's inference assignments as usd_per_mtok_table takes them."""
    label = {p.name: p.label for p in data.periods}
    return {
        (r.workload, r.role, r.hardware, r.site, label[r.period]): r.units
        for r in result.tables["assignment_inference"].itertuples(index=False)
    }


def _sheet_usd_per_mtok(values: openpyxl.Workbook) -> dict[tuple[str, str], float]:
    """(period, workload) → the recalculated realised $/Mtok of the Cost per Mtok sheet."""
    ws = values["Cost per Mtok"]
    header = [c.value for c in ws[1]]
    period, workload = header.index("period"), header.index("workload")
    usd = header.index("realised cost (USD per Mtok)")
    return {
        (str(row[period]), str(row[workload])): row[usd]
        for row in ws.iter_rows(min_row=2, values_only=True)
        if row[workload] is not None and isinstance(row[usd], int | float)
    }


def test_changing_the_wacc_moves_usd_per_mtok_to_the_planners(
    baseline, edit: Edit, profile: Path, tmp_path: Path
) -> None:
    """WACC 0.10 → 0.15 on Assumptions: every realised $/Mtok cell (and the Summary's)
    becomes what the planner's own $/Mtok function charges the same fleet at 0.15."""
    result, built = baseline
    edit(built.refs["wacc"], 0.15)
    values = _recalculate(built, tmp_path, profile)
    scenario = load_scenario(REPO / "scenarios/baseline.yaml")
    moved = scenario.model_copy(
        update={"finance": scenario.finance.model_copy(update={"wacc": 0.15})}
    )
    data = build_data(moved, result.inference_throughput, result.training_throughput)
    want = usd_per_mtok_table(
        data,
        _split(result, data),
        result.tables["fleet"],
        result.tables["served"],
        _rented_rates(result),
    )
    got = _sheet_usd_per_mtok(values)
    assert len(got) == len(want) > 0
    before = result.tables["usd_per_mtok"]
    for row, old in zip(want.itertuples(index=False), before["usd_per_mtok"], strict=True):
        cell = got[(str(row.period), row.workload)]
        assert cell == pytest.approx(row.usd_per_mtok, rel=REL), (row.period, row.workload)
        assert cell > old * 1.05  # a dearer cost of capital: every figure moves up
    summary = values["Summary"]
    quoted = [
        (r[0], r[1])
        for r in summary.iter_rows(values_only=True)
        if str(r[0]).startswith("realised")
    ]
    last = str(result.tables["periods"]["period"].iloc[-1])
    for text, value in quoted:
        workload = text.rsplit(": ", 1)[1]
        assert value == pytest.approx(got[(last, workload)], rel=REL), text
    assert quoted and error_cells(values) == []
    # the full-load $/Mtok of the perf model's table: planner.economics at 0.15
    year = scenario.horizon.start
    full_load = economics.price_inference_table(moved, result.inference_throughput, year)
    sheet = _throughput_usd_per_mtok(values)
    priced = full_load[full_load["usd_per_mtok_output"].notna()]
    assert len(priced) == len(sheet) > 0
    for row in priced.itertuples(index=False):
        got_cell = sheet[(row.workload, row.hardware)]
        assert got_cell == pytest.approx(float(row.usd_per_mtok_output), rel=REL)


def _throughput_usd_per_mtok(values: openpyxl.Workbook) -> dict[tuple[str, str], float]:
    """(workload, hardware) → recalculated full-load $/Mtok on Throughput inference."""
    ws = values["Throughput inference"]
    header = [c.value for c in ws[1]]
    workload, hardware = header.index("workload"), header.index("hardware")
    usd = header.index("full-load cost (USD per Mtok output)")
    return {
        (row[workload], row[hardware]): row[usd]
        for row in ws.iter_rows(min_row=2, values_only=True)
        if isinstance(row[usd], int | float)
    }


def test_the_decline_cells_drive_the_prices(
    baseline, edit: Edit, profile: Path, tmp_path: Path
) -> None:
    """A catalog price is held until the successor ships, then declines: the per-period
    price cells are formulas of the catalog price, the decline and its start, so an
    analyst who sets the decline to 0, or moves its start past the horizon, holds every
    price at the list price (and everything that reads them moves with it)."""
    _, built = baseline
    spec = hardware_catalog()["gb200-nvl72"]
    late = built.refs[("price", "gb200-nvl72", 2031)]
    assert built.expected[late] < 0.5 * spec.price_usd  # as planned: declined since 2025Q3
    edit(built.refs[("price_decline", "gb200-nvl72")], 0.0)
    held = _recalculate(built, tmp_path / "rate", profile)
    edit(built.refs[("price_decline", "gb200-nvl72")], 0.2)
    edit(built.refs[("price_decline_from", "gb200-nvl72")], 2040)
    later = _recalculate(built, tmp_path / "start", profile)
    for year in (2026, 2031):
        address = built.refs[("price", "gb200-nvl72", year)]
        assert _cell(held, address).value == pytest.approx(spec.price_usd)
        assert _cell(later, address).value == pytest.approx(spec.price_usd)


def test_changing_a_hardware_price_moves_full_load_usd_per_mtok(
    baseline, edit: Edit, profile: Path, tmp_path: Path
) -> None:
    """gb200-nvl72 at 1.5 × its 2026 list price: its full-load $/Mtok is what
    planner.economics.unit_cost charges at that price plus the unit's network and
    storage (capex and power, which baseline counts); other hardware stays."""
    result, built = baseline
    scenario = load_scenario(REPO / "scenarios/baseline.yaml")
    address = built.refs[("price", "gb200-nvl72", 2026)]
    # a formula of the catalog price, the decline and its start; its value as planned
    price = 1.5 * built.expected[address]
    edit(address, price)
    values = _recalculate(built, tmp_path, profile)
    spec = hardware_specs(scenario)["gb200-nvl72"]
    assert scenario.finance.network_and_storage
    addon_usd = network_storage_usd_per_unit(scenario, spec)
    assert addon_usd > 0
    (spec,) = with_network_storage_power(scenario, {spec.id: spec}).values()
    f = scenario.finance
    cost = economics.unit_cost(
        spec,
        price_usd=price + addon_usd,
        wacc=f.wacc,
        pue=f.pue,
        electricity_usd_per_kwh=f.electricity_usd_per_kwh,
        facility_usd_per_kw_year=f.facility_usd_per_kw_year,
        maintenance_fraction=f.maintenance_fraction_of_capex_per_year,
        utilisation=f.utilisation,
    )
    before = economics.price_inference_table(scenario, result.inference_throughput, 2026)
    sheet = _throughput_usd_per_mtok(values)
    for row in before[before["usd_per_mtok_output"].notna()].itertuples(index=False):
        got = sheet[(row.workload, row.hardware)]
        if row.hardware == "gb200-nvl72":
            want = economics.usd_per_mtok(cost.total_usd_per_year, row.output_tokens_per_s_per_unit)
            assert got == pytest.approx(want, rel=REL)
            assert got > float(row.usd_per_mtok_output) * 1.2
        else:
            assert got == pytest.approx(float(row.usd_per_mtok_output), rel=REL)
    # the realised $/Mtok moves too: gb200 units bought in 2026 now cost more
    realised = _sheet_usd_per_mtok(values)
    old = result.tables["usd_per_mtok"]
    moved = [
        realised[(str(r.period), r.workload)] > r.usd_per_mtok * (1 + 1e-6)
        for r in old.itertuples(index=False)
        if r.served_mtok > 0
    ]
    assert any(moved) and error_cells(values) == []


def test_edits_are_undone_after_each_test(baseline) -> None:
    """Runs after the two edits above (file order): the shared workbook is the plan's again."""
    result, built = baseline
    fresh = build_workbook(result, load_scenario(REPO / "scenarios/baseline.yaml")).workbook
    edited = ("wacc", ("electricity", "texas", 2026), ("price", "gb200-nvl72", 2026))
    for address in (built.refs[key] for key in edited):
        assert _cell(built.workbook, address).value == _cell(fresh, address).value, address


def test_the_contract_rate_and_cap_cells_drive_the_power_contract_row(
    profile: Path, tmp_path: Path
) -> None:
    """contracted_power.yaml: 0.2 MW × 1,000 × $500 = $100,000 a year; at $800 and
    0.3 MW the row reads 0.3 × 1,000 × 800 = $240,000 and the NPV moves by the change
    in its present value, (240,000 − 100,000) × (1 + 1/1.1)."""
    result, built = _solve("tests/scenarios/contracted_power.yaml")
    workbook = built.workbook
    _cell(workbook, built.refs[("contract", "dc", 2026)]).value = 800.0
    _cell(workbook, built.refs[("power_cap", "dc", 2026)]).value = 0.3
    values = _recalculate(built, tmp_path, profile)
    ws = values["Costs"]
    label = "Contracted power (take-or-pay on the whole cap)"
    row = next(r for r in range(1, ws.max_row) if ws.cell(row=r, column=1).value == label)
    assert [ws.cell(row=row, column=c).value for c in (2, 3)] == pytest.approx([240_000.0] * 2)
    npv = _cell(values, built.refs["npv_tco"]).value
    moved = 140_000.0 * (1 + 1 / 1.1)
    assert npv == pytest.approx(result.headline["npv_cost_usd"] + moved, rel=REL)
    assert error_cells(values) == []
