"""Benchmark ``planner stochastic``: the deterministic equivalent against progressive
hedging on a scenario's ``uncertainty:`` tree, each timed in its own process.

    python bench/stochastic.py                                   # the shipped tree
    python bench/stochastic.py scenarios/stochastic_orders.yaml --workers 2

Per method: the first-stage solve's size (the equivalent's columns and rows), wall and
CPU seconds of the whole two-stage plan (first stage, then each future re-solved with
it fixed; no wait-and-see or mean-value solves), peak memory, the expected NPV cost,
and hedging's iterations, bound and gap. The checker runs on every plan.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "scenarios" / "stochastic_orders.yaml"


def measure(path: Path, method: str, workers: int) -> dict[str, Any]:
    """One method's figures, in this process."""
    from planner.analysis.executors import ExecutorChoice
    from planner.scenario import load_scenario
    from planner.stochastic.check import check_tree
    from planner.stochastic.solve import solve_tree
    from planner.stochastic.values import figures

    scenario = load_scenario(path)
    started = time.perf_counter()
    result = solve_tree(
        scenario, values=False, method=method, executor=ExecutorChoice(workers=workers)
    )
    wall = time.perf_counter() - started
    head = figures(result)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    hedging = head.get("hedging") or {}
    return {
        "method": method,
        "futures": head["futures"],
        "columns": result.equivalent.get("columns"),
        "rows": result.equivalent.get("rows"),
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_memory_mib": round(usage.ru_maxrss / 1024),
        "expected_npv_cost_usd": round(head["expected_npv_cost_usd"]),
        "iterations": hedging.get("iterations"),
        "gap": hedging.get("gap", result.equivalent.get("cost_gap")),
        "checker_problems": len(check_tree(result)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("scenario", nargs="?", type=Path, default=SHIPPED)
    parser.add_argument("--workers", type=int, default=0, help="hedging's local pool (0: here)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.scenario, args.child, args.workers)))
        return 0
    rows = []
    for method in ("equivalent", "hedging"):
        command = [sys.executable, __file__, str(args.scenario), "--child", method]
        done = subprocess.run(
            [*command, "--workers", str(args.workers)], capture_output=True, text=True
        )
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return done.returncode
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    for key in rows[0]:
        print(f"{key:<24}" + "".join(f"{r[key]!s:>22}" for r in rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
