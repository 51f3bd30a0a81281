"""A plan is never lost to an export error.

``planner run`` prints its plan before it writes anything; when the workbook (or
``--tables``, ``--plots``) then fails, the plan stays printed, the failure is named with
its reason, no half-written file is left at the target (a previous file stays as it
was), the other outputs are still written, and the run exits 4, not 3.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from planner.cli.run_exports import EXIT_EXPORT_FAILED
from planner.errors import ExportError

RunCli = Callable[..., Any]  # tests/conftest.py's run_cli fixture


TINY = Path(__file__).resolve().parents[1] / "scenarios" / "one_hardware_one_year.yaml"
PREVIOUS = b"a workbook from an earlier run"


def _boom(*args: Any, **kwargs: Any) -> None:
    raise RuntimeError("boom inside the workbook writer")


def _disk_full(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _left_over(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_writer_error_keeps_the_json_plan_and_the_tables(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("planner.export.excel.build_workbook", _boom)
    out, tables = tmp_path / "plan.xlsx", tmp_path / "tables"
    out.write_bytes(PREVIOUS)
    result = run_cli("run", TINY, "--out", out, "--tables", tables, "--format", "json")
    assert result.code == EXIT_EXPORT_FAILED, result.err
    plan = json.loads(result.out)  # the plan, whole, on stdout
    assert plan["status"] == "optimal" and plan["headline"]["npv_cost_usd"] > 0
    assert "workbook not written" in result.err
    assert "RuntimeError: boom inside the workbook writer" in result.err
    assert "internal error" not in result.err
    assert out.read_bytes() == PREVIOUS and _left_over(tmp_path) == []
    assert (tables / "fleet.csv").is_file()  # the other outputs are still written
    assert f"wrote {tables / 'fleet.csv'}" in result.err


def test_a_full_disk_keeps_the_printed_plan_and_leaves_no_file(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openpyxl.Workbook, "save", _disk_full)
    out = tmp_path / "plan.xlsx"
    result = run_cli("run", TINY, "--out", out)
    assert result.code == EXIT_EXPORT_FAILED, result.err
    assert "one-hardware-one-year: optimal" in result.out
    assert "Fleet by year" in result.out
    assert "disk full: no space left on the device holding" in result.err
    assert "the plan was found and printed, but 1 output(s) were not written" in result.err
    assert not out.exists() and _left_over(tmp_path) == []


def test_tables_that_fail_leave_the_workbook_written(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ExportError(str(tmp_path / "tables"), "read-only file system")

    monkeypatch.setattr("planner.api.write_tables", refuse)
    out = tmp_path / "plan.xlsx"
    result = run_cli("run", TINY, "--out", out, "--tables", tmp_path / "tables", "--format", "csv")
    assert result.code == EXIT_EXPORT_FAILED, result.err
    assert "status,optimal" in result.out
    assert "tables not written" in result.err and "read-only file system" in result.err
    assert out.is_file() and f"wrote {out}" in result.err
