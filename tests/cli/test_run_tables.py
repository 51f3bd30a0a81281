"""`planner run --tables DIR`: every plan table as a file; parquet refused without pyarrow."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from planner.results import TABLE_UNITS

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "scenarios" / "one_hardware_one_year.yaml"


def test_every_plan_table_is_written_as_csv(run_cli, tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    result = run_cli("run", TINY, "--out", tmp_path / "p.xlsx", "--tables", folder)
    assert result.code == 0, result.err
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{n}.csv" for n in TABLE_UNITS)
    costs = pd.read_csv(folder / "costs.csv")
    assert list(costs.columns) == ["period", "year", "category", "usd", "discount_factor", "usd_pv"]
    capex = costs.loc[costs["category"] == "capex", "usd"].tolist()
    assert capex == [1_120_000.0]  # one unit bought in 2026 at the catalog price
    assert f"wrote{folder / 'costs.csv'}" in "".join(result.err.split())  # wrapped lines


def test_a_table_file_that_is_a_link_is_refused_before_solving(run_cli, tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "fleet.csv").symlink_to(TINY)
    result = run_cli("run", TINY, "--out", tmp_path / "p.xlsx", "--tables", folder)
    assert result.code == 2
    assert "fleet.csv" in result.err
    assert "solved in" not in result.err
    assert not (tmp_path / "p.xlsx").exists()


@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is not None, reason="pyarrow present")
def test_parquet_without_pyarrow_exits_2_saying_how_to_install(run_cli, tmp_path: Path) -> None:
    result = run_cli(
        "run", TINY, "--out", tmp_path / "p.xlsx", "--tables", tmp_path, "--table-format", "parquet"
    )
    assert result.code == 2
    message = " ".join(result.err.split())  # unwrapped
    assert message.startswith("error: --table-format parquet needs pyarrow, which is not installed")
    assert "pip install 'planner[parquet]'" in message
    assert "--table-format csv" in message
    assert "solved in" not in result.err
    assert "Traceback" not in result.err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_the_named_extra_installs_pyarrow() -> None:
    import tomllib

    from planner.api import PARQUET_EXTRA

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = project["optional-dependencies"][PARQUET_EXTRA]
    assert [r.split(">")[0] for r in extra] == ["pyarrow"]


def test_run_help_says_what_csv_prints_and_offers_tables(run_cli) -> None:
    result = run_cli("run", "--help")
    assert "--format csv prints the headline figures" in " ".join(result.out.split())
    assert "--tables DIR" in result.out
    assert "--table-format [csv|parquet]" in result.out
