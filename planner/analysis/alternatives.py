"""Near-optimal alternatives (modelling to generate alternatives, Hop-Skip-Jump MGA).

1. Solve the scenario: the best cost C* (the objective: NPV cost plus penalties).
2. K times: re-solve the same model with the cost capped at C* + slack·|C*| and, as
   the objective, the accelerators bought or rented of every hardware type any earlier
   plan used (HSJ: minimise the weight of what was chosen before). Each plan is thus
   as different from the earlier ones as the slack allows; it stops early when a plan
   repeats one already found.

An analyst reads the result as: a hardware type bought in *every* plan is forced; one
bought in some is a matter of taste (within the slack); one in none is never worth it.

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
from planner.analysis.tasks import SolveSettings, plan_row
from planner.results import Plan
from planner.scenario.schema import Scenario


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


def choices_table(found: Sequence[Alternative]) -> pd.DataFrame:
    """Per hardware type: accelerators in the optimum, min and max across the plans, and
    whether it is forced (in every plan), a choice (in some) or never chosen."""
    mixes = [_mix(a.plan) for a in found]
    names = sorted({h for mix in mixes for h in mix})
    records = []
    for h in names:
        values = [mix.get(h, 0.0) for mix in mixes]
        present = sum(1 for v in values if v > 0)
        verdict = "forced" if present == len(mixes) else "taste" if present else "never"
        records.append(
            {
                "hardware": h,
                "accelerators_in_optimum": values[0],
                "accelerators_min": min(values),
                "accelerators_max": max(values),
                "plans_using": present,
                "verdict": verdict,
            }
        )
    return pd.DataFrame(
        records,
        columns=[
            "hardware",
            "accelerators_in_optimum",
            "accelerators_min",
            "accelerators_max",
            "plans_using",
            "verdict",
        ],
    )


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
        },
        charts=[
            ChartSpec("stacked", "Mix", "Accelerators bought or rented by plan", "accelerators")
        ],
    )
