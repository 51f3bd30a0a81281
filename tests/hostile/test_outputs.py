"""What commands run and write, on hostile or careless input: refused cleanly, nothing lost.

Every case runs the real CLI in a subprocess with an address-space limit
(:data:`harness.MEMORY_LIMIT`) and a timeout (a FIFO must not hang it), and asserts the exit
code, a clear message, no traceback, and that every file in the working folder — the
inputs, and any link, device, FIFO or socket named as an output — is exactly as before
(:func:`snapshot`: kind, link target, device number or SHA-256 of each entry).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from harness import Finished
from harness import planner as run_planner

from planner.analysis.report import write_runs_table
from planner.cli.common import printable
from planner.export import atomic
from planner.export.cells import csv_safe, csv_text
from planner.export.charts import CHARTS

REPO = Path(__file__).resolve().parents[2]
SMALL = REPO / "tests" / "scenarios" / "one_hardware_one_year.yaml"
BENCH = REPO / "tests" / "data" / "mlperf-inference-v4.1.csv"
RUN_TIMEOUT_S = 120.0
SWEEP = ("--vary", "finance.wacc=0.08,0.1", "--workers", "0", "--no-progress")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX files")


def planner(*args: object, cwd: Path) -> Finished:
    """Run ``planner ARGS`` in ``cwd`` under the memory limit and timeout."""
    return run_planner(*args, cwd=cwd, timeout_s=RUN_TIMEOUT_S)


def _entry(path: Path) -> tuple[str, object]:
    status = os.lstat(path)
    mode = status.st_mode
    if stat.S_ISLNK(mode):
        return "link", os.readlink(path)
    if stat.S_ISREG(mode):
        return "file", hashlib.sha256(path.read_bytes()).hexdigest()
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device", status.st_rdev
    if stat.S_ISDIR(mode):
        return "dir", None
    return "special", stat.S_IFMT(mode)


def snapshot(folder: Path) -> dict[str, tuple[str, object]]:
    """Every entry under ``folder`` (links not followed): kind and content identity."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = Path(root) / name
            out[str(path.relative_to(folder))] = _entry(path)
    return out


def assert_refused(result: Finished, *words: str) -> None:
    """Exit 2, the ``words`` in the message (case-insensitive), no traceback."""
    assert result.code == 2, (result.code, result.err[-2000:])
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    message = result.err.lower()
    for word in words:
        assert word.lower() in message, (word, result.err[-2000:])


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A folder holding the small scenario as s.yaml and a benchmark CSV."""
    shutil.copy(SMALL, tmp_path / "s.yaml")
    shutil.copy(BENCH, tmp_path / "bench.csv")
    return tmp_path


@pytest.fixture
def book(work: Path) -> Iterator[Path]:
    """``book.xlsx``: the assumptions workbook of s.yaml."""
    made = planner("template", "--from", "s.yaml", "--out", "book.xlsx", cwd=work)
    assert made.code == 0, made.err
    yield work / "book.xlsx"


# --- 1: only registered solvers are ever run ------------------------------------------


def _evil(folder: Path) -> Path:
    script = folder / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {folder / 'RAN'}\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_a_solver_path_in_a_yaml_scenario_is_never_run(work: Path, absolute: bool) -> None:
    script = _evil(work)
    name = str(script) if absolute else "./evil.sh"
    text = (work / "s.yaml").read_text()
    (work / "s.yaml").write_text(text.replace("solver: {", f"solver: {{name: '{name}', "))
    before = snapshot(work)
    result = planner("run", "s.yaml", "--out", "plan.xlsx", cwd=work)
    assert_refused(result, "solver.name", "highs")
    assert not (work / "RAN").exists()
    assert snapshot(work) == before


def test_a_solver_path_on_the_workbook_solver_sheet_is_never_run(book: Path) -> None:
    script = _evil(book.parent)
    wb = openpyxl.load_workbook(book)
    sheet = wb["solver"]
    row = next(r for r in range(1, sheet.max_row + 1) if sheet.cell(r, 1).value == "name")
    sheet.cell(row, 2).value = str(script)
    wb.save(book)
    before = snapshot(book.parent)
    result = planner("run", book.name, "--out", "plan.xlsx", cwd=book.parent)
    assert_refused(result, "solver.name")
    assert not (book.parent / "RAN").exists()
    assert snapshot(book.parent) == before


@pytest.mark.parametrize("name", ["/bin/sh", "./evil.sh", "\x1b[2Jcbc"])
def test_the_solver_option_takes_only_registered_names(work: Path, name: str) -> None:
    _evil(work)
    before = snapshot(work)
    result = planner("run", "s.yaml", "--solver", name, "--out", "plan.xlsx", cwd=work)
    assert_refused(result, "--solver", "is not one of", "'highs'")
    assert "\x1b" not in result.err
    assert not (work / "RAN").exists() and snapshot(work) == before


# --- 2: no output over an input ---------------------------------------------------------


def test_running_an_exported_workbook_never_writes_over_it(work: Path) -> None:
    """The README's own sequence: the default plan name gets a -plan tag."""
    (work / "scenarios").mkdir()
    shutil.copy(SMALL, work / "scenarios" / "baseline.yaml")
    made = planner(
        "template",
        "--from",
        "scenarios/baseline.yaml",
        "--out",
        "exports/baseline.xlsx",
        cwd=work,
    )
    assert made.code == 0, made.err
    edited = (work / "exports" / "baseline.xlsx").read_bytes()
    result = planner("run", "exports/baseline.xlsx", "--format", "json", cwd=work)
    assert result.code == 0, result.err
    assert (work / "exports" / "baseline.xlsx").read_bytes() == edited
    assert "wrote exports/baseline-plan.xlsx" in result.err
    assert (
        openpyxl.load_workbook(work / "exports" / "baseline-plan.xlsx").sheetnames[0]
        != (openpyxl.load_workbook(work / "exports" / "baseline.xlsx").sheetnames[0])
    )


def _extends(work: Path) -> None:
    """child.yaml extends base.xlsx, a YAML scenario under a workbook's name."""
    shutil.move(work / "s.yaml", work / "base.xlsx")
    (work / "child.yaml").write_text("extends: base.xlsx\nname: child\n")


def _hard_link(work: Path) -> None:
    os.link(work / "book.xlsx", work / "hard.xlsx")


def _calibration(work: Path) -> None:
    made = planner("calibrate", "bench.csv", "--out", "cal.yaml", cwd=work)
    assert made.code == 0, made.err
    shutil.move(work / "cal.yaml", work / "cal.csv")
    text = (work / "s.yaml").read_text()  # its own `calibration: none` gives way
    lines = [line for line in text.splitlines() if not line.startswith("calibration:")]
    (work / "s.yaml").write_text("\n".join([*lines, "calibration: cal.csv", ""]))


@pytest.mark.parametrize(
    ("prepare", "args"),
    [
        (None, ("run", "book.xlsx", "--out", "book.xlsx")),
        (_hard_link, ("run", "book.xlsx", "--out", "hard.xlsx")),
        (None, ("template", "--from", "book.xlsx", "--out", "book.xlsx")),
        (None, ("compare", "s.yaml", "book.xlsx", "--out", "book.xlsx")),
        (None, ("vendors", "book.xlsx", "--out", "book.xlsx", "--workers", "0")),
        (None, ("sweep", "book.xlsx", *SWEEP, "--out", "book.xlsx")),
        (_extends, ("sweep", "child.yaml", *SWEEP, "--out", "base.xlsx")),
        (_calibration, ("sweep", "s.yaml", *SWEEP, "--table", "cal.csv")),
        (None, ("perf-check", "bench.csv", "--out", "bench.csv")),
    ],
    ids=[
        "run-out",
        "run-hard-link",
        "template-out",
        "compare-out",
        "vendors-out",
        "sweep-out",
        "sweep-out-extends",
        "sweep-table-calibration",
        "perf-check-out",
    ],
)
def test_an_output_that_is_an_input_is_refused_before_any_work(
    book: Path, prepare: object, args: tuple[str, ...]
) -> None:
    work = book.parent
    if callable(prepare):
        prepare(work)
    before = snapshot(work)
    result = planner(*args, cwd=work)
    assert_refused(result, "input of this command", "name another output")
    assert "solved in" not in result.err  # refused before the solve
    assert snapshot(work) == before


# --- 8: only regular files or new paths are written ------------------------------------


def _make(kind: str, path: Path) -> object:
    """A ``kind`` of file at ``path``; returns what keeps it alive (a socket)."""
    if kind == "symlink":
        (path.parent / "victim.txt").write_text("keep me")
        path.symlink_to("victim.txt")
    elif kind == "dangling-symlink":
        path.symlink_to("nowhere.xlsx")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        return server
    elif kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private /dev/null
        except PermissionError:
            pytest.skip("creating a device node needs CAP_MKNOD")
    return None


KINDS = ["symlink", "dangling-symlink", "fifo", "directory", "socket", "device"]


@pytest.mark.parametrize("kind", KINDS)
def test_run_out_refuses_anything_but_a_regular_file(work: Path, kind: str) -> None:
    keep = _make(kind, work / "plan.xlsx")
    before = snapshot(work)
    result = planner("run", "s.yaml", "--out", "plan.xlsx", cwd=work)
    word = "is a directory" if kind == "directory" else "regular files or new paths"
    assert_refused(result, word)
    assert snapshot(work) == before
    if isinstance(keep, socket.socket):
        keep.close()


@pytest.mark.parametrize(
    ("target", "args"),
    [
        ("t.xlsx", ("template", "--from", "s.yaml", "--out", "t.xlsx")),
        ("c.xlsx", ("compare", "s.yaml", "s.yaml", "--out", "c.xlsx")),
        ("w.xlsx", ("sweep", "s.yaml", *SWEEP, "--out", "w.xlsx")),
        ("t.csv", ("sweep", "s.yaml", *SWEEP, "--table", "t.csv")),
        ("p.csv", ("perf-check", "bench.csv", "--out", "p.csv")),
        ("c.yaml", ("calibrate", "bench.csv", "--out", "c.yaml")),
        (f"plots/{CHARTS[0].file}", ("run", "s.yaml", "--out", "plan.xlsx", "--plots", "plots")),
    ],
    ids=["template", "compare", "sweep-out", "sweep-table", "perf-check", "calibrate", "plots"],
)
@pytest.mark.parametrize("kind", ["symlink", "device"])
def test_every_output_flag_refuses_links_and_devices(
    work: Path, target: str, args: tuple[str, ...], kind: str
) -> None:
    if "--plots" in args:
        pytest.importorskip("matplotlib")
        (work / "plots").mkdir()
    keep = _make(kind, work / target)
    before = snapshot(work)
    result = planner(*args, cwd=work)
    assert_refused(result, "regular files or new paths")
    assert snapshot(work) == before
    if isinstance(keep, socket.socket):
        keep.close()


def test_a_write_checks_the_target_again_and_leaves_a_swapped_in_device_alone(
    tmp_path: Path,
) -> None:
    target = tmp_path / "plan.csv"

    def swap(temp: Path) -> None:
        temp.write_text("new")
        os.mkfifo(target)  # appears between the first check and the rename

    with pytest.raises(atomic.ExportError, match="FIFO") as refused:
        atomic.write_atomically(target, swap)
    assert refused.value.exit_code == 2
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["plan.csv"]


# --- 12: CSV outputs never carry a live formula ------------------------------------------


def test_perf_check_csv_neutralises_formulas_and_keeps_numbers(work: Path) -> None:
    lines = (work / "bench.csv").read_text().splitlines()
    cells = lines[1].split(",")
    cells[-1] = '"=HYPERLINK(""http://x"",""y"")"'
    cells[2] = "@fp8"
    (work / "bench.csv").write_text("\n".join([lines[0], ",".join(cells), lines[2]]) + "\n")
    result = planner("perf-check", "bench.csv", "--out", "checked.csv", cwd=work)
    assert result.code == 2 or result.code == 0, result.err
    if result.code == 2:  # @fp8 is not a precision: use a clean row for the rest
        assert "Traceback" not in result.err
        cells[2] = "fp8"
        (work / "bench.csv").write_text("\n".join([lines[0], ",".join(cells), lines[2]]) + "\n")
        result = planner("perf-check", "bench.csv", "--out", "checked.csv", cwd=work)
    assert result.code == 0, result.err
    frame = pd.read_csv(work / "checked.csv", keep_default_na=False)
    assert frame["source"][0] == '\'=HYPERLINK("http://x","y")'
    assert frame["tokens_per_s_per_accelerator"][0] == 3016.7


def test_throughput_csv_neutralises_formula_names(work: Path) -> None:
    text = (work / "s.yaml").read_text().replace("- name: chat", "- name: '=1+1'")
    (work / "s.yaml").write_text(text)
    result = planner("throughput", "s.yaml", "--only", "inference", "--format", "csv", cwd=work)
    assert result.code == 0, result.err
    first = result.out.splitlines()[1]
    assert first.startswith("'=1+1,h100-hgx,")


def test_the_tidy_runs_table_neutralises_text_and_keeps_numbers(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "label": ["=cmd|' /C calc'!A0", "+1+1", "-2", "@SUM(1)", "\tx", "plain"],
            "npv_usd": [-1.5, 2.0, -3.0, 4.0, 5.0, 7.0],
        }
    )
    written = write_runs_table(frame, tmp_path / "runs.csv")
    back = pd.read_csv(written, keep_default_na=False)
    assert back["label"].tolist() == [
        "'=cmd|' /C calc'!A0",
        "'+1+1",
        "-2",
        "'@SUM(1)",
        "'\tx",
        "plain",
    ]
    assert back["npv_usd"].tolist() == [-1.5, 2.0, -3.0, 4.0, 5.0, 7.0]


def test_csv_rule_is_the_workbook_rule_and_numbers_stay_numbers() -> None:
    assert [csv_text(t) for t in ("=1", "+a", "-a", "@a", "\ta", "\ra", "\na")] == [
        "'=1",
        "'+a",
        "'-a",
        "'@a",
        "'\ta",
        "'\ra",
        "'\na",
    ]
    assert [csv_text(v) for v in ("-12.5", "+3", "1e5", -4.0, 7, None, "a=b")] == [
        "-12.5",
        "+3",
        "1e5",
        -4.0,
        7,
        None,
        "a=b",
    ]
    frame = csv_safe(pd.DataFrame({"=h": ["=x"], "n": [-1.0]}))
    assert list(frame.columns) == ["'=h", "n"] and frame.iloc[0].tolist() == ["'=x", -1.0]
    assert frame["n"].dtype == float


# --- 15: nothing reaches the terminal as a control sequence -------------------------------

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[32mALL GOOD\x9b31m\u202e"


def test_names_with_escape_sequences_are_refused_and_shown_escaped(work: Path) -> None:
    """A name holding escape sequences is refused at validation (exit 2, with the field
    and the character, planner/text.py), and the refusal shows it escaped."""
    text = (work / "s.yaml").read_text()
    text = text.replace("name: one-hardware-one-year", 'name: "\\e]0;pwned\\a\\e[2J ALL GOOD"')
    text = text.replace("- name: chat", '- name: "chat\\e[31m\\x9b"')
    (work / "s.yaml").write_text(text)
    for args in (
        ("validate", "s.yaml"),
        ("throughput", "s.yaml"),
        ("validate", "s.yaml", "--format", "csv"),
    ):
        result = planner(*args, cwd=work)
        assert result.code == 2, result.err
        shown = result.out + result.err
        assert not any(c in shown for c in "\x1b\x07\x9b"), args
        assert "\\x1b]0;pwned\\x07\\x1b[2J ALL GOOD" in shown
        assert "inference[0].name" in shown and "U+001B (Cc)" in shown


def test_error_messages_show_escape_sequences_escaped(work: Path) -> None:
    text = (work / "s.yaml").read_text().replace("model: llama-3.1-8b", 'model: "x\\e[2J\\e[32mOK"')
    (work / "s.yaml").write_text(text)
    result = planner("validate", "s.yaml", cwd=work)
    assert result.code == 2 and "Traceback" not in result.err
    assert "\x1b" not in result.err and "\\x1b[2J\\x1b[32mOK" in result.err


def test_printable_escapes_c0_del_c1_and_bidi_but_keeps_tab_and_newline() -> None:
    assert printable(ESCAPES + "\t\n") == (
        "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32mALL GOOD\\x9b31m\\u202e\t\n"
    )
    assert printable("\x00\x7f\r") == "\\x00\\x7f\\x0d"
    assert printable("naïve — ü 中") == "naïve — ü 中"


# --- minor: clear exit 2 instead of internal errors or silent damage ----------------------


@pytest.mark.parametrize(
    "args",
    [
        ("run", "s.yaml", "--time-limit", "nan"),
        ("run", "s.yaml", "--mip-gap", "nan"),
        ("run", "s.yaml", "--time-limit", "inf"),
        ("price", "--input-usd-per-mtok", "nan", "--output-usd-per-mtok", "1"),
        (
            "crossover",
            "--model",
            "llama-3.1-8b",
            "--tokens-per-question",
            "nan",
            "--questions-per-day",
            "1",
        ),
    ],
    ids=["time-limit-nan", "mip-gap-nan", "time-limit-inf", "price-nan", "crossover-nan"],
)
def test_nan_and_infinite_options_are_refused(work: Path, args: tuple[str, ...]) -> None:
    result = planner(*args, cwd=work)
    assert_refused(result, "is not a finite number")


def test_an_over_long_output_name_is_refused(work: Path) -> None:
    before = snapshot(work)
    result = planner("run", "s.yaml", "--out", "p" * 300 + ".xlsx", cwd=work)
    assert_refused(result, "file name is too long")
    assert snapshot(work) == before


@pytest.mark.parametrize(
    "args",
    [
        ("run", "s.yaml", "--out", "plan.csv"),
        ("compare", "s.yaml", "s.yaml", "--out", "c.csv"),
        ("sweep", "s.yaml", *SWEEP, "--table", "t.xlsx"),
        ("perf-check", "bench.csv", "--out", "p.xlsx"),
        ("calibrate", "bench.csv", "--out", "c.json"),
    ],
    ids=["run", "compare", "sweep-table", "perf-check", "calibrate"],
)
def test_an_output_suffix_the_writer_does_not_produce_is_refused(
    work: Path, args: tuple[str, ...]
) -> None:
    before = snapshot(work)
    result = planner(*args, cwd=work)
    assert_refused(result, "must end in")
    assert snapshot(work) == before


def test_an_unwritable_output_folder_is_refused_before_the_solve(work: Path) -> None:
    (work / "blocker").write_text("a file, not a folder")
    before = snapshot(work)
    result = planner("run", "s.yaml", "--out", "blocker/plan.xlsx", cwd=work)
    assert_refused(result, "blocker is a file")
    assert "solved in" not in result.err
    assert snapshot(work) == before


def _dead_pid() -> int:
    """The id of a process that has ended."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_a_temp_file_left_by_a_killed_save_is_removed_by_the_next_write(work: Path) -> None:
    stale = work / f".plan.xlsx.{_dead_pid()}-abc123.tmp"
    stale.write_bytes(b"PK half a workbook")
    live = work / f".plan.xlsx.{os.getpid()}-live99.tmp"  # a save still running
    live.write_bytes(b"PK")
    other = work / f".other.xlsx.{_dead_pid()}-abc123.tmp"  # another target's
    other.write_bytes(b"PK")
    result = planner("run", "s.yaml", "--out", "plan.xlsx", cwd=work)
    assert result.code == 0, result.err
    assert not stale.exists() and live.exists() and other.exists()
    temps = sorted(p.name for p in work.iterdir() if p.name.endswith(".tmp"))
    assert temps == sorted([live.name, other.name])


def test_the_guard_compares_files_not_names(tmp_path: Path) -> None:
    source = tmp_path / "in.xlsx"
    source.write_bytes(b"x")
    os.link(source, tmp_path / "hard.xlsx")
    (tmp_path / "sub").mkdir()
    via_dots = tmp_path / "sub" / ".." / "in.xlsx"
    for target in (source, tmp_path / "hard.xlsx", via_dots):
        with pytest.raises(atomic.ExportError, match="input of this command") as refused:
            atomic.check_target(target, [source])
        assert refused.value.exit_code == 2
    assert atomic.check_target(tmp_path / "new.xlsx", [source]) == tmp_path / "new.xlsx"


# --- minor: export time linear in the number of hardware types ---------------------------


def test_pricing_the_throughput_sheet_resolves_the_hardware_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Resolving every type once per type made the workbook quadratic (2,000 types: 115 s)."""
    from planner.perf import throughput_tables
    from planner.scenario import load_scenario

    unit_cost = importlib.import_module("planner.economics.unit_cost")
    scenario = load_scenario(REPO / "scenarios" / "vendor_shootout.yaml")
    inference, _training = throughput_tables(scenario)
    calls: list[int] = []
    resolve = unit_cost.hardware_specs

    def counted(s: object) -> object:
        calls.append(1)
        return resolve(s)  # type: ignore[arg-type]

    monkeypatch.setattr(unit_cost, "hardware_specs", counted)
    priced = unit_cost.price_inference_table(scenario, inference, scenario.horizon.start)
    assert len(scenario.hardware) > 2 and len(calls) == 1
    assert priced["usd_per_accelerator_hour"].notna().all()
