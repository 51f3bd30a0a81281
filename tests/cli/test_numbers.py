"""Terminal tables: one number format per column, money in $K/$M/$B, headers never cut."""

from __future__ import annotations

import math

import pandas as pd
from rich.console import Console

from planner.cli.common import terminal_table
from planner.cli.numbers import column_formatter, scaled


def _column(name: str, values: list[object]) -> list[str]:
    show = column_formatter(name, values)
    return [show(v) for v in values]


def test_money_gets_a_dollar_and_a_scale_with_three_digits() -> None:
    values = [26_729.35, 2.516e8, 4.427078e9, 0.2372, 74.0, 0.0, -1.5e6, 1.2e12, math.nan]
    assert _column("usd", values) == [
        "$26.7K",
        "$252M",
        "$4.43B",
        "$0.237",
        "$74.0",
        "$0",
        "-$1.50M",
        "$1.20T",
        "",
    ]


def test_a_value_just_under_a_scale_moves_up_rather_than_showing_1000k() -> None:
    assert scaled(999_999.0, "$") == "$1.00M"
    assert scaled(999.4) == "999"
    assert scaled(999.6) == "1.00K"


def test_whole_numbers_show_as_integers_and_years_as_written() -> None:
    assert _column("units", [1300.0, 74.0, 8.0]) == ["1,300", "74", "8"]
    assert _column("release_year", [2023, 2024]) == ["2023", "2024"]
    assert _column("2027", [1.0, 2.0]) == ["1", "2"]  # a year column of a wide table


def test_other_numbers_share_one_format_per_column() -> None:
    assert _column("memory_tbps", [3.35, 8.0, 4.8]) == ["3.35", "8.00", "4.80"]
    assert _column("share", [0.35, 0.0125]) == ["0.350", "0.013"]
    assert _column("tokens_per_s", [2.52e8, 26_729.5]) == ["252M", "26.7K"]
    assert _column("mw", [1499.6, 12.25]) == ["1,500", "12"]


def test_text_and_missing_values_are_kept() -> None:
    assert _column("vendor", ["NVIDIA", None]) == ["NVIDIA", ""]
    assert _column("usd", ["n/a", 5.0]) == ["n/a", "$5.00"]


def test_a_narrow_terminal_wraps_headers_instead_of_cutting_them() -> None:
    frame = pd.DataFrame({"value_in_year_usd": [1.5e9], "peak_tflops_bf16": [989.0]})
    console = Console(width=24, record=True, color_system=None)
    console.print(terminal_table(frame, title="t")[0])
    assert console.export_text().splitlines() == [
        "           t            ",
        "┏━━━━━━━━━━┳━━━━━━━━━━━┓",
        "┃ value_in ┃           ┃",
        "┃ _year_us ┃ peak_tflo ┃",
        "┃        d ┃   ps_bf16 ┃",
        "┡━━━━━━━━━━╇━━━━━━━━━━━┩",
        "│   $1.50B │       989 │",
        "└──────────┴───────────┘",
    ]


def test_a_frame_in_usd_shows_every_number_column_as_money() -> None:
    frame = pd.DataFrame({"category": ["capex"], "2026": [2.516e8], "total_pv": [5.25e9]})
    frame.attrs["unit"] = "USD"
    console = Console(width=60, record=True, color_system=None)
    console.print(terminal_table(frame)[0])
    assert console.export_text().splitlines()[3] == "│ capex    │ $252M │   $5.25B │"
