"""Sweep benchmark: runs per minute, in this process vs a local pool vs a Dask LocalCluster.

    python bench/sweep.py                       # 40 Monte Carlo samples of scenarios/baseline.yaml
    python bench/sweep.py --samples 100 --scenario tests/scenarios/power_switch.yaml

Each executor solves the same seeded Monte Carlo (same samples, one solver thread per
task); the table shows wall time including start-up (worker processes, the Dask
cluster), the steady rate (first to last finished run), and checks every executor
returned the same results. Then a per-run breakdown from the rows' timings: model build
vs solve vs the rest of ``plan()`` (perf tables come from the per-process cache).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from planner.analysis.executors import ExecutorChoice, cpu_count, run_tasks
from planner.analysis.montecarlo import montecarlo_tasks
from planner.analysis.params import parse_dist
from planner.analysis.tasks import Row
from planner.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = (
    "finance.wacc=triangular:0.07:0.10:0.13",
    "sites[texas].electricity_usd_per_kwh=normal:0.06:0.015:0.03:",
    "inference[chat].tokens_per_day*=lognormal:1:0.3:0.5:2",
)
EXECUTORS = (
    ("this process", ExecutorChoice(workers=0)),
    ("local pool", ExecutorChoice(workers=1)),
    ("local pool", ExecutorChoice(workers=2)),
    ("Dask LocalCluster", ExecutorChoice(dask_local=1)),
    ("Dask LocalCluster", ExecutorChoice(dask_local=2)),
)


def _comparable(rows: list[Row]) -> list[Row]:
    return [{k: v for k, v in r.items() if k != "timing"} for r in rows]


def _run(tasks: list, choice: ExecutorChoice) -> tuple[list[Row], float, float]:
    finished: list[float] = []
    started = time.perf_counter()
    rows = run_tasks(
        tasks,
        executor=choice,
        progress=False,
        on_row=lambda _: finished.append(time.perf_counter()),
    )
    wall = time.perf_counter() - started
    steady = (len(finished) - 1) / (finished[-1] - finished[0]) * 60 if len(finished) > 1 else 0.0
    return rows, wall, steady


def _breakdown(rows: list[Row]) -> dict[str, float]:
    timing = [r["timing"] for r in rows if r.get("timing", {}).get("build_seconds") is not None]

    def median(key: str) -> float:
        return statistics.median(t[key] for t in timing)

    return {
        "build": median("build_seconds"),
        "solve": median("solve_seconds"),
        "run": median("seconds"),
        "cache_hits": sum(1 for t in timing if t.get("perf_cached")) / max(len(timing), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", default=str(ROOT / "scenarios" / "baseline.yaml"))
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    scenario = load_scenario(args.scenario)
    parameters = [parse_dist(d) for d in DISTRIBUTIONS]
    tasks = montecarlo_tasks(scenario, parameters, samples=args.samples, seed=args.seed)
    print(
        f"{scenario.name}: {len(tasks)} Monte Carlo runs, {cpu_count()} cores, "
        f"python {sys.version.split()[0]}"
    )
    header = (
        f"{'executor':<18} {'workers':>7} {'wall s':>8} {'runs/min':>9} {'steady/min':>11}  same"
    )
    print(header)
    print("-" * len(header))
    reference: list[Row] | None = None
    serial: dict[str, Any] = {}
    for name, choice in EXECUTORS:
        rows, wall, steady = _run(tasks, choice)
        same = reference is None or _comparable(rows) == reference
        reference = reference or _comparable(rows)
        workers = choice.dask_local or choice.workers or 1
        print(
            f"{name:<18} {workers:>7} {wall:>8.2f} {len(rows) / wall * 60:>9.0f} "
            f"{steady:>11.0f}  {'yes' if same else 'NO'}"
        )
        if choice.workers == 0:
            serial = _breakdown(rows)
    failed = sum(1 for r in reference or [] if r["status"] not in ("optimal", "feasible"))
    print(f"\nruns without a plan: {failed}")
    print(
        "per run (median, in this process): model build {build:.3f} s, solve {solve:.3f} s, "
        "whole run {run:.3f} s (validation, perf-table cache, LP duals, tables); "
        "perf tables from the cache in {cache_hits:.0%} of runs".format(**serial)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
