"""Chart helpers: one $K/$M/$B unit per money axis, chosen by the tallest stack."""

from __future__ import annotations

import pandas as pd
import pytest

from planner.export.charts import largest_stack, money_axis_format
from planner.export.sheets.summary import wrapped_lines

pytestmark = pytest.mark.filterwarnings("error")


@pytest.mark.parametrize(
    ("largest", "code"),
    [
        (6.0e9, '$#,##0.0,,,"B"'),
        (-4.7e9, '$#,##0.0,,,"B"'),  # a large credit sets the unit as well
        (1.0e9, '$#,##0.0,,,"B"'),
        (999_999_999.0, '$#,##0.0,,"M"'),
        (8.2e7, '$#,##0.0,,"M"'),
        (12_500.0, '$#,##0.0,"K"'),
        (500.0, "$#,##0"),
        (0.0, "$#,##0"),
    ],
)
def test_money_axis_unit(largest: float, code: str) -> None:
    assert money_axis_format(largest) == code


def test_largest_stack_counts_positives_and_negatives_apart() -> None:
    # period 1: 3 + 2 up, 1 down; period 2: 1 + 1 up, 6 down (a residual credit)
    frame = pd.DataFrame({"capex": [3.0, 1.0], "energy": [2.0, 1.0], "residual": [-1.0, -6.0]})
    assert largest_stack(frame) == 6.0
    assert largest_stack(frame.drop(columns="residual")) == 5.0
    assert largest_stack(pd.DataFrame()) == 0.0


def test_wrapped_lines() -> None:
    assert wrapped_lines("one two three", 7) == 2  # "one two" | "three"
    assert wrapped_lines("one two three", 13) == 1
    assert wrapped_lines("x" * 150, 70) == 3  # a long word breaks within it: 70 + 70 + 10
    assert wrapped_lines("first\n\nthird", 70) == 3  # an empty line still takes a line
    assert wrapped_lines("", 70) == 1
