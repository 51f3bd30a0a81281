"""The LibreOffice helper recalculates formulas that openpyxl wrote without values."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from libreoffice import (
    ERROR_VALUES,
    REGISTRY,
    SKIP_REASON,
    error_cells,
    find_soffice,
    make_profile,
    recalculate,
    recalculated,
    require_soffice,
)


def _workbook(path: Path, wacc: float = 0.1) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Costs"
    ws["A1"], ws["B1"] = "wacc", wacc
    for row, (year, cost) in enumerate([(1, 100.0), (2, 250.0), (3, 400.0)], start=2):
        ws.cell(row=row, column=1, value=year)
        ws.cell(row=row, column=2, value=cost)
        ws.cell(row=row, column=3, value=f"=1/(1+$B$1)^A{row}")
        ws.cell(row=row, column=4, value=f"=B{row}*C{row}")
    ws["B5"] = "=SUM(B2:B4)"
    ws["D5"] = "=SUM(D2:D4)"
    other = wb.create_sheet("Other sheet")
    other["A1"] = "='Costs'!D5*2"
    wb.save(path)
    return path


def test_formulas_have_no_values_before_recalculation(tmp_path: Path) -> None:
    path = _workbook(tmp_path / "book.xlsx")
    assert openpyxl.load_workbook(path, data_only=True)["Costs"]["B5"].value is None


def test_profile_sets_always_recalculate(tmp_path: Path) -> None:
    profile = make_profile(tmp_path / "profile")
    text = (profile / "user" / "registrymodifications.xcu").read_text()
    assert text == REGISTRY
    assert '"/org.openoffice.Office.Calc/Formula/Load"' in text
    assert 'oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value>' in text


def test_recalculated_values(tmp_path: Path) -> None:
    require_soffice()
    (tmp_path / "in").mkdir()
    source = _workbook(tmp_path / "in" / "book.xlsx")
    wb = recalculated(source, tmp_path / "out")
    ws = wb["Costs"]
    assert ws["B5"].value == pytest.approx(750.0, rel=1e-12)
    factors = [1 / 1.1**t for t in (1, 2, 3)]
    for row, factor in enumerate(factors, start=2):
        assert ws.cell(row=row, column=3).value == pytest.approx(factor, rel=1e-12)
    npv = sum(c * f for c, f in zip((100.0, 250.0, 400.0), factors, strict=True))
    assert ws["D5"].value == pytest.approx(npv, rel=1e-12)
    assert wb["Other sheet"]["A1"].value == pytest.approx(2 * npv, rel=1e-12)
    assert error_cells(wb) == []


def test_changed_input_moves_the_result(tmp_path: Path) -> None:
    require_soffice()
    (tmp_path / "in").mkdir()
    source = _workbook(tmp_path / "in" / "book.xlsx", wacc=0.05)
    ws = recalculated(source, tmp_path / "out")["Costs"]
    npv = sum(c / 1.05**t for t, c in ((1, 100.0), (2, 250.0), (3, 400.0)))
    assert ws["D5"].value == pytest.approx(npv, rel=1e-12)


def test_errors_are_reported(tmp_path: Path) -> None:
    require_soffice()
    (tmp_path / "in").mkdir()
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=1/0"
    wb.active["A2"] = "=NOSUCHFUNCTION(1)"
    wb.save(tmp_path / "in" / "bad.xlsx")
    found = error_cells(recalculated(tmp_path / "in" / "bad.xlsx", tmp_path / "out"))
    assert found[0] == "Sheet!A1 = #DIV/0!"
    assert len(found) == 2 and found[1].split(" = ")[1] in ERROR_VALUES


def test_skip_reason_names_libreoffice() -> None:
    assert "LibreOffice" in SKIP_REASON and "soffice" in SKIP_REASON
    assert find_soffice() is None or Path(find_soffice() or "").name in ("soffice", "libreoffice")


def _set_cached_input(path: Path, target: Path, cell: str, value: float) -> None:
    """Copy an xlsx, changing one number cell in the XML and keeping stale formula results."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(target, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                text, n = re.subn(
                    rf'(<c r="{cell}"[^>]*><v>)[^<]*(</v>)', rf"\g<1>{value}\g<2>", data.decode()
                )
                assert n == 1
                data = text.encode()
            dst.writestr(info, data)


def test_cached_values_are_recalculated(tmp_path: Path) -> None:
    """A file that already has (stale) results is recalculated: OOXMLRecalcMode = 0."""
    require_soffice()
    (tmp_path / "in").mkdir()
    first = recalculate(_workbook(tmp_path / "in" / "book.xlsx"), tmp_path / "first")
    (tmp_path / "edited").mkdir()
    edited = tmp_path / "edited" / "book.xlsx"
    _set_cached_input(first, edited, "B1", 0.05)
    stale = openpyxl.load_workbook(edited, data_only=True)["Costs"]
    assert stale["B1"].value == 0.05 and stale["C2"].value == pytest.approx(1 / 1.1)
    ws = recalculated(edited, tmp_path / "second")["Costs"]
    assert ws["C2"].value == pytest.approx(1 / 1.05, rel=1e-12)
