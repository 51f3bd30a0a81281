"""How terminal tables show numbers: one format per column, chosen from its name and values.

- money (a column whose name mentions ``usd`` or starts with ``$``, or every number
  column of a frame whose ``attrs["unit"]`` is ``"USD"``): ``$`` and three
  significant digits, scaled with K, M, B or T from a thousand up: ``$26.7K``,
  ``$252M``, ``$4.43B``, ``$0.237``;
- years and other labels (a name with ``year`` or ``period``): as written, ``2027``;
- whole numbers (every value in the column whole): ``1,300``;
- other numbers: large columns (from a million) scaled like money without ``$``
  (``2.52M``); otherwise a fixed number of decimals for the whole column, enough for
  three significant digits of its largest value (``74.00``, ``0.350``).

Missing values are blank. Text and booleans are shown as they are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

Formatter = Callable[[Any], str]

SCALES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"))


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def scaled(value: float, prefix: str = "") -> str:
    """Three significant digits with a K/M/B/T suffix from 1,000 up: ``$4.43B``."""
    if not math.isfinite(value):
        return str(value)
    sign = "-" if value < 0 else ""
    size = abs(value)
    for factor, suffix in SCALES:
        if size >= factor * 0.9995:  # 999,999 shows as 1.00M, not 1000K
            return f"{sign}{prefix}{_three_digits(size / factor)}{suffix}"
    return f"{sign}{prefix}{_three_digits(size)}"


def _three_digits(size: float) -> str:
    size = float(f"{size:.3g}")  # round first: 0.999999 is 1.00, not 1.000
    if size == 0:
        return "0"
    if size >= 99.95:
        return f"{size:.0f}"
    decimals = 2 - math.floor(math.log10(size)) if size >= 0.001 else 5
    return f"{size:.{max(decimals, 0)}f}"


def _plain(value: Any) -> str:
    return "" if _missing(value) else str(value)


def is_money(name: str) -> bool:
    """Whether a column named ``name`` holds US dollars."""
    lowered = name.lower()
    return "usd" in lowered or lowered.startswith("$")


def _guarded(show: Callable[[float], str]) -> Formatter:
    """``show`` for finite numbers; blank for missing values; text as it is."""

    def formatter(value: Any) -> str:
        if _missing(value) or not _number(value):
            return _plain(value)
        return show(float(value)) if math.isfinite(value) else str(value)

    return formatter


def column_formatter(name: str, values: Sequence[Any], money: bool = False) -> Formatter:
    """The one format of a column named ``name`` holding ``values`` (``money``: USD
    whatever the name, e.g. the year columns of a cost table)."""
    numbers = [float(v) for v in values if _number(v) and math.isfinite(float(v))]
    lowered = name.lower()
    if not numbers:
        return _plain
    if money or is_money(name):
        return _guarded(lambda v: scaled(v, "$"))
    if "year" in lowered or "period" in lowered:
        return _guarded(lambda v: str(int(v)) if v.is_integer() else str(v))
    if all(n.is_integer() for n in numbers):
        return _guarded(lambda v: f"{int(v):,d}")
    largest = max(abs(n) for n in numbers)
    if largest >= 1e6:
        return _guarded(scaled)
    decimals = 0 if largest >= 1000 else 2 if largest >= 1 else _decimals(largest)
    return _guarded(lambda v: f"{v:,.{decimals}f}")


def _decimals(largest: float) -> int:
    """Decimals for three significant digits of ``largest`` (below 1), at most 6."""
    if largest == 0:
        return 2
    return min(2 - math.floor(math.log10(largest)), 6)
