"""Hostile input files: refused with exit 2 and a clear message, in bounded time and memory.

Each CLI case runs in a subprocess limited to 2 GiB of address space
(:data:`tests.hostile.harness.MEMORY_LIMIT`) and a timeout, and asserts exit 2, the
message, no traceback and every input file byte-identical afterwards. Covered: solver
names that are paths (YAML and workbook, relative and absolute), devices, links to
devices and FIFOs as scenario, ``extends:`` target, workbook, calibration and benchmark
CSV; a far cell and zip bombs in workbooks; quadratic and crashing ``overrides:``;
file contents leaking into messages; unknown spreadsheet suffixes; spreadsheet error
cells; the cap on listed problems; ``--vary`` with millions of values.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest
from harness import (
    BASELINE,
    assert_refused,
    planner,
    rewrite_zip,
    snapshot,
)

from planner import safe_io
from planner.analysis.params import MAX_RUNS, parse_vary
from planner.errors import InputError

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /dev, FIFOs")

SECRET = "hunter2-s3cr3t-value"
BENCH_HEADER = "hardware,model,precision,input_tokens,output_tokens,tokens_per_s_per_accelerator"


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A folder with a copy of the baseline; asserts afterwards that no file changed."""
    (tmp_path / "baseline.yaml").write_bytes(BASELINE.read_bytes())
    yield tmp_path


def _scenario(folder: Path, text: str, name: str = "s.yaml") -> Path:
    path = folder / name
    path.write_text("extends: baseline.yaml\n" + text, encoding="utf-8")
    return path


def _refused_unchanged(folder: Path, *args: str | Path, says: tuple[str, ...] = ()) -> str:
    before = snapshot(folder)
    result = planner(*args, cwd=folder)
    assert_refused(result, *says)
    assert snapshot(folder) == before
    return result.err


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The baseline as an assumptions workbook (written once for the module)."""
    path = tmp_path_factory.mktemp("book") / "baseline.xlsx"
    result = planner("template", "--from", BASELINE, "--out", path)
    assert result.code == 0, result.err
    return path


def _edited_book(book: Path, target: Path, sheet: str, cell: str, value: object) -> Path:
    wb = openpyxl.load_workbook(book)
    wb[sheet][cell] = value
    wb.save(target)
    return target


def _solver_name_cell(book: Path) -> str:
    # read-only workbooks hold their file open until closed: close it here, or the
    # garbage collector's ResourceWarning fails whichever test it lands in
    wb = openpyxl.load_workbook(book, read_only=True)
    try:
        for r, row in enumerate(wb["solver"].iter_rows(values_only=True), start=1):
            if row and row[0] == "name":
                return f"B{r}"
    finally:
        wb.close()
    raise AssertionError("no name row on the solver sheet")


# --- #1 solver names are registered names, never paths ------------------------------------


@pytest.mark.parametrize("name", ["./evil.sh", "evil.sh", "/bin/sh", "../s/evil.sh"])
def test_solver_path_in_yaml_is_refused(folder: Path, name: str) -> None:
    evil = folder / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {folder}/ran\n", encoding="utf-8")
    evil.chmod(0o755)
    scenario = _scenario(folder, f"solver: {{name: {name!r}}}\n")
    for command in ("validate", "run"):
        err = _refused_unchanged(
            folder,
            command,
            scenario,
            *(["--out", folder / "out.xlsx"] if command == "run" else []),
            says=("solver.name", "a registered solver name", "highs, highs-pyomo", "line 2"),
        )
        assert repr(name) in err
    assert not (folder / "ran").exists() and not (folder / "out.xlsx").exists()


@pytest.mark.parametrize("name", ["./evil.sh", "/bin/sh"])
def test_solver_path_in_workbook_is_refused(folder: Path, book: Path, name: str) -> None:
    path = _edited_book(book, folder / "inputs.xlsx", "solver", _solver_name_cell(book), name)
    _refused_unchanged(
        folder,
        "validate",
        path,
        says=("sheet 'solver', row", "solver.name", "a registered solver name", repr(name)),
    )


def test_registered_solver_names_are_accepted(folder: Path) -> None:
    result = planner("validate", _scenario(folder, "solver: {name: highs-pyomo}\n"), cwd=folder)
    assert result.code == 0, result.err


# --- #5 only regular files are read ---------------------------------------------------------


@pytest.fixture
def fifo(folder: Path) -> Path:
    path = folder / "pipe.yaml"
    os.mkfifo(path)
    return path


def test_device_as_scenario(folder: Path) -> None:
    _refused_unchanged(folder, "validate", "/dev/zero", says=("is a device", "regular files"))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("name", ["link.yaml", "link.xlsx"])
def test_link_to_device_as_scenario(folder: Path, device: str, name: str) -> None:
    (folder / name).symlink_to(device)
    _refused_unchanged(folder, "validate", folder / name, says=("is a device",))


def test_fifo_as_scenario_and_workbook(folder: Path, fifo: Path) -> None:
    _refused_unchanged(folder, "validate", fifo, says=("is a pipe (FIFO)",))
    (folder / "pipe.xlsx").symlink_to(fifo)
    _refused_unchanged(folder, "validate", folder / "pipe.xlsx", says=("is a pipe (FIFO)",))


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom", "pipe.yaml", "zero-link.yaml"])
def test_extends_a_special_file(folder: Path, fifo: Path, target: str) -> None:
    (folder / "zero-link.yaml").symlink_to("/dev/zero")
    path = folder / "s.yaml"
    path.write_text(f"extends: {target}\nname: x\n", encoding="utf-8")
    _refused_unchanged(folder, "validate", path, says=("only regular files are read",))


@pytest.mark.parametrize("command", ["calibrate", "perf-check"])
@pytest.mark.parametrize("target", ["/dev/zero", "link.csv", "pipe.yaml"])
def test_bench_csv_special_file(folder: Path, fifo: Path, command: str, target: str) -> None:
    (folder / "link.csv").symlink_to("/dev/urandom")
    extra = ["--out", folder / "c.yaml"] if command == "calibrate" else []
    _refused_unchanged(folder, command, target, *extra, says=("only regular files are read",))
    assert not (folder / "c.yaml").exists()


@pytest.mark.parametrize("target", ["/dev/zero", "pipe.yaml"])
def test_calibration_from_a_special_file(folder: Path, fifo: Path, target: str) -> None:
    path = _scenario(folder, f"calibration: {target}\n")
    _refused_unchanged(folder, "throughput", path, says=("only regular files are read",))


# --- #4 and #7: workbooks bounded in memory -------------------------------------------------


def test_far_cell_in_a_workbook(folder: Path, book: Path) -> None:
    path = _edited_book(book, folder / "far.xlsx", "series", "XFD1048576", 1)
    assert path.stat().st_size < 100_000
    result = planner("validate", path, cwd=folder)
    assert_refused(result, "sheet 'series'", "100,000")
    assert result.seconds < 60


def test_wide_row_in_a_workbook(folder: Path, book: Path) -> None:
    path = _edited_book(book, folder / "wide.xlsx", "hardware", "XFD2", 1)
    _refused_unchanged(folder, "validate", path, says=("sheet 'hardware'", "column XFD", "1,000"))


def test_zip_bomb_member(folder: Path, book: Path) -> None:
    path = rewrite_zip(book, folder / "bomb.xlsx", {"xl/media/zeros.bin": bytes(150_000_000)})
    assert path.stat().st_size < 1_000_000
    _refused_unchanged(folder, "validate", path, says=("unpacks to", "100,000,000"))


def test_zip_member_inflating_too_much(folder: Path, book: Path) -> None:
    path = rewrite_zip(book, folder / "ratio.xlsx", {"xl/media/zeros.bin": bytes(20_000_000)})
    _refused_unchanged(folder, "validate", path, says=("inflates", "zip bomb"))


def test_zip_with_too_many_parts(folder: Path, book: Path) -> None:
    parts = {f"xl/media/{i}.bin": b"" for i in range(1_001)}
    path = rewrite_zip(book, folder / "parts.xlsx", parts)
    _refused_unchanged(folder, "validate", path, says=("1,0", "parts; at most 1,000"))


def test_workbook_error_cell_gets_the_right_hint(folder: Path, book: Path) -> None:
    wb = openpyxl.load_workbook(book)
    sheet = wb["finance"]
    row = next(r for r in range(1, sheet.max_row + 1) if sheet.cell(r, 1).value == "wacc")
    sheet.cell(row, 2).value = "#DIV/0!"
    wb.save(folder / "div.xlsx")
    err = _refused_unchanged(
        folder, "validate", folder / "div.xlsx", says=("spreadsheet error #DIV/0!", "formula")
    )
    assert "apostrophe" not in err


# --- unknown suffixes -----------------------------------------------------------------------


def test_xlsm_is_not_read_as_yaml(folder: Path, book: Path) -> None:
    (folder / "macros.xlsm").write_bytes(book.read_bytes())
    _refused_unchanged(folder, "validate", folder / "macros.xlsm", says=(".xlsm", ".xlsx"))


def test_zip_named_yaml(folder: Path, book: Path) -> None:
    (folder / "book.yaml").write_bytes(book.read_bytes())
    _refused_unchanged(folder, "validate", folder / "book.yaml", says=("zip archive", "*.xlsx"))


# --- #9 and #13: overrides ------------------------------------------------------------------


def test_many_overrides_take_linear_time(folder: Path) -> None:
    entries = "".join(f"  vendor_share_max.v{i}: 0.9\n" for i in range(6_000))
    path = _scenario(folder, "vendor_share_max: {NVIDIA: 1.0}\noverrides:\n" + entries)
    result = planner("validate", path, cwd=folder)
    assert_refused(result, "line 4: vendor_share_max.v0", "and 5,950 more")
    assert result.seconds < 30  # 60 s when each override copied the whole document


@pytest.mark.parametrize(
    "override, says",
    [
        ("sites[texas].name: dc2", ("existing_fleet[0].site: names a site", "one of: dc2")),
        ("sites[texas].name: null", ("sites[0].name", "invalid value")),
        ("sites[texas]: null", ("sites[0]", "invalid value")),
        ("sites[0]: 5", ("sites[0]", "invalid value")),
    ],
)
def test_override_renaming_or_nulling_an_item(folder: Path, override: str, says: tuple) -> None:
    path = _scenario(folder, f"overrides:\n  {override}\n")
    _refused_unchanged(folder, "validate", path, says=says)


def test_rename_override_that_keeps_references_is_valid(folder: Path) -> None:
    text = "overrides:\n  finance.wacc: 0.09\n  sites[texas].electricity_usd_per_kwh: 0.07\n"
    result = planner("validate", _scenario(folder, text), cwd=folder)
    assert result.code == 0, result.err


# --- #16 no file contents in messages --------------------------------------------------------


@pytest.fixture
def secrets(folder: Path) -> Path:
    path = folder / "shadow"
    path.write_text(f"root:{SECRET}:19000:0:99999:7:::\napi_key: {SECRET}\n", encoding="utf-8")
    (folder / "secrets.yaml").write_text(
        f"api_key: {SECRET}\ntoken: [{SECRET}]\n", encoding="utf-8"
    )
    return path


def test_calibration_of_a_secrets_file(folder: Path, secrets: Path) -> None:
    path = _scenario(folder, "calibration: shadow\n")
    err = _refused_unchanged(folder, "throughput", path, says=("is not a calibration file",))
    assert SECRET not in err and "19000" not in err


@pytest.mark.parametrize("target", ["shadow", "secrets.yaml"])
def test_extends_a_secrets_file(folder: Path, secrets: Path, target: str) -> None:
    path = folder / "s.yaml"
    path.write_text(f"extends: {target}\nname: x\n", encoding="utf-8")
    err = _refused_unchanged(folder, "validate", path, says=("is not a scenario file",))
    assert SECRET not in err and "api_key" not in err


def test_secrets_file_as_benchmarks(folder: Path, secrets: Path) -> None:
    err = _refused_unchanged(folder, "perf-check", secrets, says=("is not a benchmark CSV",))
    assert SECRET not in err and BENCH_HEADER.replace(",", ", ") in err


# --- the number of problems listed ----------------------------------------------------------


def test_sixty_thousand_bad_rows_list_fifty(folder: Path) -> None:
    rows = "".join(f"h100-hgx,llama-2-70b,fp8,300,290,bad{i}\n" for i in range(60_000))
    (folder / "bench.csv").write_text(BENCH_HEADER + "\n" + rows, encoding="utf-8")
    err = _refused_unchanged(
        folder, "perf-check", "bench.csv", says=("60000 problem(s)", "and 59,950 more problem(s)")
    )
    assert err.count("bench.csv, line") == 50


# --- analysis parameters bounded while parsing -----------------------------------------------


def test_vary_with_millions_of_values(folder: Path) -> None:
    result = planner("sweep", BASELINE, "--vary", "finance.wacc=0:1:10000000", cwd=folder)
    assert_refused(result, "--vary", "10,000,000 values", "10,000,001 runs", "at most 100,000")
    assert result.seconds < 60


def test_values_counted_before_they_are_built() -> None:
    too_many = "finance.wacc=" + ",".join(["0.1"] * (MAX_RUNS + 1))  # longer than argv allows
    with pytest.raises(InputError, match="100,001 values"):
        parse_vary(too_many)
    assert len(parse_vary("finance.wacc=" + ",".join(["0.1"] * MAX_RUNS)).values) == MAX_RUNS


# --- the one reader ---------------------------------------------------------------------------


def test_reader_stops_at_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"a" * 10)
    assert safe_io.read_bytes(path, limit=10) == b"a" * 10
    with pytest.raises(InputError, match="larger than 9 bytes"):
        safe_io.read_bytes(path, limit=9)
    with pytest.raises(InputError, match="is a directory"):
        safe_io.read_bytes(tmp_path, limit=10)
    with pytest.raises(InputError, match="is a device"):
        safe_io.read_bytes("/dev/zero", limit=10)  # st_size 0: refused by kind, not size


def test_reader_refuses_binary_and_non_utf8(tmp_path: Path) -> None:
    (tmp_path / "b").write_bytes(b"x\x00y")
    (tmp_path / "l").write_bytes(b"caf\xe9")
    with pytest.raises(InputError, match="binary file"):
        safe_io.read_text(tmp_path / "b", limit=100)
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 3\)"):
        safe_io.read_text(tmp_path / "l", limit=100)
    (tmp_path / "bom").write_bytes(b"\xef\xbb\xbfname: x\n")
    assert safe_io.read_text(tmp_path / "bom", limit=100) == "name: x\n"
