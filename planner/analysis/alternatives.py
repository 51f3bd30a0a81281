"""Near-optimal alternatives (modelling to generate alternatives, Hop-Skip-Jump MGA).

1. Solve the scenario: the best cost C* (the objective: NPV cost plus penalties).
2. K times: re-solve the same model with the cost capped at C* + slack·|C*| and, as
   the objective, the accelerators bought or rented of every hardware type any earlier
   plan used (HSJ: minimise the weight of what was chosen before). Each plan is thus
   as different from the earlier ones as the slack allows; it stops early when a plan
   repeats one already found.

An analyst reads the result as: a hardware type bought in *every* plan is forced; one
bought in some is a matter of taste (within the slack); one in none is never worth it.
Only a **material** share counts: hardware whose accelerators added (bought, or rented
unit-years) are under :data:`MATERIAL_SHARE` of a plan's additions is "minor" in that
plan, so a token purchase or a sliver of rental is never called forced or chosen. The
existing fleet is shown beside each type (it is sunk, not chosen): the verdict is about
what is added to it.

By design every alternative spends the slack: HSJ moves as far from the earlier mixes
as the cost cap allows, so each alternative costs about optimum + slack. The table says
what the slack buys (different hardware), not that the alternatives are cheaper.

The cost cap and the weighted objective are plain data
(:class:`planner.optimize.mga.AlternativeObjective`: a cap in USD, a weight per
accelerator of each hardware type), applied to the built model by the pipeline's build
step (``extend=`` of :func:`planner.pipeline.build_and_solve`); then
:func:`planner.results.build_plan` turns each solution into a Plan like any other,
which the independent checker (:mod:`planner.results.checker`) verifies. The runs
depend on each other, so they run one after another in this process.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from planner.analysis.report import Analysis, ChartSpec, runs_frame
from planner.analysis.rows import plan_row
from planner.analysis.tasks import SolveSettings
from planner.results import Plan
from planner.scenario.schema import Scenario

MATERIAL_SHARE = 0.05
"""A hardware type counts in a plan when it is at least this share of the accelerators
the plan adds (bought, or rented unit-years); below it, it is "minor"."""


@dataclass(frozen=True)
class Alternative:
    """One plan: its index (0 = the optimum), the Plan, and checker violations."""

    index: int
    plan: Plan
    violations: list[str]

    @property
    def objective_usd(self) -> float:
        return float(self.plan.headline["objective_usd"])


def _mix(plan: Plan) -> dict[str, float]:
    """Accelerators bought or rented (unit-years) per hardware type."""
    acc = plan.parameters["accelerators_per_unit"]
    out: dict[str, float] = {}
    for name in ("purchases", "rentals"):
        frame = plan.tables[name]
        for h, units in frame.groupby("hardware")["units"].sum().items():
            out[str(h)] = out.get(str(h), 0.0) + float(units) * acc[h]
    return {h: v for h, v in out.items() if v > 1e-9}


def alternatives(
    scenario: Scenario,
    *,
    slack: float = 0.02,
    count: int = 3,
    settings: SolveSettings | None = None,
) -> list[Alternative]:
    """The optimum and up to ``count`` near-optimal, maximally different plans."""
    from planner.optimize import AlternativeObjective, build_data
    from planner.pipeline import (
        build_and_solve,
        check,
        headline,
        no_plan,
        solver_options,
        throughput,
    )
    from planner.results import build_plan
    from planner.results.checker import check_plan

    settings = settings or SolveSettings()
    check(scenario)
    tables = throughput(scenario)
    data = build_data(scenario, *tables, relax=settings.relax)
    options = solver_options(
        scenario,
        mip_gap=settings.mip_gap,
        time_limit_s=settings.time_limit_s,
        solver=settings.solver,
    )
    found: list[Alternative] = []
    used: set[str] = set()
    best: float | None = None
    for index in range(count + 1):
        extend = None
        if best is not None:
            cap = best + slack * abs(best)
            extend = AlternativeObjective(cap, {h: 1.0 for h in sorted(used)})
        result, solution, size = build_and_solve(data, options, extend=extend)
        if solution is None:
            if best is None:
                raise no_plan(options, scenario, result)
            break
        best = solution.cost_usd if best is None else best
        plan = build_plan(
            data,
            solution,
            status=result.status.value,
            headline=headline(result, size, relax=settings.relax, objective_usd=solution.cost_usd),
            throughput=tables,
        )
        mix = _mix(plan)
        if any(_same(mix, _mix(a.plan)) for a in found):
            break  # HSJ has converged: nothing new within the slack
        found.append(Alternative(index, plan, check_plan(plan)))
        used |= set(mix)
        if not used:
            break  # the optimum buys nothing: there is no mix to vary
    return found


def _same(a: dict[str, float], b: dict[str, float]) -> bool:
    names = set(a) | set(b)
    return all(math.isclose(a.get(h, 0.0), b.get(h, 0.0), rel_tol=1e-6) for h in names)


def _existing(plan: Plan) -> dict[str, float]:
    """Accelerators of the existing fleet per hardware type, in the first period."""
    fleet = plan.tables["fleet"]
    if fleet.empty:
        return {}
    first = fleet[(fleet["period"] == fleet["period"].iloc[0]) & (fleet["origin"] != "purchased")]
    return {str(h): float(v) for h, v in first.groupby("hardware")["accelerators"].sum().items()}


def _shares(mix: dict[str, float]) -> dict[str, float]:
    total = sum(mix.values())
    return {h: v / total for h, v in mix.items()} if total else {}


def choices_table(found: Sequence[Alternative]) -> pd.DataFrame:
    """Per hardware type: the existing fleet's accelerators, accelerators added in the
    optimum, min and max across the plans, the plans where it is material, and whether
    it is forced (material in every plan), a choice (in some), minor (added, never
    material) or never added."""
    mixes = [_mix(a.plan) for a in found]
    shares = [_shares(mix) for mix in mixes]
    existing = _existing(found[0].plan) if found else {}
    names = sorted({h for mix in mixes for h in mix} | set(existing))
    records = []
    for h in names:
        values = [mix.get(h, 0.0) for mix in mixes]
        material = sum(1 for share in shares if share.get(h, 0.0) >= MATERIAL_SHARE)
        if material == len(mixes):
            verdict = "forced"
        elif material:
            verdict = "choice"
        elif any(values):
            verdict = "minor"
        else:
            verdict = "existing only"
        records.append(
            {
                "hardware": h,
                "existing_accelerators": existing.get(h, 0.0),
                "added_in_optimum": values[0],
                "added_min": min(values),
                "added_max": max(values),
                "max_share_of_additions": max((s.get(h, 0.0) for s in shares), default=0.0),
                "plans_material": material,
                "verdict": verdict,
            }
        )
    columns = ["hardware", "existing_accelerators", "added_in_optimum", "added_min"]
    columns += ["added_max", "max_share_of_additions", "plans_material", "verdict"]
    return pd.DataFrame(records, columns=columns)


def alternatives_table(found: Sequence[Alternative]) -> pd.DataFrame:
    """One row per plan: cost, its excess over the optimum, checker result, the mix."""
    best = found[0].objective_usd
    records = []
    for a in found:
        records.append(
            {
                "plan": "optimum" if a.index == 0 else f"alternative {a.index}",
                "npv_tco_usd": a.objective_usd,
                "above_optimum_usd": a.objective_usd - best,
                "above_optimum_share": (a.objective_usd - best) / abs(best) if best else 0.0,
                "npv_cost_usd": a.plan.headline["npv_cost_usd"],
                "penalties_usd_pv": a.plan.headline["penalties_usd_pv"],
                "unmet_inference_tokens": a.plan.headline["unmet_inference_tokens"],
                "capex_usd": a.plan.headline["capex_usd"],
                "checker": "ok" if not a.violations else "; ".join(a.violations)[:500],
                "accelerators": ", ".join(
                    f"{h} × {v:,.0f}" for h, v in sorted(_mix(a.plan).items())
                ),
            }
        )
    return pd.DataFrame(records)


def alternatives_analysis(
    scenario: Scenario, found: Sequence[Alternative], *, slack: float, count: int
) -> Analysis:
    rows = []
    for a in found:
        row = {
            "task_id": a.index,
            "label": "optimum" if a.index == 0 else f"alternative {a.index}",
            "values": {},
            "error": None,
            **plan_row(a.plan),
        }
        rows.append(row)
    mixes = pd.DataFrame(
        [{"plan": r["label"], **_mix(a.plan)} for r, a in zip(rows, found, strict=True)]
    )
    return Analysis(
        kind="alternatives",
        scenario=scenario.name,
        rows=rows,
        frames={
            "Alternatives": alternatives_table(found),
            "Choices": choices_table(found),
            "Mix": mixes.fillna(0.0),
            "Runs": runs_frame(rows),
        },
        settings={
            "method": "Hop-Skip-Jump MGA: minimise accelerators of hardware used by earlier "
            "plans, cost ≤ optimum + slack",
            "slack": slack,
            "alternatives asked": count,
            "alternatives found": len(found) - 1,
            "material share": f"{MATERIAL_SHARE:.0%} of the accelerators a plan adds",
        },
        notes=[
            f"every alternative sits at about the {slack:.1%} slack above the optimum by "
            "design: the search spends the slack on moving away from earlier mixes, so "
            "read the table as what that extra cost would buy, not as cheaper plans",
        ],
        charts=[
            ChartSpec("stacked", "Mix", "Accelerators bought or rented by plan", "accelerators")
        ],
    )
