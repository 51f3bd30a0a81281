"""A ``--marginal`` value the unmet-demand penalty sets says so, as the LP rows do."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from planner.pipeline import plan
from planner.results.shadow import PENALTY_UNIT, penalty_labelled
from planner.scenario import load_scenario

HAND = Path(__file__).resolve().parents[1] / "scenarios"


def test_a_marginal_in_a_period_with_unmet_demand_names_the_penalty() -> None:
    """budget_shortfall leaves demand unmet in 2026, where its budget binds: the MILP
    finite difference of the 2026 budget prices that shortfall at the penalty."""
    found = plan(load_scenario(HAND / "budget_shortfall.yaml"), marginals=["budget.capex_usd.2026"])
    shadow = found.tables["shadow_prices"]
    (row,) = shadow[shadow["limit"] == "marginal"].to_dict(orient="records")
    assert row["unit"].endswith(PENALTY_UNIT) and "notional unmet-demand penalty" in row["meaning"]
    lp = shadow[(shadow["limit"] == "budget") & (shadow["period"] == "2026")]
    assert lp["unit"].str.endswith(PENALTY_UNIT).all()


def test_a_marginal_where_all_is_served_carries_no_penalty_label() -> None:
    rows = pd.DataFrame(
        [
            {"period": "2027", "year": 2027, "unit": "saved per +1 of the value", "meaning": "m"},
            {"period": None, "year": None, "unit": "saved per +1 of the value", "meaning": "m"},
        ]
    )
    assert list(penalty_labelled(rows, set())["unit"]) == list(rows["unit"])
    marked = penalty_labelled(rows, {"2026"})
    assert marked.loc[0, "unit"] == rows.loc[0, "unit"]  # 2027 is served
    assert marked.loc[1, "unit"].endswith(PENALTY_UNIT)  # a whole series: unmet somewhere
