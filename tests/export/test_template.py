"""The assumptions workbook: round trips, layout, edits, errors and the CLI command."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml
from libreoffice import recalculate, require_soffice

from planner.catalog import hardware_catalog, model_catalog
from planner.errors import InputError
from planner.export.template import LISTS_SHEET, README_SHEET, build_template, write_template
from planner.scenario import Scenario, load_scenario
from planner.scenario.workbook import SERIES_SHEET, SHEETS, read_scenario_workbook

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted((REPO / "scenarios").glob("*.yaml"))


def _custom_document() -> dict[str, Any]:
    """A scenario touching every kind of cell: series, lists, dates, bools, new ids."""
    new_hw = hardware_catalog()["h100-hgx"].model_dump(
        exclude={"id", "price_usd", "available_from", "successor", "availability_source"}
    )
    new_model = model_catalog()["llama-3.1-8b"].model_dump(exclude={"id"})
    return {
        "name": '=HYPERLINK("http://example.com","click")',
        "description": "+1 first line\n  second line, indented\n",
        "horizon": {"start": 2026, "years": 4},
        "finance": {
            "wacc": 0.08,
            "electricity_usd_per_kwh": {2026: 0.07, 2029: 0.05},
            "facility_usd_per_kw_year": 1200.0,
        },
        "sites": [
            {"name": "-texas", "power_cap_mw": {2026: 60, 2028: 200}, "pue": 1.2},
            {
                "name": "@ohio",
                "power_cap_mw": 80,
                "electricity_usd_per_kwh": 0.05,
                "facility_usd_per_kw_year": {2026: 1000.0, 2027: 900.0},
            },
        ],
        "budget": {"capex_usd": 3.0e9},
        "hardware": [
            {"id": "h100-hgx", "sites": ["-texas"]},
            {
                **new_hw,
                "id": "my-h100",
                "price_usd": {2026: 250000.0, 2028: 200000.0},
                "max_units_per_year": {2026: 100, 2027: 200},
                "as_of": dt.date(2025, 1, 15),
                "notes": "=1+1 is not a formula",
                "sites": ["@ohio", "-texas"],
            },
            {"id": "gb200-nvl72", "mfu_training": 0.45, "price_usd": 3.0e6},
        ],
        "rental": [
            {"hardware": "h100-hgx", "usd_per_accelerator_hour": {2026: 2.5, 2029: 1.5}},
            {
                "hardware": "h100-hgx",
                "usd_per_accelerator_hour": 3.0,
                "max_accelerators": {2026: 1000, 2027: 2000},
            },
        ],
        "existing_fleet": [
            {"hardware": "h100-hgx", "site": "-texas", "units": 120, "installed": 2024}
        ],
        "models": [
            {"id": "llama-3.1-70b"},
            {"id": "llama-3.1-405b", "max_context_tokens": 65536},
            {**new_model, "id": "my-8b"},
        ],
        "training": [
            {
                "name": "+pretrain",
                "model": "llama-3.1-405b",
                "tokens": 1.5e13,
                "precision": "bf16",
                "window": [2026, 2027],
                "mfu": 0.35,
                "flops": 1.0e25,
            }
        ],
        "inference": [
            {
                "name": "=chat",
                "model": "llama-3.1-70b",
                "tokens_per_day": {2026: 3.0e11, 2029: 5.0e12},
                "cache_hit_rate": 0.5,
                "kv_precision": "fp8",
            },
            {
                "name": "@batch",
                "model": "my-8b",
                "precision": "fp4",
                "tokens_per_day": 2.0e11,
                "context_tokens": 32768.0,
            },
        ],
        "serving": "disaggregated",
        "vendor_share_max": {"NVIDIA": 0.9},
        "penalties": {"unmet_inference_usd_per_mtok": 500.0},
        "solver": {"name": "highs", "mip_gap": 0.01, "time_limit_s": 30.0, "threads": 2},
    }


@pytest.fixture
def custom(tmp_path: Path) -> Path:
    path = tmp_path / "custom.yaml"
    path.write_text(yaml.safe_dump(_custom_document(), sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def baseline_book(tmp_path: Path) -> Path:
    return write_template(
        tmp_path / "baseline.xlsx", load_scenario(REPO / "scenarios/baseline.yaml")
    )


def _column(ws: Any, header: str) -> int:
    for cell in ws[1]:
        if cell.value == header:
            return cell.column
    raise AssertionError(f"no column {header!r} on {ws.title}")


def _edit(path: Path, sheet: str, row: int, header: str, value: Any) -> Path:
    wb = openpyxl.load_workbook(path)
    ws = wb[sheet]
    ws.cell(row=row, column=_column(ws, header)).value = value  # value=None would not clear
    wb.save(path)
    return path


def _field_row(path: Path, sheet: str, field: str) -> int:
    ws = openpyxl.load_workbook(path)[sheet]
    return next(c.row for c in ws["A"] if c.value == field)


def _error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        load_scenario(path)
    return str(info.value)


# ------------------------------------------------------------------ round trips


@pytest.mark.parametrize("scenario_file", SHIPPED, ids=lambda p: p.stem)
def test_shipped_scenarios_round_trip(scenario_file: Path, tmp_path: Path) -> None:
    scenario = load_scenario(scenario_file)
    book = write_template(tmp_path / f"{scenario_file.stem}.xlsx", scenario)
    # the workbook holds the base scenario: an uncertainty: tree stays in the YAML
    # (planner template says so)
    assert load_scenario(book) == scenario.model_copy(update={"uncertainty": None})


def test_software_and_throughput_scale_round_trip(tmp_path: Path) -> None:
    """Both change the throughput the plan is fed: a workbook that dropped them would
    plan with the default stacks and scale without a word."""
    text = (REPO / "scenarios" / "baseline.yaml").read_text(encoding="utf-8")
    text += "software: {AMD: rocm7-amd-claim}\nthroughput_scale: {inference: 0.9}\n"
    source = tmp_path / "software.yaml"
    source.write_text(text, encoding="utf-8")
    scenario = load_scenario(source)
    again = load_scenario(write_template(tmp_path / "software.xlsx", scenario))
    assert again.software == {"AMD": "rocm7-amd-claim"}
    assert again.throughput_scale.inference == 0.9
    assert again == scenario


def test_three_shipped_scenarios_exist() -> None:
    assert {p.stem for p in SHIPPED} >= {"baseline", "power_constrained", "vendor_shootout"}


def test_custom_scenario_round_trips(custom: Path, tmp_path: Path) -> None:
    scenario = load_scenario(custom)
    book = write_template(tmp_path / "custom.xlsx", scenario)
    again = load_scenario(book)
    assert again == scenario
    assert again.hardware[1].as_of == dt.date(2025, 1, 15)
    assert again.rental[1].max_accelerators == {2026: 1000, 2027: 2000}
    # a workbook written from a workbook is the same scenario too
    assert load_scenario(write_template(tmp_path / "again.xlsx", again)) == scenario


def test_round_trip_through_libreoffice(custom: Path, tmp_path: Path) -> None:
    """Opened and saved by a real spreadsheet program, the workbook still reads back."""
    require_soffice()
    scenario = load_scenario(custom)
    (tmp_path / "in").mkdir()
    book = write_template(tmp_path / "in" / "custom.xlsx", scenario)
    assert load_scenario(recalculate(book, tmp_path / "out")) == scenario


def test_extends_and_overrides_are_recorded_not_reapplied(tmp_path: Path) -> None:
    scenario = load_scenario(REPO / "scenarios/power_constrained.yaml")
    assert scenario.extends == "baseline.yaml" and scenario.overrides
    book = write_template(tmp_path / "elsewhere" / "pc.xlsx", scenario)  # no baseline.yaml here
    document = read_scenario_workbook(book)
    assert document["extends"] == "baseline.yaml"
    assert document["overrides"] == {"sites[texas].power_cap_mw": {2026: 60, 2027: 90, 2029: 150}}
    row = _field_row(book, "sites", "texas")
    _edit(book, "series", _series_row(book, "sites", "texas", "power_cap_mw"), "2027", 100)
    assert row == 2
    assert load_scenario(book).sites[0].power_cap_mw[2027] == 100  # the edit wins


def test_calibration_path_resolves_like_yaml(custom: Path, tmp_path: Path) -> None:
    (tmp_path / "calib.yaml").write_text("{}\n", encoding="utf-8")
    text = custom.read_text(encoding="utf-8") + "calibration: calib.yaml\n"
    custom.write_text(text, encoding="utf-8")
    scenario = load_scenario(custom)
    assert scenario.calibration == str((tmp_path / "calib.yaml").resolve())
    book = write_template(tmp_path / "elsewhere" / "c.xlsx", scenario)
    assert load_scenario(book) == scenario
    shutil.copy(tmp_path / "calib.yaml", tmp_path / "elsewhere" / "local.yaml")
    _edit(book, "scenario", _field_row(book, "scenario", "calibration"), "value", "local.yaml")
    assert load_scenario(book).calibration == str((tmp_path / "elsewhere/local.yaml").resolve())


# ------------------------------------------------------------------ layout


def test_sheets_readme_and_lists(baseline_book: Path) -> None:
    wb = openpyxl.load_workbook(baseline_book)
    expected = [README_SHEET, *(s.name for s in SHEETS), SERIES_SHEET, LISTS_SHEET]
    assert wb.sheetnames == expected
    assert wb[LISTS_SHEET].sheet_state == "hidden"
    assert wb.active.title == README_SHEET
    readme = {(row[0], row[1]) for row in wb[README_SHEET].iter_rows(values_only=True) if row[1]}
    for sheet in SHEETS:
        for column in sheet.columns:
            assert (sheet.name, column.header) in readme
    text = " ".join(
        str(c) for row in wb[README_SHEET].iter_rows(values_only=True) for c in row if c
    )
    assert "Discount rate for NPV" in text  # pydantic field docstrings
    assert "see series" in text and "not applied again" in text


def test_catalog_id_drop_downs(baseline_book: Path) -> None:
    wb = openpyxl.load_workbook(baseline_book)
    lists = wb[LISTS_SHEET]
    columns = {c.value: c.column_letter for c in lists[1]}
    hardware_ids = [c.value for c in lists[columns["hardware"]][1:] if c.value]
    assert hardware_ids == list(hardware_catalog())
    model_ids = [c.value for c in lists[columns["models"]][1:] if c.value]
    assert model_ids == list(model_catalog())

    def sources(sheet: str) -> dict[str, str]:
        out = {}
        for dv in wb[sheet].data_validations.dataValidation:
            for rng in dv.sqref.ranges:
                out[rng.coord.split(":")[0].rstrip("0123456789")] = dv.formula1
        return out

    hw = sources("hardware")
    assert hw["A"].startswith(f"{LISTS_SHEET}!${columns['hardware']}$2")
    training = sources("training")
    model_col = openpyxl.utils.get_column_letter(_column(wb["training"], "model"))
    precision_col = openpyxl.utils.get_column_letter(_column(wb["training"], "precision"))
    assert training[model_col].startswith("models!$A$2")
    assert training[precision_col].startswith(f"{LISTS_SHEET}!${columns['precision']}$2")
    assert any("serving" not in f for f in sources("scenario").values())


def test_tables_frozen_headers_and_formats(baseline_book: Path) -> None:
    wb = openpyxl.load_workbook(baseline_book)
    for sheet in SHEETS:
        ws = wb[sheet.name]
        assert ws.freeze_panes == "A2"
        assert len(ws.tables) == 1
    inference = wb["inference"]
    assert inference.cell(
        row=2, column=_column(inference, "cache_hit_rate")
    ).number_format.endswith("%")
    series = wb[SERIES_SHEET]
    assert [c.value for c in series[1]][:3] == ["section", "item", "field"]
    assert "2026" in [c.value for c in series[1]]


def test_blank_template_has_defaults_and_required_blanks(tmp_path: Path) -> None:
    book = write_template(tmp_path / "blank.xlsx")
    document = read_scenario_workbook(book)
    assert document["finance"]["wacc"] == 0.10
    assert document["solver"]["name"] == "highs"
    assert "name" not in document and document["sites"] == []
    message = _error(book)
    assert "sheet 'scenario', row 2, column B (value): name: required field is missing" in message
    assert "sheet 'sites'" in message


def test_template_is_deterministic() -> None:
    scenario = load_scenario(REPO / "scenarios/baseline.yaml")

    def cells(wb: Any) -> list[tuple[str, str, Any, str]]:
        return [
            (ws.title, c.coordinate, c.value, c.number_format)
            for ws in wb.worksheets
            for row in ws.iter_rows()
            for c in row
        ]

    assert cells(build_template(scenario)) == cells(build_template(scenario))


# ------------------------------------------------------------------ injection


def test_user_strings_are_text_in_the_workbook(custom: Path, tmp_path: Path) -> None:
    book = write_template(tmp_path / "custom.xlsx", load_scenario(custom))
    wb = openpyxl.load_workbook(book)
    name = wb["scenario"]["B2"]
    assert name.value.startswith("=HYPERLINK") and name.data_type == "s" and name.quotePrefix
    names = [wb["inference"].cell(row=r, column=1) for r in (2, 3)]
    assert [c.value for c in names] == ["=chat", "@batch"]
    assert all(c.data_type == "s" and c.quotePrefix for c in names)
    site = wb["sites"]["A2"]
    assert site.value == "-texas" and site.data_type == "s" and site.quotePrefix
    formulas = [
        f"{ws.title}!{c.coordinate}"
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if c.data_type == "f"
    ]
    assert formulas == []


# ------------------------------------------------------------------ edits


def _series_row(path: Path, section: str, item: str | None, field: str) -> int:
    ws = openpyxl.load_workbook(path)[SERIES_SHEET]
    for row in ws.iter_rows(min_row=2):
        if [c.value for c in row[:3]] == [section, item, field]:
            return row[0].row
    raise AssertionError(f"no series row {section} {item} {field}")


def test_analyst_edits_are_read(baseline_book: Path) -> None:
    _edit(baseline_book, "finance", _field_row(baseline_book, "finance", "wacc"), "value", 0.07)
    row = _series_row(baseline_book, "inference", "chat", "tokens_per_day")
    _edit(baseline_book, SERIES_SHEET, row, "2028", 4.0e12)
    _edit(baseline_book, "inference", 2, "tokens_per_day", None)  # blank + series row: by year
    _edit(baseline_book, "sites", 2, "pue", 1.3)
    wb = openpyxl.load_workbook(baseline_book)
    wb["training"].append(["extra-run", "llama-3.1-70b", 1.0e12, "bf16", 2027, 2028])
    wb.save(baseline_book)
    scenario = load_scenario(baseline_book)
    assert scenario.finance.wacc == 0.07
    assert scenario.inference[0].tokens_per_day == {2026: 3.0e11, 2028: 4.0e12, 2031: 1.5e13}
    assert scenario.sites[0].pue == 1.3
    assert scenario.training[-1].window == [2027, 2028]


def test_spaces_around_names_are_ignored_but_descriptions_kept(baseline_book: Path) -> None:
    _edit(baseline_book, "hardware", 2, "id", " h100-hgx  ")
    _edit(baseline_book, "existing_fleet", 2, "site", "texas ")
    _edit(baseline_book, "scenario", 3, "value", "  two spaces first")
    scenario = load_scenario(baseline_book)
    assert scenario.hardware[0].id == "h100-hgx"
    assert scenario.existing_fleet[0].site == "texas"
    assert scenario.description == "  two spaces first"


def test_constant_replaces_a_series(baseline_book: Path) -> None:
    row = _series_row(baseline_book, "budget", None, "capex_usd")
    wb = openpyxl.load_workbook(baseline_book)
    wb[SERIES_SHEET].delete_rows(row)
    wb.save(baseline_book)
    _edit(baseline_book, "budget", 2, "value", 5.0e9)
    assert load_scenario(baseline_book).budget.capex_usd == 5.0e9


# ------------------------------------------------------------------ errors name sheet, row, column


def test_text_in_a_number_column(baseline_book: Path) -> None:
    _edit(baseline_book, "inference", 3, "cache_hit_rate", "half")
    message = _error(baseline_book)
    col = openpyxl.utils.get_column_letter(
        _column(openpyxl.load_workbook(baseline_book)["inference"], "cache_hit_rate")
    )
    assert f"sheet 'inference', row 3, column {col} (cache_hit_rate)" in message
    assert "inference[1].cache_hit_rate" in message and "'half'" in message
    assert "type a number" in message


def test_bad_series_value_names_the_series_cell(baseline_book: Path) -> None:
    row = _series_row(baseline_book, "sites", "texas", "power_cap_mw")
    _edit(baseline_book, SERIES_SHEET, row, "2027", "lots")
    message = _error(baseline_book)
    assert f"sheet 'series', row {row}, column" in message and "(2027)" in message


def test_unknown_model_id_names_the_cell(baseline_book: Path) -> None:
    _edit(baseline_book, "training", 2, "model", "llama-9")
    message = _error(baseline_book)
    col = openpyxl.utils.get_column_letter(
        _column(openpyxl.load_workbook(baseline_book)["training"], "model")
    )
    assert f"sheet 'training', row 2, column {col} (model)" in message
    assert "training[0].model" in message


def test_unknown_column_and_misspelt_field(baseline_book: Path) -> None:
    wb = openpyxl.load_workbook(baseline_book)
    ws = wb["sites"]
    ws.cell(row=1, column=ws.max_column + 1, value="pwr_cap")
    ws.cell(row=2, column=ws.max_column, value=5)
    wb["finance"].append(["wac", 0.2])
    wb.save(baseline_book)
    message = _error(baseline_book)
    assert "unknown key 'pwr_cap'" in message and "sheet 'sites', row 2" in message
    assert "unknown key 'wac'" in message and "did you mean 'wacc'" in message


def test_missing_sheet(baseline_book: Path) -> None:
    wb = openpyxl.load_workbook(baseline_book)
    del wb["inference"]
    wb.save(baseline_book)
    assert "sheet 'inference' is missing" in _error(baseline_book)


@pytest.mark.parametrize(
    "content",
    [b"name: not a workbook\n", b"PK\x03\x04truncated zip", b""],
    ids=["text", "corrupt-zip", "empty"],
)
def test_not_a_workbook(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "inputs.xlsx"
    path.write_bytes(content)
    assert "not a readable .xlsx workbook" in _error(path)


def test_truncated_workbook(baseline_book: Path) -> None:
    data = baseline_book.read_bytes()
    baseline_book.write_bytes(data[: len(data) // 2])
    assert "not a readable .xlsx workbook" in _error(baseline_book)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert "file not found" in _error(tmp_path / "nope.xlsx")
    (tmp_path / "dir.xlsx").mkdir()
    assert "directory" in _error(tmp_path / "dir.xlsx")


def test_series_marker_without_a_row(baseline_book: Path) -> None:
    row = _series_row(baseline_book, "inference", "agentic", "tokens_per_day")
    wb = openpyxl.load_workbook(baseline_book)
    wb[SERIES_SHEET].delete_rows(row)
    wb.save(baseline_book)
    message = _error(baseline_book)
    assert "says 'see series' but no row on the series sheet gives it" in message
    assert "sheet 'inference', row 3, column" in message


def test_value_given_twice(baseline_book: Path) -> None:
    _edit(baseline_book, "inference", 2, "tokens_per_day", 1.0e12)
    message = _error(baseline_book)
    assert "given twice" in message and "sheet 'inference', row 2" in message


def test_series_row_for_an_unknown_item(baseline_book: Path) -> None:
    row = _series_row(baseline_book, "inference", "chat", "tokens_per_day")
    _edit(baseline_book, SERIES_SHEET, row, "item", "chatt")
    message = _error(baseline_book)
    assert "item 'chatt' is not on sheet 'inference'" in message
    assert f"sheet 'series', row {row}, column B (item)" in message


def test_formula_without_a_saved_result(baseline_book: Path) -> None:
    _edit(baseline_book, "finance", _field_row(baseline_book, "finance", "pue"), "value", "=1+0.2")
    message = _error(baseline_book)
    assert "a formula without a saved result" in message and "sheet 'finance'" in message


def test_formula_with_a_saved_result_is_read(baseline_book: Path, tmp_path: Path) -> None:
    require_soffice()
    _edit(baseline_book, "finance", _field_row(baseline_book, "finance", "pue"), "value", "=1+0.2")
    converted = recalculate(baseline_book, tmp_path / "out")
    assert load_scenario(converted).finance.pue == pytest.approx(1.2)


def test_half_a_window(baseline_book: Path) -> None:
    _edit(baseline_book, "training", 2, "window_last_year", None)
    message = _error(baseline_book)
    assert "give both window_first_year and window_last_year" in message


# ------------------------------------------------------------------ the command


def test_cli_writes_the_template(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "new" / "inputs.xlsx"
    result = run_cli("template", "--from", REPO / "scenarios/baseline.yaml", "--out", out)
    assert result.code == 0, result.err
    assert isinstance(load_scenario(out), Scenario)
    blank = run_cli("template", "--out", tmp_path / "blank.xlsx")
    assert blank.code == 0
    assert blank.err.startswith(f"wrote {tmp_path / 'blank.xlsx'} (with defaults)")


def test_cli_help_has_an_example(run_cli) -> None:
    result = run_cli("template", "--help")
    assert result.code == 0
    assert "Example:" in result.out
    assert "planner template --from scenarios/baseline.yaml" in result.out


def test_cli_errors(run_cli, tmp_path: Path) -> None:
    result = run_cli("template", "--out", tmp_path / "x.txt")
    assert result.code == 2 and ".xlsx" in result.err
    result = run_cli("template", "--from", tmp_path / "none.yaml", "--out", tmp_path / "a.xlsx")
    assert result.code == 2 and "file not found" in result.err
    (tmp_path / "d.xlsx").mkdir()
    result = run_cli("template", "--out", tmp_path / "d.xlsx")
    assert result.code in (2, 3) and "directory" in result.err
    assert not (tmp_path / "a.xlsx").exists()


def test_cli_failed_export_keeps_the_old_file(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "inputs.xlsx"
    out.write_bytes(b"previous")

    def broken(self: Any, filename: Any) -> None:
        Path(filename).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(openpyxl.Workbook, "save", broken)
    assert run_cli("template", "--out", out).code == 3
    assert out.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs.xlsx"]


def test_validate_accepts_a_workbook(run_cli, baseline_book: Path, tmp_path: Path) -> None:
    assert run_cli("validate", baseline_book).code == 0
    bad = tmp_path / "bad.xlsx"
    shutil.copy(baseline_book, bad)
    _edit(bad, "inference", 3, "cache_hit_rate", "half")
    assert run_cli("validate", bad).code == 2


def test_readme_reads_units_fills_and_site_defaults_from_the_schema() -> None:
    rows = {
        (r[0], r[1]): r[2:4]
        for r in build_template()[README_SHEET].iter_rows(values_only=True)
        if r[1]
    }
    kind, _ = rows[("sites", "power_cap_mw")]
    assert kind.endswith("; unit: MW (facility, IT × PUE); blank years hold the last given value")
    assert rows[("sites", "pue")] == ("number; unit: facility power / IT power", "finance.pue")
    kind, _ = rows[("inference", "tokens_per_day")]
    assert kind.endswith("blank years grow geometrically between given years")


def test_a_workbook_says_its_overrides_cell_is_not_applied_again(
    run_cli, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """power_constrained extends baseline with overrides: the workbook holds their result,
    and reading it warns (on stderr, through the ``planner`` logger) that the recorded
    cells are not applied again instead of ignoring them."""
    book = tmp_path / "pc.xlsx"
    scenarios = REPO / "scenarios"
    assert (
        run_cli("template", "--from", scenarios / "power_constrained.yaml", "--out", book).code == 0
    )
    with caplog.at_level("WARNING", logger="planner"):
        assert run_cli("validate", book).code == 0
    assert "overrides cells record where this scenario came from and are not applied again" in (
        caplog.text
    )
    caplog.clear()
    plain = tmp_path / "baseline.xlsx"
    assert run_cli("template", "--from", scenarios / "baseline.yaml", "--out", plain).code == 0
    with caplog.at_level("WARNING", logger="planner"):
        assert run_cli("validate", plain).code == 0
    assert "not applied again" not in caplog.text


def test_a_type_problem_does_not_hide_a_bad_reference(baseline_book: Path) -> None:
    """One pass, as for YAML files: a number typed as text in one workload and a typo
    in another section's reference are both reported, each at its cell."""
    _edit(baseline_book, "inference", 3, "cache_hit_rate", "half")
    _edit(baseline_book, "training", 2, "model", "llama-9")
    message = _error(baseline_book)
    assert "inference[1].cache_hit_rate" in message and "'half'" in message
    assert "training[0].model" in message  # before: only once the type problem was fixed
    col = openpyxl.utils.get_column_letter(
        _column(openpyxl.load_workbook(baseline_book)["training"], "model")
    )
    assert f"sheet 'training', row 2, column {col} (model)" in message
