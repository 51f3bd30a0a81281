"""Helpers every Plan table shares: the time columns and the vintage label."""

from __future__ import annotations

from typing import Any

import pandas as pd

from planner.optimize.data import ModelData, PeriodLabel


def frame(rows: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns)


WHEN = ["period", "year"]
"""The time columns every period-indexed table starts with."""


def when(d: ModelData, t: PeriodLabel) -> dict[str, Any]:
    """``{"period": label as text, "year": calendar year}`` of period ``t``."""
    return {"period": str(t), "year": d.period(t).year}


def vintage_label(d: ModelData, label: PeriodLabel | int) -> PeriodLabel | int:
    """A vintage as tables show it: the year for yearly plans, else text (a purchase
    period such as ``2027Q3``, or the install year of an existing cohort)."""
    return label if d.periods_per_year == 1 else str(label)
