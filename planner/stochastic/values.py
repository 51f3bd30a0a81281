"""What a two-stage plan is worth, from its futures' Plans: expected cost and service,
CVaR, EVPI and VSS, and the tables ``planner stochastic`` prints.

Every money figure is the NPV cost of the plans' own headlines (``npv_cost_usd``:
cash costs less residual, discounted; penalties excluded), so the figures read the
same numbers the futures' Plans and workbooks show.

* expected: ``E[c] = Σ p_k c_k``; the weighted unserved share likewise.
* CVaR_α of the NPV cost: the mean of the worst ``1 − α`` of probability (the
  α-quantile's future counted in part), :func:`cvar`.
* EVPI = E[c | here and now] − E[c | wait and see]; VSS = E[c | mean-value first
  stage] − E[c | here and now]. Each comes with the change in expected unserved share,
  since a plan that serves less is not cheaper in a lexicographic sense, and with its
  resolution: the expected MIP gaps (in USD) of the plans compared. Both are ≥ 0 for
  exact solves; a value smaller than its resolution (even a negative one) is 0 within
  the solves' gaps — tighten ``solver.mip_gap`` to resolve it.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from planner.results import Plan
from planner.stochastic.solve import Stochastic


def cvar(costs: list[float], probabilities: list[float], alpha: float) -> float:
    """CVaR_α of a discrete distribution: the probability-weighted mean of its worst
    ``1 − α`` tail (Rockafellar–Uryasev; α = 0 gives the mean, α → 1 the worst)."""
    tail = 1.0 - alpha
    left, total = tail, 0.0
    for cost, p in sorted(zip(costs, probabilities, strict=True), reverse=True):
        take = min(p, left)
        total += take * cost
        left -= take
        if left <= 1e-15:
            break
    return total / tail


def _npv(plan: Plan) -> float:
    return float(plan.headline["npv_cost_usd"])


def _unserved(plan: Plan) -> float:
    return float(plan.headline.get("weighted_unserved_share") or 0.0)


def _gap_usd(plan: Plan) -> float | None:
    """How far the plan's NPV may be above the best the solve could prove: its relative
    gap on cost times its NPV (None when the gap is unknown)."""
    gap = plan.headline.get("mip_gap")
    return abs(float(gap) * _npv(plan)) if isinstance(gap, float) else None


def _resolution(result: Stochastic, *which: str) -> float | None:
    """The expected gap of the plans compared: a value below it is 0 within the solves'
    gaps (None when some plan's gap is unknown: no resolution can be stated)."""
    total = 0.0
    for f in result.futures:
        for name in which:
            plan = f.plan if name == "plan" else getattr(f, name)
            gap = None if plan is None else _gap_usd(plan)
            if gap is None:
                return None
            total += f.probability * gap
    return total


def _expected(result: Stochastic, which: str) -> tuple[float, float] | None:
    plans = [getattr(f, which) if which != "plan" else f.plan for f in result.futures]
    if any(p is None for p in plans):
        return None
    p = [f.probability for f in result.futures]
    return (
        sum(pk * _npv(x) for pk, x in zip(p, plans, strict=True)),
        sum(pk * _unserved(x) for pk, x in zip(p, plans, strict=True)),
    )


def figures(result: Stochastic) -> dict[str, Any]:
    """The headline of a two-stage plan (module docstring), USD."""
    tree = result.scenario.uncertainty
    assert tree is not None
    here = _expected(result, "plan")
    assert here is not None
    costs = [_npv(f.plan) for f in result.futures]
    probabilities = [f.probability for f in result.futures]
    out: dict[str, Any] = {
        "scenario": result.scenario.name,
        "futures": len(result.futures),
        "first_stage_through": tree.first_stage_through,
        "expected_npv_cost_usd": here[0],
        "expected_weighted_unserved_share": here[1],
        "cvar_alpha": tree.risk.cvar_alpha,
        "cvar_npv_cost_usd": cvar(costs, probabilities, tree.risk.cvar_alpha),
        "risk_weight": tree.risk.weight,
        "worst_npv_cost_usd": max(costs),
        "convention": "NPV cost of each future's plan (cash costs less residual at the "
        f"horizon end by {result.futures[0].plan.headline.get('horizon_end')}, discounted; "
        "penalties excluded); expectations over the futures' probabilities",
        "method": "hedging" if result.hedging else "equivalent",
        "equivalent": result.equivalent,
    }
    if result.hedging:
        # the bound's gap against the cost the futures' Plans report (each re-solved at
        # its own MIP gap), beside hedging's own against its recourse solves
        bound = result.hedging.get("bound_usd")
        out["hedging"] = {
            **result.hedging,
            "gap_to_plans": None if bound is None else (here[0] - bound) / max(here[0], 1e-9),
        }
    waited = _expected(result, "wait_and_see")
    if waited is not None:
        out["wait_and_see_npv_cost_usd"] = waited[0]
        out["evpi_usd"] = here[0] - waited[0]
        out["evpi_unserved_share"] = here[1] - waited[1]
        out["evpi_resolution_usd"] = _resolution(result, "plan", "wait_and_see")
    mean = _expected(result, "mean_value")
    if mean is not None:
        out["mean_value_npv_cost_usd"] = mean[0]
        out["vss_usd"] = mean[0] - here[0]
        out["vss_unserved_share"] = mean[1] - here[1]
        out["vss_resolution_usd"] = _resolution(result, "plan", "mean_value")
        # first-stage decisions of the mean-value plan some future could not take (a
        # part not yet available there): its first stage was not the same everywhere
        out["vss_decisions_dropped"] = max(f.mean_value_dropped for f in result.futures)
    return out


def futures_table(result: Stochastic) -> pd.DataFrame:
    """One row per future: probability, NPV cost, unserved share and capex of its plan,
    and of its wait-and-see and mean-value plans when solved."""
    rows = []
    for f in result.futures:
        row: dict[str, Any] = {
            "future": f.name,
            "probability": f.probability,
            "npv_cost_usd": _npv(f.plan),
            "weighted_unserved_share": _unserved(f.plan),
            "capex_usd": float(f.plan.headline["capex_usd"]),
            "status": f.plan.status,
        }
        if f.wait_and_see is not None:
            row["wait_and_see_npv_cost_usd"] = _npv(f.wait_and_see)
        if f.mean_value is not None:
            row["mean_value_npv_cost_usd"] = _npv(f.mean_value)
            row["mean_value_decisions_dropped"] = f.mean_value_dropped
        rows.append(row)
    return pd.DataFrame(rows)


def first_stage_table(result: Stochastic) -> pd.DataFrame:
    """The first-stage decisions taken (nonzero), one row each: family, key, value."""
    rows = [
        {"decision": family, "key": ", ".join(str(k) for k in _tuple(key)), "value": value}
        for family, by_key in result.first_stage.items()
        for key, value in sorted(by_key.items(), key=lambda kv: str(kv[0]))
        if abs(value) > 1e-9
    ]
    return pd.DataFrame(rows, columns=["decision", "key", "value"])


def _tuple(key: Any) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)
