"""A scenario folder cannot run its own program as the solver (issue 29, item 1).

``solver.name: cbc`` is on the allow-list, and Pyomo's own executable search looks in
the current directory first; the planner finds the program itself, by absolute path
from ``PATH`` only, and refuses one that others may write."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from planner.errors import SolverError
from planner.solver_programs import solver_executable

BASELINE = Path(__file__).resolve().parents[2] / "scenarios" / "baseline.yaml"


def _program(folder: Path, name: str, marker: Path, mode: int = 0o755) -> Path:
    """An executable ``name`` in ``folder`` that leaves ``marker`` behind when run."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f"#!/bin/sh\ntouch {marker}\necho 'cbc 2.10'\n")
    program.chmod(mode)
    return program


@pytest.fixture
def sent_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A folder someone sent: a scenario asking for cbc and a program called cbc,
    the current directory; PATH holds ``.``, an empty entry and a folder without cbc."""
    folder = tmp_path / "sent"
    marker = tmp_path / "ran"
    for name in ("cbc", "glpsol", "scip", "scipampl", "ipopt", "highs", "cplex", "gurobi.sh"):
        _program(folder, name, marker)
    text = BASELINE.read_text()
    assert "solver: {name: highs," in text
    text = text.replace("solver: {name: highs,", "solver: {name: cbc,")
    (folder / "scenario.yaml").write_text(text)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("PATH", os.pathsep.join([".", "", str(empty)]))
    return folder, marker


def test_a_program_in_the_current_directory_never_runs(
    sent_folder: tuple[Path, Path],
) -> None:
    _, marker = sent_folder
    with pytest.raises(SolverError, match="current directory are never run"):
        solver_executable("cbc")
    routes = (
        ["validate"],
        ["run"],  # the scenario's solver.name: cbc
        ["run", "--solver", "glpk"],
        ["run", "--solver", "scip"],
        ["sweep", "--vary", "finance.wacc=0.06,0.08"],
    )
    for command in routes:
        done = subprocess.run(
            [sys.executable, "-m", "planner", command[0], "scenario.yaml", *command[1:]],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if command == ["validate"]:
            assert done.returncode == 0, done.stderr
            assert "solver: cbc, no program will run" in done.stdout
        elif command[0] == "sweep":  # each run's error is recorded, none is solved
            assert "Traceback" not in done.stderr
            assert "never run" in done.stdout + done.stderr
        else:  # the solver's error, as a message: exit 3, no traceback
            assert done.returncode == 3, done.stderr
            assert "never run" in done.stderr and "Traceback" not in done.stderr
    assert not marker.exists()


def test_an_absolute_path_entry_that_is_the_current_directory_is_skipped(
    sent_folder: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, marker = sent_folder
    monkeypatch.setenv("PATH", str(folder))
    with pytest.raises(SolverError):
        solver_executable("cbc")
    assert not marker.exists()


def test_a_safe_program_on_path_is_named_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = _program(tmp_path / "opt" / "bin", "cbc", tmp_path / "ran")
    (tmp_path / "opt" / "bin").chmod(0o755)
    monkeypatch.setenv("PATH", str(installed.parent))
    assert solver_executable("cbc") == installed.resolve()
    assert solver_executable("highs") is None
    assert solver_executable("gurobi_direct") is None


@pytest.mark.parametrize(
    ("mode", "folder_mode", "why"),
    [
        (0o757, 0o755, "may be written by others"),
        (0o775, 0o755, "may be written by others"),
        (0o644, 0o755, "is not executable"),
        (0o755, 0o777, "is in a folder others may write"),
        (0o755, 0o1777, "is in a folder others may write"),  # sticky: others may add
        (0o755, 0o775, "is in a folder others may write"),  # its group may
    ],
)
def test_a_program_others_may_change_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int, folder_mode: int, why: str
) -> None:
    folder = tmp_path / "shared"
    _program(folder, "cbc", tmp_path / "ran", mode)
    folder.chmod(folder_mode)
    monkeypatch.setenv("PATH", str(folder))
    with pytest.raises(SolverError, match=why):
        solver_executable("cbc")


def test_a_link_counts_by_its_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _program(tmp_path / "writable", "real-cbc", tmp_path / "ran", 0o777)
    links = tmp_path / "bin"
    links.mkdir()
    (links / "cbc").symlink_to(target)
    monkeypatch.setenv("PATH", str(links))
    with pytest.raises(SolverError, match="may be written by others"):
        solver_executable("cbc")
    target.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    (tmp_path / "writable").chmod(0o755)
    assert solver_executable("cbc") == target.resolve()


def test_a_workbook_naming_cbc_runs_no_planted_program(sent_folder: tuple[Path, Path]) -> None:
    """The assumptions workbook's solver sheet is a route too: a workbook made from the
    sent scenario says cbc, and running it runs none of the planted programs."""
    folder, marker = sent_folder
    template = ["template", "--from", "scenario.yaml", "--out", "book.xlsx"]
    made = subprocess.run(
        [sys.executable, "-m", "planner", *template],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert not marker.exists()
    done = subprocess.run(
        [sys.executable, "-m", "planner", "run", "book.xlsx", "--out", "plan.xlsx"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3, done.stderr
    assert "never run" in done.stderr and "Traceback" not in done.stderr
    assert not marker.exists() and not (folder / "plan.xlsx").exists()
