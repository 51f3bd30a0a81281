"""Money formats of the Summary: $K/$M/$B/$T, at most three significant digits."""

from __future__ import annotations

import pytest

from planner.export import money
from planner.export.sheets.book import display_width


@pytest.mark.parametrize(
    ("value", "fmt", "text"),
    [
        (0.0, '$#,##0,"K"', "$0K"),
        (512.0, '$#,##0.00,"K"', "$0.51K"),
        (12_500.0, '$#,##0.0,"K"', "$12.5K"),
        (999_600.0, '$#,##0.00,,"M"', "$1.00M"),  # rounds into the next scale
        (81_870_000.0, '$#,##0.0,,"M"', "$81.9M"),
        (2_667_731_900.0, '$#,##0.00,,,"B"', "$2.67B"),
        (-943_550_000.0, '$#,##0,,"M"', "-$944M"),  # a credit keeps its sign
        (-4_734_880_000.0, '$#,##0.00,,,"B"', "-$4.73B"),
        (9_996_000_000.0, '$#,##0.0,,,"B"', "$10.0B"),
        (2_726_070_000_000.0, '$#,##0.00,,,,"T"', "$2.73T"),
    ],
)
def test_one_format_by_magnitude(value: float, fmt: str, text: str) -> None:
    assert money.usd_format(value) == fmt
    assert money.usd_text(value) == text
    assert money.is_usd_format(fmt)
    assert display_width(value, fmt) == len(text)


def test_an_unknown_value_gets_a_format_too() -> None:
    assert money.usd_format(None) == '$#,##0,"K"'
    assert not money.is_usd_format("#,##0") and not money.is_usd_format(None)
