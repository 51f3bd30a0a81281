"""Regret of first-year purchase plans: which plan to commit to now, under uncertainty.

Each **candidate** is a first-year purchase plan (every unit bought in the horizon's
first year, by hardware, site and period): the base scenario's optimal plan, the median
of the samples' plans (each purchase's median units, rounded to whole units), then the
samples' own plans, most frequent first, up to the count asked. Each candidate is held
fixed (:class:`planner.optimize.fixed.FixedPurchases`) and the remaining years are
re-solved in every evaluated scenario: the base scenario and each Monte Carlo sample.
Where a candidate is a scenario's own optimal first-year plan, the free solve already is
that re-solve, and is used.

A plan is judged by its **cost with the shortfall priced**: real cost (NPV of cash
costs) plus the revenue lost to unmet demand where workloads carry prices, else the
penalties (PV) the scenario sets for it — so a candidate that buys too little cannot
look cheap by leaving demand unserved. In each scenario the regret of a candidate is its
cost less the least cost of any plan evaluated there (the free optimum and every
candidate): never negative, and 0 for the best. Expected regret is the mean over the
scenarios, worst-case the maximum; the **robust choice** has the least worst-case
regret (ties: least expected). A regret no larger than the runs' cost bands (MIP gap)
is within solver tolerance.
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


def priced_cost(row: Row | None) -> float:
    """Real cost plus the priced shortfall (lost revenue, else penalties), USD."""
    cost = value(row, COST)
    lost = value(row, "lost_revenue_usd")
    return cost + (lost if not math.isnan(lost) else value(row, "penalties_usd_pv"))


def regret_matrix(
    evaluated: Sequence[Task],
    free: Sequence[Row],
    chosen: Sequence[Candidate],
    fixed_rows: Sequence[Row],
) -> pd.DataFrame:
    """Long table: candidate, scenario, priced cost, regret, band, note, status."""
    free_by_id = {r["task_id"]: r for r in free}
    fixed_by_label = {r["label"]: r for r in fixed_rows}
    records = []
    for c in chosen:
        for t in evaluated:
            own = free_by_id.get(t.task_id)
            row: Row | None
            if own is not None and plan_key(own.get("first_year_buys") or {}) == plan_key(c.buys):
                row = own
            else:
                row = fixed_by_label.get(f"{c.name} | {t.label}")
            records.append(
                {
                    "candidate": c.name,
                    "scenario": t.label,
                    "status": None if row is None else row["status"],
                    "priced_cost_usd": priced_cost(row),
                    "npv_cost_usd": value(row, COST),
                    "unmet_inference_share": value(row, "unmet_inference_share"),
                    "cost_band_usd": band(row),
                    "_free_band": band(own),
                    "_free_cost": priced_cost(own),
                }
            )
    frame = pd.DataFrame(records)
    best = frame.groupby("scenario")["priced_cost_usd"].transform("min")
    best = np.fmin(best, frame["_free_cost"])
    frame["regret_usd"] = frame["priced_cost_usd"] - best
    tolerance = np.fmax(frame["cost_band_usd"], frame["_free_band"])
    frame["note"] = np.where(
        frame["regret_usd"].notna() & (frame["regret_usd"] <= tolerance), WITHIN_TOLERANCE, ""
    )
    return frame.drop(columns=["_free_band", "_free_cost"])


def regret_table(matrix: pd.DataFrame, chosen: Sequence[Candidate]) -> pd.DataFrame:
    """Per candidate: expected and worst-case regret, P90, failures; robust choice first."""
    records = []
    for c in chosen:
        mine = matrix[matrix["candidate"] == c.name]
        regrets = mine["regret_usd"].dropna()
        records.append(
            {
                "candidate": c.name,
                "first_year": c.year,
                "first_year_purchases": plan_text(c.buys),
                "expected_regret_usd": float(regrets.mean()) if len(regrets) else math.nan,
                "worst_regret_usd": float(regrets.max()) if len(regrets) else math.nan,
                "p90_regret_usd": float(np.percentile(regrets, 90)) if len(regrets) else math.nan,
                "scenarios": len(mine),
                "scenarios_without_plan": int(mine["regret_usd"].isna().sum()),
                "worst_within_tolerance": bool(len(regrets))
                and bool((mine.loc[regrets.index, "note"] == WITHIN_TOLERANCE).all()),
                "mean_unmet_inference_share": float(mine["unmet_inference_share"].mean()),
            }
        )
    frame = pd.DataFrame(records)
    # A candidate that fails somewhere cannot be the robust choice.
    frame["_fails"] = frame["scenarios_without_plan"] > 0
    frame = frame.sort_values(
        ["_fails", "worst_regret_usd", "expected_regret_usd"], ignore_index=True
    ).drop(columns="_fails")
    frame.insert(1, "robust_choice", [i == 0 for i in range(len(frame))])
    return frame


def robust_sentence(table: pd.DataFrame) -> str:
    """``buy gb200-nvl72 × 120 in 2026: worst-case regret $41M, expected $8M (base plan)``."""
    if table.empty:
        return "no candidate plan to compare"
    top = table.iloc[0]
    tolerance = " (within solver tolerance)" if top["worst_within_tolerance"] else ""
    return (
        f"robust choice: buy {top['first_year_purchases']} in {top['first_year']}: "
        f"worst-case regret ${top['worst_regret_usd']:,.0f}{tolerance}, expected "
        f"${top['expected_regret_usd']:,.0f} ({top['candidate']})"
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
