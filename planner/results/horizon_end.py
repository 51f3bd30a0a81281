"""The headline NPV under every horizon-end convention: the same fleet, re-priced.

Only the residual credit depends on the convention (planner.economics.horizon_end), so
the plan solved under convention ``c`` costs under another convention ``k``::

    NPV_k = NPV_c + DF_end · Σ_purchases units held at the end · price · (f_c − f_k)

No re-solve: the fleet stays the one optimised under ``c`` (a plan optimised under ``k``
could be cheaper still under ``k``). Reported as "same fleet, priced under …".
"""

from __future__ import annotations

import pandas as pd

from planner.economics.horizon_end import HORIZON_END_CONVENTIONS, HORIZON_END_TEXT
from planner.optimize.data import ModelData

SAME_FLEET = "same fleet, priced under each horizon-end convention (not re-optimised)"


def npv_key(convention: str) -> str:
    """The headline key of the NPV cost under ``convention``."""
    return f"npv_cost_usd_{convention}"


def horizon_end_figures(
    d: ModelData, purchases: pd.DataFrame, npv_cost_usd: float
) -> dict[str, float | str]:
    """The convention the plan is priced under, its words, and the NPV cost under each
    convention (the module docstring's formula)."""
    figures: dict[str, float | str] = {
        "horizon_end": d.horizon_end_convention,
        "horizon_end_text": HORIZON_END_TEXT[d.horizon_end_convention],
    }
    if not d.residual_by_convention:  # model data built without the conventions
        return figures
    label = {str(p.label): p.label for p in d.periods}
    own = d.residual_by_convention[d.horizon_end_convention]
    for convention in HORIZON_END_CONVENTIONS:
        shares = d.residual_by_convention[convention]
        shift = 0.0
        for row in purchases.itertuples(index=False):
            key = (row.hardware, label[row.period])
            held = row.units - getattr(row, "units_sold", 0.0)  # sold early: no credit
            shift += held * row.price_usd * (own[key] - shares[key])
        figures[npv_key(convention)] = npv_cost_usd + d.discount_factor_end * shift
    return figures


def horizon_end_line(headline: dict[str, object]) -> str:
    """One line: the NPV cost of the same fleet under each horizon-end convention, the
    plan's own marked."""
    own = headline.get("horizon_end")
    parts = []
    for convention in HORIZON_END_CONVENTIONS:
        value = headline.get(npv_key(convention))
        if isinstance(value, float):
            mark = " (this plan's)" if convention == own else ""
            parts.append(f"{convention} ${value:,.0f}{mark}")
    return f"NPV cost, {SAME_FLEET}: " + "; ".join(parts)
