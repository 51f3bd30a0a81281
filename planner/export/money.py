"""Money as a memo prints it: $K, $M or $B (or $T) with at most three significant digits.

``$2.67B``, ``$81.9M``, ``$512K``, ``-$944M``, ``$2.73T``; never ``$2,667,731.9K``. An Excel
custom format allows at most two conditions, so one format cannot pick among three
scales *and* three decimal counts for either sign. Instead each cell gets a
one-section format chosen at write time from the size of the number it holds (for a
formula, the number the planner computed for it): the cell's value stays the exact
number, only its display is rounded, and a one-section format prints a negative
number's minus sign in every engine.

Under $1K a figure shows hundredths of a thousand (``$0.51K``), zero as ``$0K``. A
formula whose inputs an analyst edits keeps its format: a figure that grows past its
scale still prints correctly, with a digit more (``$1,010M``).
"""

from __future__ import annotations

import math

SCALES = ((1e12, "T", ",,,,"), (1e9, "B", ",,,"), (1e6, "M", ",,"), (1e3, "K", ","))
"""(size, letter, thousands separators that divide by that size) from the largest."""


def _scale(value: float) -> tuple[float, str, str, int]:
    """(size, letter, separators, decimals) for ``value`` rounded to 3 significant digits."""
    rounded = abs(float(f"{value:.3g}")) if math.isfinite(value) else 0.0
    size, letter, commas = next(((s, name, c) for s, name, c in SCALES if rounded >= s), SCALES[-1])
    scaled = rounded / size
    if rounded == 0:
        decimals = 0
    elif scaled < 1:  # under $1K: hundredths of a thousand
        decimals = 2
    else:
        decimals = 2 if scaled < 10 else 1 if scaled < 100 else 0
    return size, letter, commas, decimals


def usd_format(value: float | None) -> str:
    """The Excel number format that shows ``value`` in $K/$M/$B, 3 significant digits."""
    _, letter, commas, decimals = _scale(0.0 if value is None else float(value))
    fraction = "." + "0" * decimals if decimals else ""
    return f'$#,##0{fraction}{commas}"{letter}"'


def usd_text(value: float) -> str:
    """What a cell formatted with :func:`usd_format` shows (``-$2.67B``)."""
    size, letter, _, decimals = _scale(float(value))
    shown = f"{abs(value) / size:,.{decimals}f}"
    sign = "-" if value < 0 and float(shown.replace(",", "")) != 0 else ""
    return f"{sign}${shown}{letter}"


def is_usd_format(fmt: str | None) -> bool:
    """Whether ``fmt`` is one :func:`usd_format` returns."""
    if fmt is None:
        return False
    return fmt.startswith("$#,##0") and fmt.endswith(
        tuple(f'"{letter}"' for _, letter, _ in SCALES)
    )
