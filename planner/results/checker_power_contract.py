"""The checker's recomputation of take-or-pay power (``power_cost: contracted``).

From the plan alone: each contracted site's rate by period (``parameters
["power_contract"]``: site, period, USD per kW of cap per year), its cap from the power
table (``cap_mw``, facility MW) and the period's length from the periods table::

    power_contract[t] = Σ_{s contracted} cap_MW[s,t] · 1000 · rate[s,t] · L_t

The whole cap, used or not; :func:`planner.results.checker._check_costs` compares it
with the costs table's ``power_contract`` line and counts it in the objective.
"""

from __future__ import annotations

from collections import defaultdict

from planner.economics import power_contract_usd_per_year
from planner.results.plan import Plan


def power_contract_amounts(plan: Plan) -> dict[tuple[str, str], float]:
    """USD by (period, ``"power_contract"``) recomputed as the module docstring states
    (empty when no site contracts its power)."""
    given = plan.parameters.get("power_contract") or []
    if not given:
        return {}
    t = plan.tables
    length = dict(zip(t["periods"]["period"], t["periods"]["length_years"], strict=True))
    power = t["power"]
    cap = dict(zip(zip(power["site"], power["period"], strict=True), power["cap_mw"], strict=True))
    amounts: dict[tuple[str, str], float] = defaultdict(float)
    for site, period, usd_per_kw_year in given:
        per_year = power_contract_usd_per_year(float(cap[(site, period)]), usd_per_kw_year)
        amounts[(period, "power_contract")] += per_year * float(length[period])
    return amounts
