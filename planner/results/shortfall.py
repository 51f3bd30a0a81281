"""How a plan values the demand it leaves unmet, in words every output shares.

Where work is priced (``price_usd_per_mtok``, a run's ``value_usd``) the shortfall is
worth the revenue it loses: that is the figure a memo uses. The scenario's unmet-demand
penalty (``penalty_usd_per_mtok``, ``penalty_usd_per_pflop``) is a notional weight,
never a cost: it is quoted only for unpriced shortfall, and always under
:data:`NOTIONAL`. LP values set by the penalty (shadow prices, budget and power values
in a period with unmet demand) are likewise labelled, and not quoted at all where the
shortfall is priced.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

NOTIONAL = "notional unmet-demand penalty"
"""The label every penalty-set figure carries."""
NOTIONAL_NOTE = f"set by the {NOTIONAL}, not a cost and outside the objective"
"""What a penalty-set LP value says about itself."""


def lost_revenue_by_period(revenue: pd.DataFrame | None) -> dict[str, float]:
    """Period → undiscounted revenue lost on unmet priced work (0 where none)."""
    if revenue is None or revenue.empty:
        return {}
    lost = revenue.groupby(revenue["period"].astype(str))["lost_revenue_usd"].sum()
    return {str(p): float(v) for p, v in lost.items() if v > 0}


def shortfall_line(headline: dict[str, Any], parameters: dict[str, Any]) -> str | None:
    """The headline's one line valuing the shortfall (None when all demand is met).

    Priced work left unmet: its lost revenue (undiscounted, and PV). The notional
    penalty has a line of its own, labelled, only for shortfall with no price.
    """
    unmet = headline.get("unmet_inference_tokens", 0.0) > 0
    unmet = unmet or headline.get("unmet_training_flops", 0.0) > 0
    if not unmet:
        return None
    lost = float(headline.get("lost_revenue_usd") or 0.0)
    if headline.get("priced_work") and lost > 0:
        pv = float(headline.get("lost_revenue_usd_pv") or 0.0)
        return (
            f"unmet demand valued as lost revenue: ${lost:,.0f} undiscounted "
            f"(PV ${pv:,.0f}) on unmet priced work"
        )
    per_mtok = parameters.get("penalty_usd_per_mtok", float("nan"))
    per_pflop = parameters.get("penalty_usd_per_pflop", float("nan"))
    return (
        f"{NOTIONAL} (no price given; a weight, not a cost, outside the objective): "
        f"${headline['penalties_usd_pv']:,.0f} PV at ${per_mtok:,g}/Mtok unmet and "
        f"${per_pflop:,g}/PFLOP of training not done"
    )


SERVICE_MEASURES = {
    "weighted_share": "each workload's unserved share of its tokens times its priority, "
    "so every workload counts however small; not the most tokens",
    "tokens": "unserved output tokens, every token alike (priorities ignored)",
    "revenue": "unserved output tokens at their price (priorities ignored)",
}
"""What each ``service_measure`` counts, as the headline and the diagnosis say it."""
SERVICE_HEAD = "Most demand served is counted by service_measure: "


def service_sentence(measure: str) -> str:
    """The diagnosis sentence naming the plan's service measure (when demand is unmet)."""
    return f"{SERVICE_HEAD}{measure} ({SERVICE_MEASURES[measure]})."
