"""Number formats of analysis tables, by the unit a column's name or input path states.

Money totals in $K/$M/$B; $/Mtok with cents; small prices such as $/kWh with up to four
decimals; shares and gaps as percentages; multipliers as ``1.20×``; MW with one
decimal; units as whole numbers; tokens and FLOP in scientific notation. A varied input
(``input:PATH``, or a path on the Inputs sheet) takes its unit from the field metadata
(:func:`planner.scenario.variants.path_meta`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from planner.export import cells
from planner.scenario import paths
from planner.scenario.variants import path_meta

MULTIPLIER = '0.00"×"'


def usd_change_format(values: Iterable[float]) -> str:
    """A signed money format for changes, in the one unit ($K, $M or $B) that suits the
    largest of ``values``: ``+$1.25M`` / ``-$0.40M`` (a spreadsheet format has only two
    conditional sections, so the unit is chosen here, not per cell)."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    top = max(finite, default=0.0)
    scale, unit = (",,,", "B") if top >= 1e9 else (",,", "M") if top >= 1e6 else (",", "K")
    body = f'$#,##0.00{scale}"{unit}"'
    return f"+{body};-{body};$0"


MW = "#,##0.0"


def _by_unit(unit: str) -> str | None:
    text = unit.lower()
    if text in ("usd/kwh", "usd per accelerator-hour"):
        return cells.USD_PRECISE  # small prices: cents and fractions of a cent
    if text.startswith("usd per million"):
        return cells.USD_PER_MTOK
    if text.startswith("usd"):
        return cells.USD
    if text.startswith("share"):
        return cells.PCT
    if text.startswith("mw"):
        return MW
    if "token" in text or text == "flop":
        return cells.SCIENTIFIC
    return None


def input_format(path: str) -> str | None:
    """The format of a varied input's values (None: no unit known)."""
    if path.endswith(" ×"):
        return MULTIPLIER
    if path.endswith("wacc"):
        return cells.PCT
    try:
        unit = path_meta(path).unit
    except paths.PathError:
        return None
    return _by_unit(unit) if unit else None


def number_format(column: str) -> str:
    """The format of a numeric column, by its name (units are in the names)."""
    if column.startswith("input:"):
        return input_format(column.removeprefix("input:")) or cells.DECIMAL2
    if "." in column or column.endswith(" ×"):  # a path, as the Inputs sheet names it
        found = input_format(column)
        if found:
            return found
    name = column.lower()
    if "usd_per_mtok" in name:
        return cells.USD_PER_MTOK
    if "usd_per_kwh" in name:
        return cells.USD_PRECISE
    if "share" in name or "gap" in name or name.startswith("p_") or "frequency" in name:
        return cells.PCT
    if name.endswith("_value") or name == "value":  # inputs of mixed units
        return cells.GENERAL
    if name == "value_vs_base":
        return MULTIPLIER
    if name.endswith("change_usd") or name.endswith("vs_base_usd"):
        return usd_change_format([])
    if "usd" in name or name.endswith("regret"):
        return cells.USD_SCALED
    if "mw" in name.split("_") or name.startswith("mw."):
        return MW
    if "tokens" in name or "flops" in name:
        return cells.SCIENTIFIC
    if "units" in name or "runs" in name or name == "samples":
        return cells.THOUSANDS
    return cells.DECIMAL2
