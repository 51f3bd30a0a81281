"""Injection-safe cells, sheet layout helpers and atomic saves."""

from __future__ import annotations

import errno
import math
import os
import socket
import stat
import subprocess
from pathlib import Path

import openpyxl
import pytest
from libreoffice import recalculated, require_soffice
from openpyxl.workbook import Workbook

from planner.errors import ExportError
from planner.export import atomic, cells

INJECTIONS = [
    "=SUM(A1:A2)",
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(1,2)",
    "\t=1+1",
    "\r=1+1",
    "\n=1+1",
    "=",
    "#N/A",
    "#REF!",
]


def _reload(wb: Workbook, path: Path) -> Workbook:
    wb.save(path)
    return openpyxl.load_workbook(path)


# ------------------------------------------------------------------ injection


def test_user_text_never_becomes_a_formula(tmp_path: Path) -> None:
    wb = Workbook()
    for row, text in enumerate(INJECTIONS, start=1):
        cells.write_text(wb.active.cell(row=row, column=1), text)
    ws = _reload(wb, tmp_path / "inj.xlsx").active
    for row, text in enumerate(INJECTIONS, start=1):
        cell = ws.cell(row=row, column=1)
        expected = text.replace("\r", "\n")  # XML readers turn a bare CR into LF
        assert cell.data_type == "s", text
        assert cell.value == expected, text
        assert cell.quotePrefix == text.startswith(("=", "+", "-", "@", "\t", "\r", "\n"))


def test_plain_text_is_unchanged_and_has_no_quote_prefix(tmp_path: Path) -> None:
    wb = Workbook()
    for row, text in enumerate(["chat", " leading space", "a\nb", "naïve — ü", "2026"], 1):
        cells.write_text(wb.active.cell(row=row, column=1), text)
    ws = _reload(wb, tmp_path / "plain.xlsx").active
    values = [ws.cell(row=r, column=1).value for r in range(1, 6)]
    assert values == ["chat", " leading space", "a\nb", "naïve — ü", "2026"]
    assert not any(ws.cell(row=r, column=1).quotePrefix for r in range(1, 6))


def test_text_excel_cannot_hold_is_cleaned() -> None:
    cell = Workbook().active["A1"]
    cells.write_text(cell, "a\x00b\x07c")
    assert cell.value == "abc"
    cells.write_text(cell, "x" * 40_000)
    assert len(cell.value) == cells.MAX_CELL_TEXT
    cells.write_text(cell, None)
    assert cell.value == "" and cell.data_type == "s"


def test_injected_text_stays_text_in_libreoffice(tmp_path: Path) -> None:
    require_soffice()
    (tmp_path / "in").mkdir()
    wb = Workbook()
    wb.active["B1"] = 5
    for row, text in enumerate(["=B1*2", "+B1", "-B1", "@B1"], start=1):
        cells.write_text(wb.active.cell(row=row, column=1), text)
    wb.save(tmp_path / "in" / "inj.xlsx")
    ws = recalculated(tmp_path / "in" / "inj.xlsx", tmp_path / "out").active
    assert [ws.cell(row=r, column=1).value for r in range(1, 5)] == ["=B1*2", "+B1", "-B1", "@B1"]


# ------------------------------------------------------------------ numbers and formulas


def test_write_number_and_formula(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    cells.write_number(ws["A1"], 1234.5, cells.USD)
    cells.write_number(ws["A2"], 3)
    cells.write_number(ws["A3"], math.nan)
    cells.write_formula(ws["A4"], "=SUM(A1:A2)", cells.USD)
    cells.write_value(ws["A5"], True)
    ws = _reload(wb, tmp_path / "n.xlsx").active
    assert ws["A1"].value == 1234.5 and ws["A1"].number_format == "$#,##0"
    assert ws["A2"].value == 3 and ws["A3"].value is None
    assert ws["A4"].data_type == "f" and ws["A4"].value == "=SUM(A1:A2)"
    assert ws["A5"].value is True


def test_write_number_rejects_non_numbers_and_formula_needs_equals() -> None:
    cell = Workbook().active["A1"]
    for bad in (True, "5", None):
        with pytest.raises(TypeError):
            cells.write_number(cell, bad)
    with pytest.raises(ValueError):
        cells.write_formula(cell, "SUM(A1)")


def test_number_formats() -> None:
    assert cells.USD == "$#,##0"
    assert cells.PCT == "0.0%"
    assert cells.THOUSANDS == "#,##0"
    assert cells.USD_PER_MTOK == "0.00"


# ------------------------------------------------------------------ sheet titles and tables


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Demand vs served", "Demand vs served"),
        ("a/b\\c:d*e?f[g]h", "a_b_c_d_e_f_g_h"),
        ("x" * 40, "x" * 31),
        ("'quoted'", "quoted"),
        ("", "Sheet"),
        ("History", "History_"),
        ("tab\there", "tab_here"),
    ],
)
def test_safe_sheet_title(name: str, expected: str) -> None:
    assert cells.safe_sheet_title(name) == expected


def test_safe_sheet_title_is_unique_and_short() -> None:
    taken = ["Fleet", "Shadow prices by constraint fam"]
    assert cells.safe_sheet_title("fleet", taken) == "fleet (2)"
    assert cells.safe_sheet_title("Fleet", [*taken, "fleet (2)"]) == "Fleet (3)"
    title = cells.safe_sheet_title("Shadow prices by constraint family", taken)
    assert len(title) <= 31 and title.endswith(" (2)")
    wb = Workbook()
    titles = [cells.add_sheet(wb, "Costs: 2026/2031").title for _ in range(3)]
    assert titles == ["Costs_ 2026_2031", "Costs_ 2026_2031 (2)", "Costs_ 2026_2031 (3)"]


def test_table_names_are_valid_and_unique() -> None:
    assert cells.table_name("Demand vs served") == "Demand_vs_served"
    assert cells.table_name("2026 fleet") == "T_2026_fleet"
    assert cells.table_name("A1") == "T_A1"
    assert cells.table_name("R") == "T_R"
    assert cells.table_name("fleet", ["Fleet", "fleet_2"]) == "fleet_3"


def test_add_table_fixes_headers_and_registers(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "Fleet"
    ws.append(["year", "year", None, 2026])
    ws.append([2026, 1, 2, 3])
    cells.add_table(ws, "A1:D2", "Fleet")
    other = wb.create_sheet("Fleet 2")
    other.append(["only header"])
    table = cells.add_table(other, "A1:A1", "Fleet")
    assert table.ref == "A1:A2"
    cells.style_header_row(ws, 1, 4)
    cells.freeze_header(ws)
    cells.autofit_columns(ws, min_width=8, max_width=20)
    back = _reload(wb, tmp_path / "t.xlsx")
    assert [c.value for c in back["Fleet"][1]] == ["year", "year (2)", "Column3", "2026"]
    assert set(back["Fleet"].tables) == {"Fleet"}
    assert set(back["Fleet 2"].tables) == {"Fleet_2"}
    assert back["Fleet"].freeze_panes == "A2"
    assert back["Fleet"]["A1"].font.b
    widths = [back["Fleet"].column_dimensions[c].width for c in "ABCD"]
    assert all(8 <= w <= 20 for w in widths)


# ------------------------------------------------------------------ atomic saves


def _no_temp_files(folder: Path) -> bool:
    return [p.name for p in folder.iterdir() if p.name.startswith(".")] == []


def _workbook() -> Workbook:
    wb = Workbook()
    cells.write_text(wb.active["A1"], "new")
    return wb


def test_save_writes_a_workbook_with_usual_permissions(tmp_path: Path) -> None:
    target = atomic.save_workbook_atomically(_workbook(), tmp_path / "a" / "b" / "out.xlsx")
    assert openpyxl.load_workbook(target).active["A1"].value == "new"
    assert _no_temp_files(target.parent)
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_existing_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.xlsx"
    target.write_bytes(b"old")
    target.chmod(0o640)
    atomic.save_workbook_atomically(_workbook(), target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_failure_midway_leaves_the_old_file_byte_identical(tmp_path: Path) -> None:
    target = tmp_path / "out.xlsx"
    atomic.save_workbook_atomically(_workbook(), target)
    before = target.read_bytes()
    wb = _workbook()

    def broken_save(path: Path) -> None:
        Path(path).write_bytes(b"PK\x03\x04 half a zip")
        raise RuntimeError("disk exploded")

    wb.save = broken_save  # type: ignore[method-assign]
    with pytest.raises(ExportError) as info:
        atomic.save_workbook_atomically(wb, target)
    assert "disk exploded" in str(info.value) and str(target) in str(info.value)
    assert target.read_bytes() == before
    assert _no_temp_files(tmp_path)


def test_disk_full_is_reported(tmp_path: Path) -> None:
    target = tmp_path / "out.xlsx"
    target.write_bytes(b"old")

    def full(path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(ExportError, match="disk full"):
        atomic.write_atomically(target, full)
    assert target.read_bytes() == b"old" and _no_temp_files(tmp_path)


def test_rename_refused_is_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.xlsx"
    target.write_bytes(b"old")

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(ExportError, match="permission denied") as info:
        atomic.save_workbook_atomically(_workbook(), target)
    assert info.value.exit_code == 3
    assert target.read_bytes() == b"old" and _no_temp_files(tmp_path)


def test_unwritable_folder_is_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic.tempfile, "NamedTemporaryFile", refuse)
    with pytest.raises(ExportError, match=r"permission denied: cannot write in folder"):
        atomic.save_workbook_atomically(_workbook(), tmp_path / "out.xlsx")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder_for_real(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(ExportError, match="permission denied"):
            atomic.save_workbook_atomically(_workbook(), folder / "out.xlsx")
    finally:
        folder.chmod(0o700)


def test_path_that_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="is a directory"):
        atomic.save_workbook_atomically(_workbook(), tmp_path)


def test_folder_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportError, match="cannot create folder"):
        atomic.save_workbook_atomically(_workbook(), tmp_path / "file" / "out.xlsx")


def test_interrupt_cleans_up_and_propagates(tmp_path: Path) -> None:
    def interrupted(path: Path) -> None:
        path.write_bytes(b"partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic.write_atomically(tmp_path / "out.csv", interrupted)
    assert list(tmp_path.iterdir()) == []


def test_temp_file_is_named_after_the_target_and_sits_beside_it(tmp_path: Path) -> None:
    seen: list[Path] = []
    atomic.write_atomically(tmp_path / "plot.png", lambda p: seen.append(p) or p.write_bytes(b"x"))
    assert seen[0].parent == tmp_path and seen[0].suffix == ".tmp"
    assert seen[0].name.startswith(f".plot.png.{os.getpid()}-")
    assert (tmp_path / "plot.png").read_bytes() == b"x"


def _ended_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_temp_files_of_killed_writes_are_removed_and_no_others(tmp_path: Path) -> None:
    dead = _ended_pid()
    stale = tmp_path / f".plan.xlsx.{dead}-k1ll3d_.tmp"
    running = tmp_path / f".plan.xlsx.{os.getppid()}-st1ll.tmp"
    unrelated = [
        tmp_path / f".plan.xlsx.{dead}-x.tmp.bak",  # not a name this module makes
        tmp_path / f".plan.xlsx.old.{dead}-x.tmp",  # another target's (plan.xlsx.old)
        tmp_path / f".plan.xlsxx.{dead}-x.tmp",
    ]
    for path in (stale, running, *unrelated):
        path.write_bytes(b"PK")
    (tmp_path / f".plan.xlsx.{dead}-link.tmp").symlink_to(tmp_path / "keep.txt")
    (tmp_path / "keep.txt").write_text("keep")
    atomic.write_atomically(tmp_path / "plan.xlsx", lambda p: p.write_bytes(b"new"))
    assert not stale.exists() and running.exists() and all(p.exists() for p in unrelated)
    assert (tmp_path / f".plan.xlsx.{dead}-link.tmp").is_symlink()
    assert (tmp_path / "plan.xlsx").read_bytes() == b"new"


def test_a_name_near_the_limit_still_gets_a_temp_file(tmp_path: Path) -> None:
    target = tmp_path / ("p" * 250 + ".csv")
    assert atomic.write_atomically(target, lambda p: p.write_text("x")).read_text() == "x"
    with pytest.raises(ExportError, match="file name is too long") as refused:
        atomic.write_atomically(tmp_path / ("p" * 260 + ".csv"), lambda p: p.write_text("x"))
    assert refused.value.exit_code == 2


@pytest.mark.parametrize("kind", ["symlink", "fifo", "socket", "directory"])
def test_check_target_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out.csv"
    server = None
    if kind == "symlink":
        (tmp_path / "real.csv").write_text("old")
        target.symlink_to("real.csv")
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(target))
    else:
        target.mkdir()
    try:
        with pytest.raises(ExportError) as refused:
            atomic.write_atomically(target, lambda p: p.write_text("new"))
    finally:
        if server is not None:
            server.close()
    assert refused.value.exit_code == 2
    word = {"symlink": "symbolic link", "fifo": "FIFO", "socket": "socket"}.get(kind, "directory")
    assert word in str(refused.value)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    if kind == "symlink":
        assert (tmp_path / "real.csv").read_text() == "old" and target.is_symlink()
