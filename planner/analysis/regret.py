"""Regret of first-year purchase plans: which plan to commit to now, under uncertainty.

Each **candidate** is a first-year purchase plan (every unit bought in the horizon's
first year, by hardware, site and period): the base scenario's optimal plan, the median
of the samples' plans (each purchase's median units, rounded to whole units), then the
samples' own plans, most frequent first, up to the count asked. Each candidate is held
fixed (:class:`planner.optimize.fixed.FixedPurchases`) and the remaining years are
re-solved in every evaluated scenario: the base scenario and each Monte Carlo sample.
Where a candidate is a scenario's own optimal first-year plan, the free solve already is
that re-solve, and is used.

Plans are compared as the optimiser ranks them — service first, then cost — with the
two kept apart (a penalty price on the shortfall would swamp the cost). In each
scenario, among every plan evaluated there (the free optimum and each candidate):

* **shortfall regret**: the candidate's unmet share of demand less the least unmet
  share of any plan;
* **cost regret** (``cost_regret_usd``): its real cost (NPV of cash costs) less the
  cheapest plan that serves at least as much demand (unmet share no larger, within
  :data:`SERVES_AS_MUCH`). The candidate itself is such a plan, so the regret is never
  negative, and it is 0 for the base plan in the base scenario (up to the MIP gap).

Expected regret is the mean over the scenarios, worst-case the maximum. The **robust
choice** has the least worst-case cost regret among the candidates that serve within
:data:`SHORTFALL_TOLERANCE` of the best in every scenario (if none does, among all);
ties go to the least expected. A cost regret no larger than the runs' cost bands (MIP
gap) is within solver tolerance. Penalties and lost revenue stand beside each run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.analysis.decisions import plan_key, plan_text
from planner.analysis.figures import COST, SOLVED, WITHIN_TOLERANCE, band, value
from planner.analysis.rows import Row
from planner.analysis.tasks import FixedPlan, Task


@dataclass(frozen=True)
class Candidate:
    """A first-year plan to evaluate: its name(s) and purchases (``HW|SITE|PERIOD`` → units)."""

    name: str
    year: int
    buys: dict[str, float]

    @property
    def fixed(self) -> FixedPlan:
        purchases = []
        for key, units in sorted(self.buys.items()):
            hardware, site, period = key.split("|", 2)
            purchases.append((hardware, site, period, units))
        return FixedPlan(self.year, tuple(purchases))


def candidates(base: Row, samples: Sequence[Row], count: int) -> list[Candidate]:
    """Up to ``count`` distinct plans: base, median, then the samples' most frequent."""
    solved = [r for r in samples if r["status"] in SOLVED]
    year = int(base["first_year"])
    found: dict[str, Candidate] = {}

    def add(name: str, buys: dict[str, float]) -> None:
        key = plan_key(buys)
        if key in found:
            old = found[key]
            found[key] = Candidate(f"{old.name} = {name}", old.year, old.buys)
        elif len(found) < count:
            found[key] = Candidate(name, year, {k: v for k, v in buys.items() if v})

    add("base plan", base["first_year_buys"])
    keys = sorted({k for r in solved for k in r["first_year_buys"]})
    median = {
        k: float(round(np.median([r["first_year_buys"].get(k, 0.0) for r in solved]))) for k in keys
    }
    if solved:
        add("median plan", median)
    groups: dict[str, list[Row]] = {}
    for r in solved:
        groups.setdefault(plan_key(r["first_year_buys"]), []).append(r)
    for group in sorted(groups.values(), key=lambda g: (-len(g), g[0]["task_id"])):
        add(f"plan of {group[0]['label']}", group[0]["first_year_buys"])
    return list(found.values())


def regret_tasks(
    evaluated: Sequence[Task], free: Sequence[Row], chosen: Sequence[Candidate]
) -> list[Task]:
    """One task per (candidate, evaluated scenario) whose free plan is another plan."""
    own = {r["task_id"]: plan_key(r.get("first_year_buys") or {}) for r in free}
    tasks: list[Task] = []
    for c in chosen:
        for t in evaluated:
            if own.get(t.task_id) == plan_key(c.buys):
                continue  # the free solve is this candidate's re-solve
            label = f"{c.name} | {t.label}"
            tasks.append(Task(len(tasks), label, t.document, t.changes, t.settings, c.fixed))
    return tasks


SHORTFALL_TOLERANCE = 1e-3
"""A candidate whose unmet share exceeds the best plan's by at most this (0.1% of
demand) in every scenario counts as serving the demand; the robust choice is sought
among those first."""
SERVES_AS_MUCH = 1e-6
"""Unmet shares closer than this (the service stage's gap) count as serving as much."""


def regret_matrix(
    evaluated: Sequence[Task],
    free: Sequence[Row],
    chosen: Sequence[Candidate],
    fixed_rows: Sequence[Row],
) -> pd.DataFrame:
    """Long table: candidate, scenario, status, real cost, unmet share, the two regrets
    (shortfall and cost, see the module docstring), band and note."""
    free_by_id = {r["task_id"]: r for r in free}
    fixed_by_label = {r["label"]: r for r in fixed_rows}
    records = []
    for t in evaluated:
        own = free_by_id.get(t.task_id)
        plans: list[tuple[str | None, Row | None]] = [(None, own)]
        for c in chosen:
            row: Row | None
            if own is not None and plan_key(own.get("first_year_buys") or {}) == plan_key(c.buys):
                row = own
            else:
                row = fixed_by_label.get(f"{c.name} | {t.label}")
            plans.append((c.name, row))
        solved = [
            (value(r, "unmet_inference_share"), value(r, COST), band(r))
            for _, r in plans
            if r is not None and r.get("status") in SOLVED
        ]
        least_unmet = min((u for u, _, _ in solved), default=math.nan)
        for name, row in plans[1:]:
            unmet, cost = value(row, "unmet_inference_share"), value(row, COST)
            peers = [(c, b) for u, c, b in solved if u <= unmet + SERVES_AS_MUCH]
            cheapest = min(peers, default=(math.nan, 0.0))
            regret = cost - cheapest[0] if peers else math.nan
            records.append(
                {
                    "candidate": name,
                    "scenario": t.label,
                    "status": None if row is None else row["status"],
                    "npv_cost_usd": cost,
                    "unmet_inference_share": unmet,
                    "shortfall_regret_share": unmet - least_unmet,
                    "cost_regret_usd": regret,
                    "cost_band_usd": max(band(row), cheapest[1]),
                    "penalties_usd_pv": value(row, "penalties_usd_pv"),
                    "lost_revenue_usd": value(row, "lost_revenue_usd"),
                }
            )
    frame = pd.DataFrame(records)
    within = frame["cost_regret_usd"].notna() & (frame["cost_regret_usd"] <= frame["cost_band_usd"])
    frame["note"] = np.where(within, WITHIN_TOLERANCE, "")
    return frame


def regret_table(matrix: pd.DataFrame, chosen: Sequence[Candidate]) -> pd.DataFrame:
    """Per candidate: worst and expected shortfall and cost regret; robust choice first."""
    records = []
    for c in chosen:
        mine = matrix[matrix["candidate"] == c.name]
        regrets = mine["cost_regret_usd"].dropna()
        shortfall = mine["shortfall_regret_share"].dropna()
        records.append(
            {
                "candidate": c.name,
                "first_year": c.year,
                "first_year_purchases": plan_text(c.buys),
                "worst_shortfall_regret_share": float(shortfall.max()) if len(shortfall) else 0.0,
                "expected_shortfall_regret_share": float(shortfall.mean())
                if len(shortfall)
                else 0.0,
                "expected_regret_usd": float(regrets.mean()) if len(regrets) else math.nan,
                "worst_regret_usd": float(regrets.max()) if len(regrets) else math.nan,
                "p90_regret_usd": float(np.percentile(regrets, 90)) if len(regrets) else math.nan,
                "scenarios": len(mine),
                "scenarios_without_plan": int(mine["cost_regret_usd"].isna().sum()),
                "runs_not_proven_optimal": int((mine["status"] == "feasible").sum()),
                "worst_within_tolerance": bool(len(regrets))
                and bool((mine.loc[regrets.index, "note"] == WITHIN_TOLERANCE).all()),
                "max_unmet_inference_share": float(mine["unmet_inference_share"].max()),
            }
        )
    frame = pd.DataFrame(records)
    # Fails somewhere, or leaves avoidable demand unmet: not the robust choice.
    frame["_fails"] = frame["scenarios_without_plan"] > 0
    frame["_short"] = frame["worst_shortfall_regret_share"] > SHORTFALL_TOLERANCE
    frame = frame.sort_values(
        ["_fails", "_short", "worst_regret_usd", "expected_regret_usd"], ignore_index=True
    ).drop(columns=["_fails", "_short"])
    frame.insert(1, "robust_choice", [i == 0 for i in range(len(frame))])
    return frame


def robust_sentence(table: pd.DataFrame) -> str:
    """``robust choice: buy gb200-nvl72 × 120 in 2026: worst-case regret $41M, …``."""
    if table.empty:
        return "no candidate plan to compare"
    top = table.iloc[0]
    tolerance = " (within solver tolerance)" if top["worst_within_tolerance"] else ""
    short = top["worst_shortfall_regret_share"]
    served = (
        "serves as much demand as the best plan in every scenario"
        if short <= SHORTFALL_TOLERANCE
        else f"leaves up to {short:.2%} more demand unmet than the best plan"
    )
    return (
        f"robust choice: buy {top['first_year_purchases']} in {top['first_year']}: "
        f"worst-case regret ${top['worst_regret_usd']:,.0f}{tolerance}, expected "
        f"${top['expected_regret_usd']:,.0f}; it {served} ({top['candidate']})"
    )


def base_task(samples: Sequence[Task]) -> Task:
    """The base scenario as one more evaluated scenario (after the samples)."""
    first = samples[0]
    return Task(len(samples), "base", first.document, (), first.settings)


def regret_frames(
    evaluated: Sequence[Task],
    free: Sequence[Row],
    chosen: Sequence[Candidate],
    fixed_rows: Sequence[Row],
) -> tuple[dict[str, pd.DataFrame], str]:
    """The Regret table (robust choice first), the regret of each candidate in each
    scenario, and the sentence naming the robust choice."""
    matrix = regret_matrix(evaluated, free, chosen, fixed_rows)
    table = regret_table(matrix, chosen)
    return {"Regret": table, "Regret by scenario": matrix}, robust_sentence(table)
