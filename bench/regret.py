"""Regret benchmark: N Monte Carlo samples × K candidate first-year plans on a scenario.

    python bench/regret.py                      # 40 samples × 5 candidates of baseline, 2 workers
    python bench/regret.py --samples 10 --candidates 3 --workers 1

Phase 1 solves the samples and the base scenario freely (as ``planner montecarlo``);
phase 2 fixes each candidate's first-year purchases and re-solves the later years in
every sample (``--regret``). Prints the wall time and runs per minute of each phase,
the regret table, and checks its invariants (regret ≥ 0; the base plan's regret in the
base scenario is 0 up to its cost band). Runs use the analysis default MIP gap.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from planner.analysis.executors import ExecutorChoice, run_tasks
from planner.analysis.figures import DEFAULT_MIP_GAP
from planner.analysis.montecarlo import montecarlo_tasks
from planner.analysis.params import parse_dist
from planner.analysis.regret import base_task, candidates, regret_frames, regret_tasks
from planner.analysis.tasks import SolveSettings
from planner.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = (
    "finance.wacc=triangular:0.07:0.10:0.13",
    "sites[texas].electricity_usd_per_kwh=normal:0.06:0.015:0.03:",
    "inference[chat].tokens_per_day*=lognormal:1:0.3:0.5:2",
    "hardware[gb200-nvl72].price_usd*=uniform:0.8:1.2",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default=str(ROOT / "scenarios" / "baseline.yaml"))
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--candidates", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--matrix", type=Path, help="write the regret of each run here (CSV)")
    args = parser.parse_args(argv)
    scenario = load_scenario(args.scenario)
    settings = SolveSettings(mip_gap=min(scenario.solver.mip_gap, DEFAULT_MIP_GAP))
    parameters = [parse_dist(d) for d in DISTRIBUTIONS]
    tasks = montecarlo_tasks(
        scenario, parameters, samples=args.samples, seed=args.seed, settings=settings
    )
    tasks.append(base_task(tasks))
    executor = ExecutorChoice(workers=args.workers)
    started = time.perf_counter()
    free = run_tasks(tasks, executor=executor, progress=False)
    free_s = time.perf_counter() - started
    chosen = candidates(free[-1], free[:-1], args.candidates)
    fixed_tasks = regret_tasks(tasks, free, chosen)
    started = time.perf_counter()
    fixed = run_tasks(fixed_tasks, executor=executor, progress=False)
    fixed_s = time.perf_counter() - started
    frames, sentence = regret_frames(tasks, free, chosen, fixed)
    print(
        f"scenario {scenario.name}: {args.samples} samples, {len(chosen)} candidates, "
        f"{args.workers} workers, MIP gap {settings.mip_gap:g}"
    )
    print(
        f"free solves:  {len(tasks):4d} runs in {free_s:6.1f} s = "
        f"{len(tasks) / free_s * 60:6.1f} runs/min"
    )
    print(
        f"fixed solves: {len(fixed_tasks):4d} runs in {fixed_s:6.1f} s = "
        f"{len(fixed_tasks) / fixed_s * 60:6.1f} runs/min"
    )
    total = len(tasks) + len(fixed_tasks)
    print(
        f"total:        {total:4d} runs in {free_s + fixed_s:6.1f} s = "
        f"{total / (free_s + fixed_s) * 60:6.1f} runs/min"
    )
    statuses: dict[str, int] = {}
    for r in [*free, *fixed]:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    print(f"run statuses: {statuses} (feasible: stopped by the time limit, not proven optimal)")
    table = frames["Regret"]
    print(
        table[
            ["candidate", "first_year_purchases", "expected_regret_usd", "worst_regret_usd"]
        ].to_string(index=False)
    )
    print(sentence)
    matrix = frames["Regret by scenario"]
    if args.matrix:
        matrix.to_csv(args.matrix, index=False)
    worst = matrix.sort_values("cost_regret_usd", ascending=False).head(5)
    print(
        worst[["candidate", "scenario", "status", "npv_cost_usd", "cost_regret_usd"]].to_string(
            index=False
        )
    )
    assert (matrix["cost_regret_usd"].dropna() >= 0).all(), "negative regret"
    base = matrix[(matrix["scenario"] == "base") & matrix["candidate"].str.startswith("base")]
    band = matrix.loc[matrix["scenario"] == "base", "cost_band_usd"].max()
    assert (base["cost_regret_usd"] <= band).all(), "the base plan regrets in the base scenario"
    return 0


if __name__ == "__main__":
    sys.exit(main())
