"""Printed tables fit 120 columns unless ``--wide``; a line under a table names the
columns left out. Measured on the real output of the shipped scenarios."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from planner.cli.common import TABLE_WIDTH, terminal_table

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted((REPO / "scenarios").glob("*.yaml"))
RULES = set("┏┃┡│└━─┳╇┴┓┩┘")


def _table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if RULES & set(line)]


def _unwrapped(text: str) -> str:
    return " ".join(text.split())


def test_run_prints_tables_within_120_columns(run_cli, tmp_path: Path) -> None:
    """One shipped scenario solved (the run's tables do not depend on which)."""
    result = run_cli("run", REPO / "scenarios" / "baseline.yaml", "--out", tmp_path / "p.xlsx")
    assert result.code == 0, result.err
    lines = _table_lines(result.out)
    assert len(lines) > 20
    assert max(len(line) for line in lines) <= TABLE_WIDTH
    # the revenue table's last column does not fit: named under the table
    assert "unit_margin_usd_per_mtok" not in "".join(lines)
    assert (
        "not shown to fit 120 columns: unit_margin_usd_per_mtok (--wide shows all)"
        in _unwrapped(result.out)
    )


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_throughput_fits_120_columns(run_cli, path: Path) -> None:
    result = run_cli("throughput", path)
    assert result.code == 0, result.err
    lines = _table_lines(result.out)
    assert len(lines) > 20
    assert max(len(line) for line in lines) <= TABLE_WIDTH


def test_wide_shows_every_column_and_default_names_those_left_out(run_cli) -> None:
    args = ("throughput", REPO / "scenarios" / "baseline.yaml", "--only", "inference")
    narrow = run_cli(*args)
    wide = run_cli(*args, "--wide")
    assert narrow.code == wide.code == 0, narrow.err + wide.err
    assert max(len(line) for line in _table_lines(narrow.out)) <= TABLE_WIDTH
    header = next(line for line in _table_lines(narrow.out) if "workload" in line)
    # the price and throughput columns stay; the layout details go first
    for kept in ("$/Mtok out", "$/acc-h", "out tok/s/unit", "hardware"):
        assert kept in header
    note = _unwrapped(narrow.out).split("not shown to fit 120 columns: ")[1]
    assert note.startswith("precision, layout, replica,") and "reason" in note
    wide_header = next(line for line in _table_lines(wide.out) if "workload" in line)
    assert len(wide_header) > TABLE_WIDTH
    assert "layout" in wide_header and "reason" in wide_header
    assert "not shown" not in wide.out


def test_columns_go_from_the_right_after_those_named_first() -> None:
    frame = pd.DataFrame({name: ["x" * 20] for name in "abcdefgh"})
    table, dropped = terminal_table(frame, width=70)  # 1 + 3 x 23 = 70
    assert [c.header for c in table.columns] == ["a", "b", "c"]
    assert dropped == ["d", "e", "f", "g", "h"]
    frame.attrs["drop_first"] = ("b", "a")  # the first column always stays
    table, dropped = terminal_table(frame, width=70)
    assert [c.header for c in table.columns] == ["a", "c", "d"]
    assert dropped == ["b", "e", "f", "g", "h"]
    table, dropped = terminal_table(frame)
    assert len(table.columns) == 8 and dropped == []
