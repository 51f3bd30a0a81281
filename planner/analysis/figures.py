"""The figures every analysis reads off a result row, and how it labels them.

Real cost is the NPV of cash costs (``npv_cost_usd``: capex, rent, energy, facility,
maintenance, less residual value), kept apart from the shortfall: the unmet share and
tokens of inference demand and, where workloads carry prices, the revenue lost with
them. Penalties are a price put on the shortfall, never added to the cost here.

Each solved run carries its **cost band** (``cost_band_usd``, from the MIP gap: how far
above the best possible its cost may lie). Two runs whose costs differ by no more than
the larger of their bands are not told apart: the difference is labelled
:data:`WITHIN_TOLERANCE`.
"""

from __future__ import annotations

import math
from typing import Any

from planner.analysis.rows import Row
from planner.analysis.tasks import SOLVED

__all__ = ["COST", "SOLVED", "WITHIN_TOLERANCE", "band", "shortfall", "value"]
COST = "npv_cost_usd"
"""The real cost analyses compare: NPV of cash costs, USD (no penalties)."""
WITHIN_TOLERANCE = "within solver tolerance"
DEFAULT_MIP_GAP = 1e-4
"""Relative MIP gap of analysis runs when neither the command line nor the scenario's
``solver:`` section sets one tighter: 0.01% of a $3B NPV is $0.3M, below the effects an
analysis compares (the scenario default, 0.5%, would leave a $15M band)."""


def value(row: Row | None, key: str) -> float:
    """A number of a solved run (NaN for a run without a plan or a missing figure)."""
    if row is None or row.get("status") not in SOLVED or row.get(key) is None:
        return math.nan
    return float(row[key])


def band(row: Row | None) -> float:
    """The run's absolute cost band, USD (0 when unknown: a relaxed or exact solve)."""
    found = value(row, "cost_band_usd")
    return 0.0 if math.isnan(found) else found


def within_tolerance(difference: float, *rows: Row | None) -> bool:
    """Whether a cost difference between ``rows`` is no larger than their largest band."""
    if math.isnan(difference):
        return False
    return abs(difference) <= max((band(r) for r in rows), default=0.0)


def difference_note(difference: float, *rows: Row | None) -> str:
    """:data:`WITHIN_TOLERANCE` for a difference inside the bands, else empty."""
    return WITHIN_TOLERANCE if within_tolerance(difference, *rows) else ""


def shortfall(row: Row | None) -> str:
    """``unmet 2.6% of tokens`` for a solved run that leaves demand unmet, else empty."""
    if row is None or row.get("status") not in SOLVED or row.get("demand_met", True):
        return ""
    share = value(row, "unmet_inference_share")
    parts = []
    if share > 0:
        parts.append(f"unmet {share:.2%} of inference tokens")
    if value(row, "unmet_training_flops") > 0:
        parts.append("training not done in full")
    return "; ".join(parts) or "demand unmet"


def fill_base_values(rows: list[Row], base: dict[str, Any], labels: dict[str, str]) -> None:
    """Give the base run (task 0) the varied inputs' base values, so its row is filled.

    ``labels``: path → the label a row's ``values`` uses (``PATH ×`` for multipliers,
    whose base is 1).
    """
    for row in rows:
        if row["task_id"] == 0 and not row.get("values"):
            row["values"] = {
                label: (1.0 if label.endswith(" ×") else base.get(path))
                for path, label in labels.items()
            }
