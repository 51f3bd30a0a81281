"""The relief tables' shape and their sentences in the diagnosis.

:mod:`planner.relief` re-solves the LP with each binding limit lifted and fills two Plan
tables; this module names their columns and words them (the diagnosis and the checker
read it, so a sentence and its check share one wording):

* ``relief_served``: per re-solve (``relief``) and shortfall (``kind`` inference or
  training, ``subject`` the workload or run, ``period`` — empty for a run), the plan's
  unmet share, the LP plan's, and the share of the plan's shortfall the LP plan serves;
* ``relief_use``: per re-solve, each lifted cap its LP plan goes past (``lp_extra``
  above ``cap``, in ``unit``: MW, USD, units, accelerators) and each limit not lifted
  that binds in that LP plan (``lifted`` false, ``lp_extra`` 0).
"""

from __future__ import annotations

import pandas as pd

UNMET_SHARE = 1e-4
"""Unmet shares below this are reported as served."""
NOTHING_LIFTED = "no limit"
"""The re-solve with every limit as the plan has it (the LP of the plan's own limits)."""
ALL_LIFTED = "all binding limits"
"""The re-solve with every binding limit lifted together."""

SERVED_COLUMNS = [
    "relief",
    "kind",
    "subject",
    "period",
    "year",
    "unmet_share_plan",
    "unmet_share_lp",
    "shortfall_served_share",
]
USE_COLUMNS = [
    "relief",
    "limit",
    "subject",
    "period",
    "year",
    "cap",
    "lp_used",
    "lp_extra",
    "unit",
    "lifted",
]
SERVED_UNITS = "shares of demand (unmet) and of the plan's shortfall (served); LP estimates"
USE_UNITS = "see the unit column (MW, USD, units, accelerators); LP estimates"

ESTIMATES = "LP estimates (purchases continuous) of the share of it served: {parts}."
SHADOW_PRICES = "shadow prices"
MARGINALS = "marginal values (--marginal)"
RELIEF = "LP estimates of lifting binding limits"
"""Names of the follow-ups a run's time limit may cut after the plan is found (see
:mod:`planner.follow_ups`), as the headline's ``follow_ups_skipped`` lists them."""
SKIPPED_HEAD = "The run's time limit was spent after the plan was found: "
SKIPPED = SKIPPED_HEAD + "{names} skipped; raise --time-limit to have them."

NO_ESTIMATES = (
    "No LP estimate of lifting them was made; --marginal PATH gives exact marginal values."
)


def empty_relief_tables() -> dict[str, pd.DataFrame]:
    """The relief tables of a plan without re-solves (nothing short, nothing binding)."""
    return {
        "relief_served": pd.DataFrame(columns=SERVED_COLUMNS),
        "relief_use": pd.DataFrame(columns=USE_COLUMNS),
    }


def amount(value: float, unit: str) -> str:
    """``38.2, "MW"`` → ``38 MW``; USD as ``$1.2B``; units and accelerators bare."""
    if unit == "USD":
        for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
            if abs(value) >= scale:
                return f"${value / scale:,.3g}{suffix}"
        return f"${value:,.0f}"
    number = f"{value:,.0f}" if abs(value) >= 10 else f"{value:.2g}"
    return f"{number} MW" if unit == "MW" else number


def lifted_phrase(relief: str) -> str:
    return f"with {relief} lifted"


def estimates_sentence(served: pd.DataFrame, kind: str, subject: str, period: str) -> str | None:
    """``LP estimates … : 3% with no limit lifted, 100% with power at texas lifted.``"""
    mine = served[
        (served["kind"] == kind) & (served["subject"] == subject) & (served["period"] == period)
    ]
    if mine.empty:
        return None
    parts = [
        f"{row.shortfall_served_share:.0%} {lifted_phrase(str(row.relief))}"
        for row in mine.itertuples(index=False)
    ]
    return ESTIMATES.format(parts=", ".join(parts))


def _what(limit: str, subject: object, value: float, unit: str, period: str) -> str:
    figure = amount(value, unit)
    return {
        "power": f"{figure} more power at {subject} in {period}",
        "budget": f"{figure} more capex budget in {period}",
        "supply": f"{figure} more {subject} units than its supply cap in {period}",
        "vendor_share": f"{figure} more {subject} accelerators than its share cap in {period}",
    }[limit]


def _binding_name(limit: str, subject: object) -> str:
    return {
        "power": f"power at {subject}",
        "budget": "the capex budget",
        "supply": f"{subject} supply",
        "vendor_share": f"the {subject} share cap",
    }[limit]


def use_sentences(use: pd.DataFrame) -> list[str]:
    """One sentence per re-solve that lifted a limit: how far past each cap its LP plan
    goes, and which limits not lifted bind in it."""
    out = []
    for relief, rows in use[use["relief"] != NOTHING_LIFTED].groupby("relief", sort=False):
        extra = rows[rows["lifted"].astype(bool)]
        held = rows[~rows["lifted"].astype(bool)]
        parts = [
            _what(str(r.limit), r.subject, float(r.lp_extra), str(r.unit), str(r.period))
            for r in extra.itertuples(index=False)
        ]
        uses = "; ".join(parts) if parts else "nothing past the lifted caps"
        sentence = f"LP estimate {lifted_phrase(str(relief))}: its plan uses {uses}"
        if len(held):
            binding = "; ".join(
                f"{_binding_name(str(limit), subject)} in {', '.join(map(str, group['period']))}"
                for (limit, subject), group in held.fillna({"subject": ""}).groupby(
                    ["limit", "subject"], sort=False
                )
            )
            sentence += f". Not lifted and binding in that LP plan: {binding}"
        out.append(sentence + ".")
    return out
